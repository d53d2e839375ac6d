// The collective size scan page (scan_page.hpp): one point per size, log-log axes as
// nccl-tests' plots are read.
#include "tools/html/scan_page.hpp"

#include <cmath>
#include <set>

namespace ipusim::html {

namespace {

double number_or_nan(const Json& r, const char* key) {
  return r.contains(key) && r[key].is_number() ? r[key].get<double>() : NAN;
}

/// A line with points over `values`, x = size (log), y = `field` (log), one colour per series.
Json size_chart(const Json& values, const std::string& y_title, bool by_series) {
  const Json log = {{"type", "log"}};
  Json encoding = {
      {"x",
       {{"field", "size_bytes"}, {"type", "quantitative"}, {"scale", log}, {"title", "size (B)"}}},
      {"y", {{"field", "value"}, {"type", "quantitative"}, {"scale", log}, {"title", y_title}}},
      {"tooltip", Json::array({{{"field", "size"}, {"title", "size"}},
                               {{"field", "series"}, {"title", "series"}},
                               {{"field", "value"}, {"title", y_title}, {"format", ".4~g"}},
                               {{"field", "algorithm"}}})}};
  if (by_series) encoding["color"] = {{"field", "series"}, {"type", "nominal"}, {"title", nullptr}};
  return {{"data", {{"values", values}}},
          {"width", 640},
          {"height", 320},
          {"mark", {{"type", "line"}, {"point", true}}},
          {"encoding", encoding}};
}

}  // namespace

Page collective_scan_page(const Json& results) {
  Page page;
  std::set<std::string> ops, algorithms, dtypes;
  Json bandwidth = Json::array(), times = Json::array();
  Table table;
  table.headers = {"size (B)",  "size",      "op",           "dtype",
                   "algorithm", "time (us)", "algbw (GB/s)", "busbw (GB/s)"};
  double peak_busbw = 0, peak_size = 0;
  for (const Json& r : results) {
    const double size = number_or_nan(r, "size_bytes"), time_ns = number_or_nan(r, "time_ns");
    const double algbw = number_or_nan(r, "algorithm_bandwidth_GBps");
    const double busbw = number_or_nan(r, "bus_bandwidth_GBps");
    const std::string algorithm = r.value("algorithm", ""), op = r.value("op", "");
    ops.insert(op);
    algorithms.insert(algorithm);
    dtypes.insert(r.value("dtype", ""));
    auto point = [&](const char* series, double value) {
      return Json{{"size_bytes", size},
                  {"size", bytes_text(size)},
                  {"series", series},
                  {"value", value},
                  {"algorithm", algorithm}};
    };
    if (std::isfinite(size) && size > 0) {
      // Log axes cannot show zero: a size too small to move data is left out of the chart.
      if (std::isfinite(busbw) && busbw > 0) bandwidth.push_back(point("bus bandwidth", busbw));
      if (std::isfinite(algbw) && algbw > 0)
        bandwidth.push_back(point("algorithm bandwidth", algbw));
      if (std::isfinite(time_ns) && time_ns > 0) times.push_back(point("time", time_ns / 1e3));
    }
    if (std::isfinite(busbw) && busbw > peak_busbw) {
      peak_busbw = busbw;
      peak_size = size;
    }
    table.rows.push_back({std::isfinite(size) ? number_text(size, 15) : "",
                          std::isfinite(size) ? bytes_text(size) : "", op, r.value("dtype", ""),
                          algorithm, std::isfinite(time_ns) ? number_text(time_ns / 1e3) : "",
                          std::isfinite(algbw) ? number_text(algbw) : "",
                          std::isfinite(busbw) ? number_text(busbw) : ""});
  }
  auto joined = [](const std::set<std::string>& s) {
    std::string out;
    for (const std::string& x : s) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  page.title = "ipusim: " + joined(ops) + " size scan";
  page.subtitle =
      "One simulated collective per message size (nccl-tests' size, algorithm and bus "
      "bandwidth conventions).";
  page.summary = {{"sizes", std::to_string(results.size())},
                  {"op", joined(ops)},
                  {"dtype", joined(dtypes)},
                  {"algorithm", joined(algorithms)}};
  if (peak_busbw > 0)
    page.summary.push_back(
        {"peak bus bandwidth", number_text(peak_busbw) + " GB/s at " + bytes_text(peak_size)});
  Section bw{"Bandwidth against size",
             "Bus bandwidth (algorithm bandwidth times nccl-tests' factor for the op, comparable "
             "with the links' rate) and algorithm bandwidth (size / time).",
             {{"bus_bandwidth", size_chart(bandwidth, "GB/s", true), false}},
             {}};
  Section time{"Time against size",
               "Latency-bound sizes keep a flat time; bandwidth-bound sizes grow linearly.",
               {{"time_by_size", size_chart(times, "time (us)", false), false}},
               table};
  page.sections = {bw, time};
  return page;
}

}  // namespace ipusim::html
