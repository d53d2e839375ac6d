// The --html pages: self-contained (no URL loaded, data that cannot close a script), the
// timeline and bandwidth arithmetic against hand-worked cases and the simulator's own
// totals, the Pareto marks of a sweep, bad input, and report.json unchanged by --html.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <regex>

#include "sim/errors.hpp"
#include "tests/regression/tools/cli_harness.hpp"
#include "tools/html/configs_page.hpp"
#include "tools/html/html_assets.hpp"
#include "tools/html/html_page.hpp"
#include "tools/html/run_page.hpp"
#include "tools/html/scan_page.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// The markup outside script elements (what a browser reads as tags and attributes).
std::string markup_outside_scripts(const std::string& html) {
  std::string out;
  std::size_t at = 0;
  while (true) {
    const std::size_t open = html.find("<script", at);
    out += html.substr(at, open == std::string::npos ? std::string::npos : open - at);
    if (open == std::string::npos) return out;
    const std::size_t close = html.find("</script>", open);
    if (close == std::string::npos) return out;
    out +=
        html.substr(open, html.find('>', open) + 1 - open);  // the tag itself, attributes and all
    at = close;
  }
}

/// Attributes that would make a browser fetch something: src= or href= in a tag, naming a
/// URL with a scheme (http:, https:, ...) or a protocol-relative one (//host).
bool loads_a_url(const std::string& html) {
  static const std::regex url(R"((src|href)\s*=\s*["']?\s*([a-zA-Z][a-zA-Z0-9+.-]*:|//))",
                              std::regex::icase);
  const std::string markup = markup_outside_scripts(html);
  for (std::size_t at = markup.find('<'); at != std::string::npos; at = markup.find('<', at + 1)) {
    const std::size_t end = markup.find('>', at);
    if (std::regex_search(markup.substr(at, end == std::string::npos ? end : end - at), url))
      return true;
  }
  return false;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

html::Page hostile_page() {
  html::Page page;
  page.title = "t </script><script>alert(1)</script>";
  html::Section s;
  s.title = "s";
  s.note = "<img src=https://example.com/x.png>";
  Json data = Json::array({{{"label", "</script><script>alert(2)</script>"}, {"v", 1}}});
  s.charts.push_back({"c1", {{"data", {{"values", data}}}, {"mark", "bar"}}, true});
  s.table = {{"<b>h</b>"}, {{"<a href=\"http://x\">y</a>"}}};
  page.sections.push_back(s);
  return page;
}

}  // namespace

TEST_CASE("a page loads nothing from outside and no text in it can close a script", "[html]") {
  // The check itself sees a fetched script or link (and not escaped text).
  CHECK(loads_a_url("<p>x</p><script src=\"https://cdn.example/x.js\"></script>"));
  CHECK(loads_a_url("<a HREF = '//example.com/'>x</a>"));
  CHECK_FALSE(loads_a_url("<p>&lt;img src=https://example.com/x.png&gt;</p>"));
  const std::string html = html::render_page(hostile_page());
  CHECK_FALSE(loads_a_url(html));
  // The three libraries, the specs and the glue: five script elements, none with a src, and
  // only their five closing tags (the hostile texts are escaped).
  CHECK(count(html, "<script") == 5);
  CHECK(count(html, "</script>") == 5);
  CHECK(html.find("<script src") == std::string::npos);
  CHECK(html.find("\\u003c/script>\\u003cscript>alert(2)") != std::string::npos);
  CHECK(html.find("&lt;img src=https://example.com/x.png&gt;") != std::string::npos);
  // The libraries are inline: their global names are defined in the file.
  CHECK(html.find("vegaEmbed") != std::string::npos);
  CHECK(html.size() > 800000);  // vega + vega-lite + vega-embed minified (third_party/vega)
}

TEST_CASE("pipeline timeline: a hand-worked two-stage pipeline", "[html]") {
  // F = 2 forward stages on IPUs 0 and 1, P = 3 pipeline stages, 4 cycles of 10 ns: M = 2
  // micro-batches. Stage 0: forward 2, backward 3; stage 1: forward 4, backward 5 (ns).
  // By hand: IPU 0 is busy 2, 2, 3, 3 ns in cycles 0..3; IPU 1 is busy 0, 9, 9, 0 ns.
  const Json pipeline = {{"forward_stages", 2},
                         {"pipeline_stages", 3},
                         {"cycles", 4},
                         {"cycle_time_ns", {10, 10, 10, 10}},
                         {"optimizer_time_ns", 0},
                         {"stages", Json::array({{{"stage", 0},
                                                  {"vgraph", 0},
                                                  {"forward_ns_per_micro_batch", 2},
                                                  {"backward_ns_per_micro_batch", 3}},
                                                 {{"stage", 1},
                                                  {"vgraph", 1},
                                                  {"forward_ns_per_micro_batch", 4},
                                                  {"backward_ns_per_micro_batch", 5}}})}};
  const double busy[2][4] = {{2, 2, 3, 3}, {0, 9, 9, 0}};
  double seen_busy[2][4] = {{0}}, seen_idle[2][4] = {{0}};
  for (const html::TimelineBar& b : html::pipeline_timeline(pipeline)) {
    const int ipu = b.row == "IPU 0" ? 0 : 1;
    const int cycle = std::stoi(b.label.substr(6));
    const double ns = (b.end_ms - b.start_ms) * 1e6;
    CHECK(b.start_ms * 1e6 >= cycle * 10 - 1e-9);
    CHECK(b.end_ms * 1e6 <= cycle * 10 + 10 + 1e-9);
    (b.kind == "busy" ? seen_busy : seen_idle)[ipu][cycle] += ns;
  }
  for (int ipu = 0; ipu < 2; ++ipu) {
    for (int c = 0; c < 4; ++c) {
      CHECK(seen_busy[ipu][c] == Approx(busy[ipu][c]));
      CHECK(seen_idle[ipu][c] == Approx(10 - busy[ipu][c]));
    }
  }
}

TEST_CASE("pipeline timeline: busy time per IPU equals the simulator's own total", "[html][cli]") {
  // The simulator measures each IPU's compute time in the loop (pipeline.ipus[].busy_ns);
  // the timeline rebuilds it from the stages' per-micro-batch times and the schedule.
  Scratch s;
  for (const char* config : {"configs/workloads/mlperf_v1.0_bert_pod16.json",
                             "configs/workloads/mlperf_v1.1_resnet50_pod16.json"}) {
    INFO(config);
    const CliResult r = run_cli(s, {"run", source_path(config), "--out", s.path("p"), "-q"});
    REQUIRE(r.exit_code == 0);
    const Json pipeline = Json::parse(read_text(s.path("p/report.json")))["workload"]["pipeline"];
    std::map<std::string, double> busy;
    for (const html::TimelineBar& b : html::pipeline_timeline(pipeline))
      if (b.kind == "busy") busy[b.row] += (b.end_ms - b.start_ms) * 1e6;
    REQUIRE(busy.size() == pipeline["ipus"].size());
    for (const Json& ipu : pipeline["ipus"])
      CHECK(busy["IPU " + std::to_string(ipu["vgraph"].get<int>())] ==
            Approx(ipu["busy_ns"].get<double>()).epsilon(1e-6));
  }
}

TEST_CASE("timeline aggregation keeps each kind's time per slice", "[html]") {
  // 3000 contiguous 1 ms ops alternating a, b on one row: 3000 ms in 10 slices of 300 ms,
  // each with 150 ms of a then 150 ms of b (150 ops of each start in it).
  std::vector<html::TimelineBar> bars;
  for (int i = 0; i < 3000; ++i)
    bars.push_back({"IPU 0", static_cast<double>(i), i + 1.0, i % 2 ? "b" : "a", "op"});
  CHECK(html::aggregate_timeline(bars, 3000, 10).size() == 3000);  // at the limit: unchanged
  const std::vector<html::TimelineBar> out = html::aggregate_timeline(bars, 2000, 10);
  REQUIRE(out.size() == 20);
  for (std::size_t i = 0; i < out.size(); ++i) {
    INFO(i);
    CHECK(out[i].row == "IPU 0");
    CHECK(out[i].kind == (i % 2 ? "b" : "a"));
    CHECK(out[i].start_ms == Approx(150.0 * static_cast<double>(i)));
    CHECK(out[i].end_ms - out[i].start_ms == Approx(150));
    CHECK(out[i].label.rfind("150 ops", 0) == 0);
  }
}

TEST_CASE("size scan page: one bandwidth point per size and series, the peak named", "[html]") {
  // Two sizes of an allreduce on 16 replicas: algbw = size / time, busbw = algbw x 30 / 16.
  const Json results = Json::parse(R"([
    {"op": "allreduce", "dtype": "float32", "algorithm": "direct", "size_bytes": 1024,
     "time_ns": 4096, "algorithm_bandwidth_GBps": 0.25, "bus_bandwidth_GBps": 0.46875},
    {"op": "allreduce", "dtype": "float32", "algorithm": "ring", "size_bytes": 1048576,
     "time_ns": 65536, "algorithm_bandwidth_GBps": 16, "bus_bandwidth_GBps": 30}])");
  const html::Page page = html::collective_scan_page(results);
  REQUIRE(page.sections.size() == 2);
  const Json& bw = page.sections[0].charts.at(0).spec["data"]["values"];
  REQUIRE(bw.size() == 4);  // bus and algorithm bandwidth per size
  CHECK(bw[0]["series"] == "bus bandwidth");
  CHECK(bw[2]["value"] == 30);
  CHECK(bw[3]["value"] == 16);
  const Json& time = page.sections[1].charts.at(0).spec["data"]["values"];
  REQUIRE(time.size() == 2);
  CHECK(time[1]["value"].get<double>() == Approx(65.536));  // us
  CHECK(page.sections[1].table.rows.size() == 2);
  bool peak = false;
  for (const auto& [key, value] : page.summary)
    if (key == "peak bus bandwidth") peak = value.rfind("30 GB/s at 1", 0) == 0;
  CHECK(peak);
}

TEST_CASE("bus bandwidth factors are nccl-tests'", "[html]") {
  CHECK(html::bus_bandwidth_factor("allreduce", 16) == Approx(30.0 / 16));
  CHECK(html::bus_bandwidth_factor("all_gather", 4) == Approx(0.75));
  CHECK(html::bus_bandwidth_factor("reduce_scatter", 2) == Approx(0.5));
  CHECK(html::bus_bandwidth_factor("broadcast", 64) == 1);
}

TEST_CASE("a step's collectives: an all_gather's bandwidth counts its output, as nccl-tests",
          "[html]") {
  // 1 MB in per replica over 4 replicas in 100 us: a reduce_scatter moves 1 MB per replica
  // (algbw 10 GB/s, busbw 10 x 3/4 = 7.5); an all_gather of 1 MB in gives 4 MB out per
  // replica (algbw 40 GB/s, busbw 30), what `ipusim collective` reports for it.
  auto op = [](const std::string& name) {
    return Json{{"label", name}, {"kind", "collective"}, {"op", name},
                {"bytes", 1e6},  {"duration_ns", 1e5},   {"group_size", 4}};
  };
  const Json report = {
      {"workload_kind", "training"},
      {"workload",
       {{"phases",
         Json::array({{{"ops", Json::array({op("reduce_scatter"), op("all_gather")})}}})}}}};
  const html::Page page = html::run_page(report);
  const html::Section* section = nullptr;
  for (const auto& sec : page.sections)
    if (sec.title == "Collectives") section = &sec;
  REQUIRE(section != nullptr);
  REQUIRE(section->table.rows.size() == 2);
  for (const auto& row : section->table.rows) {
    const bool gather = row[1] == "all_gather";
    CHECK(row[6] == html::number_text(gather ? 40.0 : 10.0));
    CHECK(row[7] == html::number_text(gather ? 30.0 : 7.5));
  }
}

TEST_CASE("a run page's throughput rows are labelled in units, not report keys", "[html]") {
  const Json report = {{"workload_kind", "training"},
                       {"workload", {{"samples_per_s", 100.0}, {"tokens_per_s", 12800.0}}}};
  const html::Page page = html::run_page(report);
  std::vector<std::string> labels;
  for (const auto& row : page.summary) labels.push_back(row.first);
  CHECK(std::find(labels.begin(), labels.end(), "samples/s") != labels.end());
  CHECK(std::find(labels.begin(), labels.end(), "tokens/s") != labels.end());
  CHECK(std::find(labels.begin(), labels.end(), "samples_per_s") == labels.end());
}

TEST_CASE("sweep points: configuration = axis values, Pareto front of time against SRAM",
          "[html]") {
  // (time, SRAM): A (10, 100) and B (8, 200) are on the front; C (12, 150) is beaten by A;
  // E (5, 50) would beat both but does not fit; D failed.
  auto row = [](int index, double t, double sram, int fits) {
    return Json{{"index", index},
                {"status", "ok"},
                {"workload.model.transformer.micro_batch", index},
                {"time_ns", t},
                {"memory.max_tile_bytes", sram},
                {"memory.fits", fits}};
  };
  const Json results = {
      {"axes", Json::array({{{"path", "workload.model.transformer.micro_batch"}}})},
      {"rows", Json::array({row(0, 10, 100, 1),
                            row(1, 8, 200, 1),
                            row(2, 12, 150, 1),
                            {{"index", 3}, {"status", "failed"}, {"error", "boom"}},
                            row(4, 5, 50, 0)})}};
  const auto points = html::sweep_config_points(results, "memory.max_tile_bytes");
  REQUIRE(points.size() == 5);
  CHECK(points[0].pareto);
  CHECK(points[1].pareto);
  CHECK_FALSE(points[2].pareto);
  CHECK_FALSE(points[3].pareto);
  CHECK(points[3].status == "failed: boom");
  CHECK_FALSE(points[4].pareto);
  CHECK_FALSE(points[4].fits);
  CHECK(points[2].config == Json{{"workload.model.transformer.micro_batch", 2}});
  CHECK(points[1].max_sram_per_tile_bytes == 200);
  CHECK(std::isnan(points[0].samples_per_s));
  // The table says nothing of the failed point's fit (it has no memory figure): its fits cell
  // is empty, the point that does not fit says no.
  const html::Page page = html::configurations_page(points, {});
  REQUIRE(page.sections.size() == 2);
  const auto& table = page.sections[1].table;
  REQUIRE(table.headers[6] == "fits");
  for (const auto& r : table.rows) {
    if (r[0] == "point 3") CHECK(r[6].empty());
    if (r[0] == "point 4") CHECK(r[6] == "no");
    if (r[0] == "point 0") CHECK(r[6] == "yes");
  }
  // With throughput, the front maximises it: (SRAM, samples/s) A (100, 10) and B (200, 20)
  // are on it, C (150, 5) is beaten by A, although C's time would be the shortest.
  auto training = [](int index, double t, double sram, double samples) {
    return Json{{"index", index},
                {"status", "ok"},
                {"time_ns", t},
                {"memory.max_tile_bytes", sram},
                {"workload.samples_per_s", samples}};
  };
  const Json trained = {{"axes", Json::array()},
                        {"rows", Json::array({training(0, 10, 100, 10), training(1, 50, 200, 20),
                                              training(2, 1, 150, 5)})}};
  const auto by_throughput = html::sweep_config_points(trained, "memory.max_tile_bytes");
  CHECK(by_throughput[0].pareto);
  CHECK(by_throughput[1].pareto);
  CHECK_FALSE(by_throughput[2].pareto);
}

TEST_CASE("plan rows: numbers, flags, and type errors that name the row", "[html]") {
  const html::ConfigPoint p = html::config_point_from_row({{"config", {{"ipusPerReplica", 4}}},
                                                           {"samples_per_s", 1000.5},
                                                           {"fits", 1},
                                                           {"pareto", true}},
                                                          "plan.json: /rows/0");
  CHECK(p.samples_per_s == 1000.5);
  CHECK(std::isnan(p.step_time_ns));
  CHECK(p.fits);
  CHECK(p.pareto);
  CHECK(p.config["ipusPerReplica"] == 4);
  CHECK_THROWS_WITH(html::config_point_from_row({{"samples_per_s", "fast"}}, "plan.json: /rows/3"),
                    Catch::Contains("plan.json: /rows/3/samples_per_s: expected a number"));
  CHECK_THROWS_AS(html::config_point_from_row(Json::array(), "x"), ConfigError);
  // The page of such rows: both charts, click-to-copy on.
  const html::Page page = html::configurations_page({p}, {});
  REQUIRE(page.sections.size() == 2);
  CHECK(page.sections[0].charts.size() == 1);  // no streaming memory: SRAM chart only
  CHECK(page.sections[0].charts[0].click_copies_config);
}

TEST_CASE("write_page: a missing folder or a folder as the file is bad input (2)", "[html]") {
  Scratch s;
  html::PageWriteResult r = html::write_page(s.path("missing/report.html"), "x");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.error, Catch::Contains("does not exist") && Catch::Contains("missing"));
  fs::create_directories(s.path("folder"));
  r = html::write_page(s.path("folder"), "x");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.error, Catch::Contains("is a folder"));
  r = html::write_page(s.path("page.html"), "<p>x</p>");
  CHECK(r.exit_code == 0);
  CHECK(read_text(s.path("page.html")) == "<p>x</p>");
}

TEST_CASE("run with a page: report.json as without it, a self-contained page beside it",
          "[html][cli]") {
  Scratch s;
  const std::string config = source_path("configs/workloads/mnist_phased.json");
  REQUIRE(run_cli(s, {"run", config, "--out", s.path("plain"), "-q"}).exit_code == 0);
  REQUIRE(run_cli(s, {"run", config, "--out", s.path("html"), "-q", "--html"}).exit_code == 0);
  Json plain = Json::parse(read_text(s.path("plain/report.json")));
  Json with_html = Json::parse(read_text(s.path("html/report.json")));
  plain.erase("run_info");
  with_html.erase("run_info");
  CHECK(plain.dump(2) == with_html.dump(2));
  CHECK_FALSE(fs::exists(s.path("plain/report.html")));
  const std::string page = read_text(s.path("html/report.html"));
  CHECK_FALSE(loads_a_url(page));
  // The histogram the page got: every tile of every IPU that holds data counted once.
  const Json resolved = Json::parse(read_text(s.path("html/resolved_config.json")));
  std::size_t ipus_with_sram = 0;  // IPUs the run placed data on (the others hold none)
  std::function<void(const Json&)> walk = [&](const Json& node) {
    for (const auto& [key, value] : node.items()) {
      if (!value.is_object()) continue;
      if (value.contains("sram_max_per_tile_bytes"))
        ++ipus_with_sram;
      else
        walk(value);
    }
  };
  walk(plain["stats"]);
  REQUIRE(ipus_with_sram > 0);
  const std::size_t tiles = resolved["chip"]["tiles"].get<std::size_t>() * ipus_with_sram;
  // The chart's spec in the page's JSON block (after the chart elements of the same ids).
  const std::size_t at = page.find("\"tile_memory\"", page.find("id=\"ipusim-specs\""));
  REQUIRE(at != std::string::npos);
  std::size_t counted = 0;
  static const std::regex tile_count(R"("tiles":([0-9.]+))");
  const std::string spec = page.substr(at, page.find("\"ipu_memory\"", at) - at);
  for (std::sregex_iterator i(spec.begin(), spec.end(), tile_count), end; i != end; ++i)
    counted += static_cast<std::size_t>(std::stod((*i)[1]));
  CHECK(counted == tiles);
}

TEST_CASE("validate: a page into a folder that does not exist is exit 2 naming --html",
          "[html][cli]") {
  Scratch s;
  const CliResult r = run_cli(
      s, {"validate", source_path("configs/validation/cases/ipulink_partner_bandwidth.json"),
          "--html", s.path("no/such/folder/report.html"), "-q"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--html") && Catch::Contains("no/such/folder"));
}

TEST_CASE("the libraries in the binary are third_party/vega's files byte for byte", "[html]") {
  CHECK(std::string(html::vega_js()) == read_text(source_path("third_party/vega/vega.min.js")));
  CHECK(std::string(html::vega_lite_js()) ==
        read_text(source_path("third_party/vega/vega-lite.min.js")));
  CHECK(std::string(html::vega_embed_js()) ==
        read_text(source_path("third_party/vega/vega-embed.min.js")));
}
