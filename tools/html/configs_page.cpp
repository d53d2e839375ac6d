#include "tools/html/configs_page.hpp"

#include <algorithm>
#include <cmath>

#include "sim/errors.hpp"
#include "tools/sweep/sweep_pareto.hpp"

namespace ipusim::html {

namespace {

Json number_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(); }

/// The configuration as one line per key ("key = value") for the hover text.
std::string config_text(const Json& config) {
  std::string text;
  if (!config.is_object()) return config.dump();
  for (const auto& [key, value] : config.items())
    text += (text.empty() ? "" : "\n") + key + " = " +
            (value.is_string() ? value.get<std::string>() : value.dump());
  return text;
}

std::string class_of(const ConfigPoint& p) {
  if (!p.fits) return "does not fit";
  return p.pareto ? "Pareto front" : "fits";
}

/// Scatter of the y metric against `x_field` (bytes, drawn in MiB), Pareto points joined.
Chart scatter(const std::string& id, const Json& values, const std::string& x_field,
              const std::string& x_title, const std::string& y_field, const std::string& y_title,
              double rule_MiB) {
  const Json x = {{"field", x_field},
                  {"type", "quantitative"},
                  {"title", x_title},
                  {"scale", {{"zero", false}}}};
  const Json y = {{"field", y_field},
                  {"type", "quantitative"},
                  {"title", y_title},
                  {"scale", {{"zero", false}}}};
  const Json filter = {
      {"filter", "isValid(datum['" + x_field + "']) && isValid(datum['" + y_field + "'])"}};
  Json layers = Json::array();
  layers.push_back(
      {{"transform", Json::array({filter, {{"filter", "datum.klass === 'Pareto front'"}}})},
       {"mark", {{"type", "line"}, {"color", "#e45756"}, {"strokeDash", {4, 3}}}},
       {"encoding",
        {{"x", x}, {"y", y}, {"order", {{"field", x_field}, {"type", "quantitative"}}}}}});
  layers.push_back(
      {{"transform", Json::array({filter})},
       {"mark", {{"type", "point"}, {"filled", true}, {"size", 70}, {"cursor", "pointer"}}},
       {"encoding",
        {{"x", x},
         {"y", y},
         {"color",
          {{"field", "klass"},
           {"type", "nominal"},
           {"title", nullptr},
           {"scale",
            {{"domain", {"Pareto front", "fits", "does not fit"}},
             {"range", {"#e45756", "#4c78a8", "#bab0ac"}}}}}},
         {"shape", {{"field", "klass"}, {"type", "nominal"}, {"legend", nullptr}}},
         {"tooltip", Json::array({{{"field", "label"}, {"title", "configuration"}},
                                  {{"field", "config_text"}, {"title", "settings"}},
                                  {{"field", y_field}, {"title", y_title}, {"format", ",.4~f"}},
                                  {{"field", x_field}, {"title", x_title}, {"format", ",.4~f"}},
                                  {{"field", "klass"}, {"title", "class"}}})}}}});
  if (rule_MiB > 0) {
    layers.push_back({{"data", {{"values", Json::array({{{"limit", rule_MiB}}})}}},
                      {"mark", {{"type", "rule"}, {"color", "#bab0ac"}, {"strokeDash", {2, 2}}}},
                      {"encoding", {{"x", {{"field", "limit"}, {"type", "quantitative"}}}}}});
  }
  Json spec = {{"data", {{"values", values}}}, {"width", 560}, {"height", 360}, {"layer", layers}};
  return {id, spec, true};
}

}  // namespace

Page configurations_page(const std::vector<ConfigPoint>& points, const ConfigPageOptions& options) {
  Page page;
  page.title = options.title;
  page.subtitle =
      options.subtitle.empty()
          ? "Hover a point to see its configuration; click it to copy the configuration (JSON)."
          : options.subtitle +
                " Hover a point to see its configuration; click it to copy it (JSON).";
  page.summary = options.summary;
  const bool throughput = std::any_of(points.begin(), points.end(), [](const ConfigPoint& p) {
    return std::isfinite(p.samples_per_s);
  });
  std::size_t fits = 0, front = 0, ok = 0;
  Json values = Json::array();
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ConfigPoint& p = points[i];
    const std::string label = p.label.empty() ? "configuration " + std::to_string(i) : p.label;
    ok += p.status == "ok";
    if (p.status != "ok") continue;
    fits += p.fits;
    front += p.pareto;
    values.push_back({{"label", label},
                      {"config", p.config},
                      {"config_text", config_text(p.config)},
                      {"samples_per_s", number_or_null(p.samples_per_s)},
                      {"step_ms", number_or_null(p.step_time_ns / 1e6)},
                      {"sram_KiB", number_or_null(p.max_sram_per_tile_bytes / 1024)},
                      {"streaming_GiB", number_or_null(p.streaming_memory_bytes / 1073741824.0)},
                      {"klass", class_of(p)}});
  }
  page.summary.push_back({"configurations", std::to_string(points.size()) + " (" +
                                                std::to_string(ok) + " with results, " +
                                                std::to_string(fits) + " fit, " +
                                                std::to_string(front) + " on the Pareto front)"});
  const std::string y_field = throughput ? "samples_per_s" : "step_ms";
  const std::string y_title = throughput ? "samples/s" : "time (ms)";
  Section charts{"Pareto front", "", {}, {}};
  charts.note = std::string("Each point is a configuration; red points are on the Pareto front (") +
                (throughput ? "throughput" : "time") +
                " against SRAM per tile), grey ones do not fit. The dashed vertical line is the "
                "SRAM of a tile.";
  charts.charts.push_back(scatter("pareto_sram", values, "sram_KiB", "max SRAM per tile (KiB)",
                                  y_field, y_title, options.sram_per_tile_bytes / 1024));
  const bool streaming = std::any_of(points.begin(), points.end(), [](const ConfigPoint& p) {
    return std::isfinite(p.streaming_memory_bytes);
  });
  if (streaming)
    charts.charts.push_back(scatter("pareto_streaming", values, "streaming_GiB",
                                    "streaming memory per machine (GiB)", y_field, y_title, 0));
  page.sections.push_back(charts);

  Section table{"Configurations",
                "Best first (" + std::string(throughput ? "samples/s" : "time") + ").",
                {},
                {}};
  table.table.headers = {"configuration",    "settings", "samples/s", "time",  "max SRAM per tile",
                         "streaming memory", "fits",     "Pareto",    "status"};
  std::vector<std::size_t> order(points.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto key = [&](std::size_t i) {
    const double v = throughput ? -points[i].samples_per_s : points[i].step_time_ns;
    return std::isfinite(v) ? v : INFINITY;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  for (std::size_t i : order) {
    const ConfigPoint& p = points[i];
    table.table.rows.push_back(
        {p.label.empty() ? "configuration " + std::to_string(i) : p.label, p.config.dump(),
         number_text(p.samples_per_s, 6),
         std::isfinite(p.step_time_ns) ? time_text(p.step_time_ns) : "",
         std::isfinite(p.max_sram_per_tile_bytes) ? bytes_text(p.max_sram_per_tile_bytes) : "",
         std::isfinite(p.streaming_memory_bytes) ? bytes_text(p.streaming_memory_bytes) : "",
         // A point that did not run has no memory figure: neither "yes" nor "no".
         p.status != "ok" ? "" : (p.fits ? "yes" : "no"), p.pareto ? "*" : "", p.status});
  }
  page.sections.push_back(table);
  return page;
}

ConfigPoint config_point_from_row(const Json& row, const std::string& where) {
  if (!row.is_object()) throw ConfigError(where + ": expected an object (a configuration row)");
  ConfigPoint p;
  auto number = [&](const char* key) -> double {
    if (!row.contains(key) || row[key].is_null()) return NAN;
    if (!row[key].is_number()) throw ConfigError(where + "/" + key + ": expected a number");
    return row[key].get<double>();
  };
  auto flag = [&](const char* key, bool fallback) {
    if (!row.contains(key)) return fallback;
    if (row[key].is_boolean()) return row[key].get<bool>();
    if (row[key].is_number()) return row[key].get<double>() != 0;
    throw ConfigError(where + "/" + key + ": expected true or false");
  };
  p.config = row.value("config", Json::object());
  p.samples_per_s = number("samples_per_s");
  p.step_time_ns = number("step_time_ns");
  p.max_sram_per_tile_bytes = number("max_sram_per_tile_bytes");
  p.streaming_memory_bytes = number("streaming_memory_bytes");
  p.fits = flag("fits", true);
  p.pareto = flag("pareto", false);
  if (row.contains("label") && row["label"].is_string()) p.label = row["label"].get<std::string>();
  if (row.contains("status") && row["status"].is_string())
    p.status = row["status"].get<std::string>();
  return p;
}

std::vector<ConfigPoint> sweep_config_points(const Json& results,
                                             const std::string& memory_column) {
  std::vector<ConfigPoint> points;
  std::vector<std::string> axes;
  for (const Json& a : results.value("axes", Json::array())) axes.push_back(a.value("path", ""));
  auto number = [](const Json& row, const std::string& key) {
    return row.contains(key) && row[key].is_number() ? row[key].get<double>() : NAN;
  };
  // The front maximises throughput when the rows have it (a step's time grows with its
  // batch, so time alone would favour the smallest batch), else minimises time.
  bool throughput = false;
  for (const Json& row : results.value("rows", Json::array()))
    throughput = throughput || !std::isnan(number(row, "workload.samples_per_s"));
  std::vector<std::pair<double, double>> front_input;
  for (const Json& row : results.value("rows", Json::array())) {
    ConfigPoint p;
    for (const auto& a : axes) p.config[a] = row.contains(a) ? row[a] : Json();
    p.label =
        "point " + (row.contains("index") ? row["index"].dump() : std::to_string(points.size()));
    p.step_time_ns = number(row, "time_ns");
    p.samples_per_s = number(row, "workload.samples_per_s");
    p.max_sram_per_tile_bytes = memory_column.empty() ? NAN : number(row, memory_column);
    p.streaming_memory_bytes = number(row, "memory.streaming_memory_per_machine_bytes");
    p.fits = !row.contains("memory.fits") || !row["memory.fits"].is_number() ||
             row["memory.fits"].get<double>() != 0;
    const std::string status = row.value("status", "ok");
    p.status = status == "ok" ? "ok"
                              : status + (row.contains("error") && row["error"].is_string()
                                              ? ": " + row["error"].get<std::string>()
                                              : "");
    const bool usable = p.status == "ok" && p.fits;
    const double objective = throughput ? -p.samples_per_s : p.step_time_ns;
    front_input.emplace_back(usable ? p.max_sram_per_tile_bytes : NAN, usable ? objective : NAN);
    points.push_back(p);
  }
  for (std::size_t i : cli::pareto_front(front_input)) points[i].pareto = true;
  return points;
}

PageWriteResult write_configurations_page(const std::string& path,
                                          const std::vector<ConfigPoint>& points,
                                          const ConfigPageOptions& options) {
  return write_page(path, render_page(configurations_page(points, options)));
}

}  // namespace ipusim::html
