#include "tools/html/html_page.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "sim/format.hpp"
#include "sim/output_file.hpp"
#include "tools/html/html_assets.hpp"

namespace ipusim::html {

namespace {

const char* kStyle = R"CSS(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:1280px;color:#1f2328;padding:0 16px}
h1{font-size:1.6em;margin-bottom:4px}h2{font-size:1.25em;margin-top:32px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
.subtitle{color:#57606a;margin-top:0}.note{color:#57606a;max-width:60em}
table{border-collapse:collapse;margin:8px 0;font-size:0.9em}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:left}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
.chart{margin:8px 0 16px 0}pre.copied{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;white-space:pre-wrap;font-size:0.85em}
)CSS";

// Glue around vega-embed (no chart code): draw every spec, record on <body> how many were
// drawn and any error (the browser test reads these), copy a clicked mark's `config`.
const char* kGlue = R"JS(
(function(){
  var errors=[];
  window.addEventListener('error',function(e){errors.push(String(e.message));document.body.dataset.errors=errors.join('\n');});
  var specs=JSON.parse(document.getElementById('ipusim-specs').textContent);
  var ids=Object.keys(specs);
  function copy(text,box){
    box.textContent=text;box.hidden=false;
    if(navigator.clipboard&&navigator.clipboard.writeText){navigator.clipboard.writeText(text).catch(function(){});}
  }
  var t0=performance.now();
  Promise.all(ids.map(function(id){
    var entry=specs[id];
    return vegaEmbed('#'+id,entry.spec,{actions:false,renderer:'canvas',mode:'vega-lite'}).then(function(result){
      if(entry.copy){
        var box=document.getElementById(id+'-copied');
        result.view.addEventListener('click',function(event,item){
          if(item&&item.datum&&item.datum.config!==undefined){copy(JSON.stringify(item.datum.config,null,2),box);}
        });
      }
      (window.ipusimViews = window.ipusimViews || {})[id] = result.view;
      return id;
    });
  })).then(function(done){
    document.body.dataset.chartsDrawn=String(done.length);
    document.body.dataset.renderMs=String(Math.round(performance.now()-t0));
  }).catch(function(e){
    errors.push(String(e));document.body.dataset.errors=errors.join('\n');console.error(e);
  });
})();
)JS";

/// JSON for a <script type="application/json"> block: every '<' becomes \u003c (only
/// possible inside JSON strings), so no text in the data can close the script element.
std::string script_safe_json(const Json& value) {
  const std::string text = value.dump();
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

void write_table(std::ostringstream& o, const Table& t) {
  if (t.headers.empty() && t.rows.empty()) return;
  o << "<table>";
  if (!t.headers.empty()) {
    o << "<tr>";
    for (const auto& h : t.headers) o << "<th>" << escape_markup(h) << "</th>";
    o << "</tr>";
  }
  for (const auto& row : t.rows) {
    o << "<tr>";
    for (const auto& cell : row) {
      const bool numeric = !cell.empty() && (std::isdigit(static_cast<unsigned char>(cell[0])) ||
                                             (cell[0] == '-' && cell.size() > 1));
      o << (numeric ? "<td class=\"num\">" : "<td>") << escape_markup(cell) << "</td>";
    }
    o << "</tr>";
  }
  o << "</table>\n";
}

}  // namespace

std::string render_page(const Page& page) {
  std::ostringstream o;
  Json specs = Json::object();
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>" << escape_markup(page.title) << "</title>\n<style>" << kStyle << "</style>\n"
    << "<script>" << vega_js() << "</script>\n<script>" << vega_lite_js() << "</script>\n"
    << "<script>" << vega_embed_js() << "</script>\n</head>\n<body>\n"
    << "<h1>" << escape_markup(page.title) << "</h1>\n";
  if (!page.subtitle.empty())
    o << "<p class=\"subtitle\">" << escape_markup(page.subtitle) << "</p>\n";
  if (!page.summary.empty()) {
    Table summary;
    for (const auto& [key, value] : page.summary) summary.rows.push_back({key, value});
    write_table(o, summary);
  }
  for (const Section& s : page.sections) {
    o << "<h2>" << escape_markup(s.title) << "</h2>\n";
    if (!s.note.empty()) o << "<p class=\"note\">" << escape_markup(s.note) << "</p>\n";
    for (const Chart& c : s.charts) {
      o << "<div class=\"chart\" id=\"" << escape_markup(c.id) << "\"></div>\n";
      if (c.click_copies_config)
        o << "<pre class=\"copied\" id=\"" << escape_markup(c.id) << "-copied\" hidden></pre>\n";
      specs[c.id] = {{"spec", c.spec}, {"copy", c.click_copies_config}};
    }
    write_table(o, s.table);
  }
  o << "<script type=\"application/json\" id=\"ipusim-specs\">" << script_safe_json(specs)
    << "</script>\n<script>" << kGlue << "</script>\n</body>\n</html>\n";
  return o.str();
}

PageWriteResult write_page(const std::string& path, const std::string& html) {
  namespace fs = std::filesystem;
  PageWriteResult r;
  const fs::path file(path);
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    r.error = path + ": cannot write the HTML page: the folder " + folder.string() +
              (fs::exists(folder, ec) ? " is not a folder" : " does not exist");
    r.exit_code = 2;
    return r;
  }
  if (fs::is_directory(file, ec)) {
    r.error = path + ": cannot write the HTML page: it is a folder";
    r.exit_code = 2;
    return r;
  }
  r.error = try_write_file_atomic(path, [&](std::ostream& out) { out << html; });
  r.exit_code = r.error.empty() ? 0 : 3;
  return r;
}

std::string number_text(double value, int digits) {
  if (!std::isfinite(value)) return std::isnan(value) ? "" : (value > 0 ? "inf" : "-inf");
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

namespace {

std::string scaled(double value, const char* const* names, const double* scales, int count) {
  int u = count - 1;
  for (int i = 0; i < count; ++i) {
    if (std::fabs(value) >= scales[i]) {
      u = i;
      break;
    }
  }
  return number_text(value / scales[u], 3) + " " + names[u];
}

}  // namespace

std::string bytes_text(double bytes) {
  static const char* const names[] = {"TiB", "GiB", "MiB", "KiB", "B"};
  static const double scales[] = {1099511627776.0, 1073741824.0, 1048576.0, 1024.0, 1.0};
  return scaled(bytes, names, scales, 5);
}

std::string time_text(double ns) {
  static const char* const names[] = {"s", "ms", "us", "ns"};
  static const double scales[] = {1e9, 1e6, 1e3, 1.0};
  return scaled(ns, names, scales, 4);
}

}  // namespace ipusim::html
