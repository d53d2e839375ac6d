#include "tools/html/run_page.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>

#include "tools/html/topology_chart.hpp"

namespace ipusim::html {

namespace {

double num(const Json& j, const char* key, double fallback = NAN) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

/// Horizontal bars of (name, value) in `unit`.
Chart bar_chart(const std::string& id, const Json& values, const std::string& value_title) {
  Json spec = {
      {"data", {{"values", values}}},
      {"width", 600},
      {"mark", "bar"},
      {"encoding",
       {{"y", {{"field", "name"}, {"type", "nominal"}, {"sort", nullptr}, {"title", nullptr}}},
        {"x", {{"field", "value"}, {"type", "quantitative"}, {"title", value_title}}},
        {"tooltip",
         Json::array({{{"field", "name"}}, {{"field", "value"}, {"format", ",.4~f"}}})}}}};
  return {id, spec, false};
}

/// Above this many bars a timeline is drawn per slice (aggregate_timeline): a browser draws
/// every mark, and the largest presets have tens of thousands, all below a pixel wide.
constexpr std::size_t kMaxTimelineBars = 2000;
/// Slices of an aggregated timeline: two per pixel of the 1000-pixel-wide chart.
constexpr std::size_t kTimelineSlices = 2000;

/// `v` rounded to 6 significant digits: the pages' JSON stays short (a chart resolves far less).
double compact(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, 5 - std::floor(std::log10(std::fabs(v))));
  return std::round(v * scale) / scale;
}

Chart timeline_chart(const std::string& id, const std::vector<TimelineBar>& all_bars,
                     const Json& bands) {
  const std::vector<TimelineBar> bars =
      aggregate_timeline(all_bars, kMaxTimelineBars, kTimelineSlices);
  Json values = Json::array();
  std::vector<std::string> rows;
  for (const TimelineBar& b : bars) {
    values.push_back({{"row", b.row},
                      {"s", compact(b.start_ms)},
                      {"e", compact(b.end_ms)},
                      {"kind", b.kind},
                      {"label", b.label},
                      {"ms", compact(b.end_ms - b.start_ms)}});
    if (std::find(rows.begin(), rows.end(), b.row) == rows.end()) rows.push_back(b.row);
  }
  const Json x = {{"field", "s"}, {"type", "quantitative"}, {"title", "time (ms)"}};
  Json layers = Json::array();
  if (!bands.empty()) {
    // Alternate shading marks the phases (or cycles) behind the bars.
    layers.push_back({{"data", {{"values", bands}}},
                      {"mark", {{"type", "rect"}, {"opacity", 0.08}}},
                      {"encoding",
                       {{"x", x},
                        {"x2", {{"field", "e"}}},
                        {"color",
                         {{"field", "odd"},
                          {"type", "nominal"},
                          {"legend", nullptr},
                          {"scale", {{"range", {"#000000", "#7f7f7f"}}}}}},
                        {"tooltip", {{"field", "band"}}}}}});
  }
  layers.push_back(
      {{"data", {{"values", values}}},
       {"mark", {{"type", "bar"}, {"height", {{"band", 0.8}}}}},
       {"encoding",
        {{"x", x},
         {"x2", {{"field", "e"}}},
         {"y", {{"field", "row"}, {"type", "nominal"}, {"sort", rows}, {"title", nullptr}}},
         {"color", {{"field", "kind"}, {"type", "nominal"}}},
         {"tooltip",
          Json::array({{{"field", "label"}},
                       {{"field", "kind"}},
                       {{"field", "row"}},
                       {{"field", "s"}, {"title", "start (ms)"}, {"format", ",.4f"}},
                       {{"field", "ms"}, {"title", "duration (ms)"}, {"format", ",.4f"}}})}}}});
  Json spec = {{"width", 1000},
               {"height", std::max<std::size_t>(60, rows.size() * 26)},
               {"layer", layers},
               {"resolve", {{"scale", {{"color", "independent"}}}}}};
  return {id, spec, false};
}

void add_summary(Page& page, const Json& report) {
  const Json& w = report.value("workload", Json::object());
  page.summary.push_back({"system", report.value("system", "")});
  page.summary.push_back({"workload", report.value("workload_kind", "")});
  const double t = num(report.value("simulated", Json::object()), "time_ns");
  if (!std::isnan(t)) page.summary.push_back({"simulated time", time_text(t)});
  // Labelled as the other rows are, in words and units, not by their report keys.
  for (const auto& [key, label] :
       {std::pair{"samples_per_s", "samples/s"}, std::pair{"tokens_per_s", "tokens/s"},
        std::pair{"sequences_per_s", "sequences/s"}}) {
    if (!std::isnan(num(w, key))) page.summary.push_back({label, number_text(num(w, key), 6)});
  }
  for (const char* key : {"op", "algorithm", "execution"}) {
    if (w.contains(key) && w[key].is_string())
      page.summary.push_back({key, w[key].get<std::string>()});
  }
  if (!std::isnan(num(w, "bus_bandwidth_GBps")))
    page.summary.push_back(
        {"bus bandwidth", number_text(num(w, "bus_bandwidth_GBps"), 4) + " GB/s"});
  const Json& m = report.value("memory", Json::object());
  if (!std::isnan(num(m, "max_tile_bytes")))
    page.summary.push_back({"max SRAM per tile", bytes_text(num(m, "max_tile_bytes")) + " of " +
                                                     bytes_text(num(m, "sram_per_tile_bytes", 0))});
  if (!std::isnan(num(m, "fits")))
    page.summary.push_back({"fits", num(m, "fits") != 0 ? "yes" : "no"});
}

Section breakdown_section(const Json& report) {
  Section s{"Time breakdown",
            "Where the simulated time went (report: breakdown_ns; a collective also "
            "by tier and by phase).",
            {},
            {}};
  auto bars = [](const Json& object) {
    Json values = Json::array();
    for (const auto& [k, v] : object.items())
      if (v.is_number()) values.push_back({{"name", k}, {"value", v.get<double>() / 1e6}});
    return values;
  };
  if (report.contains("breakdown_ns"))
    s.charts.push_back(bar_chart("breakdown", bars(report["breakdown_ns"]), "ms"));
  const Json& w = report.value("workload", Json::object());
  if (w.contains("time_by_tier_ns"))
    s.charts.push_back(bar_chart("time_by_tier", bars(w["time_by_tier_ns"]), "ms"));
  if (w.contains("time_by_phase_ns"))
    s.charts.push_back(bar_chart("time_by_phase", bars(w["time_by_phase_ns"]), "ms"));
  return s;
}

Section timeline_section(const Json& w) {
  Section s{"Timeline per IPU", "", {}, {}};
  if (w.contains("phases") && w["phases"].is_array()) {
    Json bands = Json::array();
    for (const Json& p : w["phases"]) {
      const double start = num(p, "start_ns", 0) / 1e6;
      bands.push_back({{"s", start},
                       {"e", start + num(p, "time_ns", 0) / 1e6},
                       {"odd", std::abs(p.value("phase", 0)) % 2},
                       {"band", "phase " + std::to_string(p.value("phase", 0))}});
    }
    s.note =
        "Execution phases (shaded alternately) of one replica; one row per virtual graph (IPU of "
        "the "
        "replica) and lane; every replica runs the same program. Gaps are idle time.";
    s.charts.push_back(timeline_chart("timeline", phase_timeline(w["phases"]), bands));
  } else if (w.contains("pipeline") && w["pipeline"].is_object()) {
    s.note =
        "Each pipeline cycle (shaded alternately) per IPU of a replica: busy with its stages' "
        "forward "
        "and backward passes, idle for the rest of the cycle (the ramp-up and ramp-down bubbles).";
    Json bands = Json::array();
    double t = 0;
    int c = 0;
    for (const Json& d : w["pipeline"].value("cycle_time_ns", Json::array())) {
      bands.push_back({{"s", t / 1e6},
                       {"e", (t + d.get<double>()) / 1e6},
                       {"odd", c % 2},
                       {"band", "cycle " + std::to_string(c)}});
      t += d.get<double>();
      ++c;
    }
    s.charts.push_back(timeline_chart("timeline", pipeline_timeline(w["pipeline"]), bands));
  } else {
    s.note = "This workload has no per-IPU timeline in its report (see the time breakdown).";
  }
  return s;
}

Section memory_section(const Json& report) {
  Section s{"Memory", "", {}, {}};
  // Tiles per SRAM bin, summed over every IPU that collected a histogram.
  std::vector<double> counts;
  double bin_bytes = 0;
  std::function<void(const Json&)> walk = [&](const Json& node) {
    for (const auto& [key, value] : node.items()) {
      if (!value.is_object()) continue;
      if (key == "sram_bytes_histogram") {
        bin_bytes = num(value, "bin_bytes", 0);
        const Json& c = value["counts"];
        if (counts.size() < c.size()) counts.resize(c.size(), 0);
        for (std::size_t i = 0; i < c.size(); ++i) counts[i] += c[i].get<double>();
      } else {
        walk(value);
      }
    }
  };
  if (report.contains("stats")) walk(report["stats"]);
  if (!counts.empty()) {
    Json values = Json::array();
    for (std::size_t i = 0; i < counts.size(); ++i) {
      const bool over = i + 1 == counts.size();
      values.push_back({{"from_KiB", i * bin_bytes / 1024},
                        {"to_KiB", (i + 1) * bin_bytes / 1024},
                        {"tiles", counts[i]},
                        {"fits", over ? "above the SRAM" : "fits"}});
    }
    Json spec = {
        {"data", {{"values", values}}},
        {"width", 700},
        {"mark", "bar"},
        {"encoding",
         {{"x",
           {{"field", "from_KiB"},
            {"type", "quantitative"},
            {"bin", {{"binned", true}}},
            {"title", "SRAM used per tile (KiB; last bar: above the tile's SRAM)"}}},
          {"x2", {{"field", "to_KiB"}}},
          {"y", {{"field", "tiles"}, {"type", "quantitative"}, {"title", "tiles (all IPUs)"}}},
          {"color",
           {{"field", "fits"},
            {"type", "nominal"},
            {"scale",
             {{"domain", {"fits", "above the SRAM"}}, {"range", {"#4c78a8", "#e45756"}}}}}},
          {"tooltip",
           Json::array({{{"field", "from_KiB"}}, {{"field", "to_KiB"}}, {{"field", "tiles"}}})}}}};
    s.charts.push_back({"tile_memory", spec, false});
    s.note =
        "Peak SRAM per tile over the run, the tiles of every IPU that holds data, in bins of 1/32 "
        "of a tile's SRAM.";
  } else {
    s.note =
        "No per-tile SRAM histogram in this report (aggregated fidelity, or a workload that places "
        "no "
        "SRAM).";
  }
  // Streaming memory per machine: the gateway's peak use.
  Json machines = Json::array();
  std::function<void(const Json&, const std::string&)> gateways = [&](const Json& node,
                                                                      const std::string& path) {
    for (const auto& [key, value] : node.items()) {
      if (!value.is_object()) continue;
      if (key == "streaming_memory" && value.contains("peak_bytes")) {
        machines.push_back({{"name", path},
                            {"value", num(value, "peak_bytes", 0) / 1073741824.0},
                            {"capacity_GiB", num(value, "capacity_bytes", 0) / 1073741824.0}});
      } else {
        gateways(value, key == "gateway" ? path : (path.empty() ? key : path + "." + key));
      }
    }
  };
  if (report.contains("stats")) gateways(report["stats"], "");
  if (!machines.empty())
    s.charts.push_back(bar_chart("streaming_memory", machines, "streaming memory peak (GiB)"));
  const Json& w = report.value("workload", Json::object());
  const Json& wm = w.value("memory", Json::object());
  if (wm.contains("per_ipu_peak_bytes") && wm["per_ipu_peak_bytes"].is_array()) {
    Json values = Json::array();
    int i = 0;
    for (const Json& b : wm["per_ipu_peak_bytes"])
      values.push_back({{"name", "IPU " + std::to_string(i++) + " of a replica"},
                        {"value", b.get<double>() / 1048576.0}});
    s.charts.push_back(bar_chart("ipu_memory", values, "peak SRAM per IPU (MiB)"));
  }
  return s;
}

/// The group size of a collective op: its group_size, else the groupSize of its
/// ReplicaGrouping text ("ReplicaGrouping(numReplicas=4, stride=1, groupSize=4)"); NaN if none.
double group_size_of(const Json& op) {
  const double n = num(op, "group_size");
  if (!std::isnan(n)) return n;
  const std::string group = op.value("group", "");
  const std::size_t at = group.find("groupSize=");
  return at == std::string::npos ? NAN : std::atof(group.c_str() + at + 10);
}

Section collectives_section(const Json& report) {
  Section s{"Collectives", "", {}, {}};
  const Json& w = report.value("workload", Json::object());
  s.table.headers = {"collective",
                     "op",
                     "group size",
                     "count",
                     "bytes",
                     "time each",
                     "algorithm bandwidth (GB/s)",
                     "bus bandwidth (GB/s)"};
  Json values = Json::array();
  // The table has one line per distinct (op, group size, bytes, time); the chart every op.
  std::vector<std::pair<std::vector<std::string>, int>> lines;
  std::map<std::string, std::size_t> point_index;
  auto add = [&](const Json& op) {
    if (op.value("kind", "") != "collective") return;
    const double n = group_size_of(op);
    const double bytes = num(op, "bytes", 0), ns = num(op, "duration_ns", 0);
    const std::string name = op.value("op", "");
    // nccl-tests' size, as `ipusim collective` reports it: an all_gather's output per replica
    // (group size x the input `bytes`), every other op's input.
    const double size = name == "all_gather" && !std::isnan(n) ? bytes * n : bytes;
    const double algbw = ns > 0 ? size / ns : 0;
    const double busbw = std::isnan(n) ? NAN : algbw * bus_bandwidth_factor(name, n);
    // Repeats of one collective (same label, size and bandwidth) are one point with a count.
    const Json point = {{"label", op.value("label", "")},
                        {"op", name},
                        {"MiB", compact(bytes / 1048576.0)},
                        {"busbw", compact(std::isnan(busbw) ? algbw : busbw)}};
    const std::string key = point.dump();
    if (const auto seen = point_index.find(key); seen != point_index.end()) {
      values[seen->second]["count"] = values[seen->second]["count"].get<int>() + 1;
    } else {
      point_index[key] = values.size();
      values.push_back(point);
      values.back()["count"] = 1;
    }
    std::vector<std::string> line = {op.value("label", ""),
                                     name,
                                     std::isnan(n) ? "" : number_text(n),
                                     "",
                                     bytes_text(bytes),
                                     time_text(ns),
                                     number_text(algbw),
                                     number_text(busbw)};
    // Same op, group, size and time: one line, named after the first such collective.
    for (auto& [l, count] : lines) {
      if (std::equal(l.begin() + 1, l.end(), line.begin() + 1)) {
        ++count;
        return;
      }
    }
    lines.push_back({line, 1});
  };
  for (const Json& p : w.value("phases", Json::array()))
    for (const Json& op : p.value("ops", Json::array())) add(op);
  for (const Json& op : w.value("after_loop", Json::object()).value("ops", Json::array())) add(op);
  for (auto& [line, count] : lines) {
    line[3] = std::to_string(count);
    s.table.rows.push_back(line);
  }
  if (w.contains("bus_bandwidth_GBps")) {
    s.note =
        "One collective (nccl-tests' conventions: algbw = size / time, busbw = algbw x 2(n-1)/n "
        "for "
        "allreduce, (n-1)/n for the other reducing and gathering ops).";
    s.table.rows.push_back({w.value("grouping", ""), w.value("op", ""),
                            number_text(num(w, "group_size")), "1",
                            bytes_text(num(w, "size_bytes", 0)), time_text(num(w, "time_ns", 0)),
                            number_text(num(w, "algorithm_bandwidth_GBps")),
                            number_text(num(w, "bus_bandwidth_GBps"))});
    if (w.contains("best") && w["best"].contains("candidates")) {
      Json bars = Json::array();
      for (const Json& c : w["best"]["candidates"])
        if (c.contains("time_ns") && c["time_ns"].is_number())
          bars.push_back(
              {{"name", c.value("algorithm", "")}, {"value", num(c, "time_ns", 0) / 1e6}});
      s.charts.push_back(bar_chart("algorithms", bars, "time of each algorithm (ms)"));
    }
  } else if (!values.empty()) {
    s.note =
        "Every collective of the step with its bus bandwidth (nccl-tests' conventions over its "
        "replica "
        "group: algbw = size / time, the size being the output per replica for all_gather and "
        "the input per replica, the bytes column, for the others; busbw = algbw x 2(n-1)/n for "
        "allreduce, (n-1)/n for reduce_scatter and all_gather). The table lists each distinct "
        "collective once with its count.";
    Json spec = {
        {"data", {{"values", values}}},
        {"width", 700},
        {"mark", {{"type", "point"}, {"filled", true}}},
        {"encoding",
         {{"x",
           {{"field", "MiB"},
            {"type", "quantitative"},
            {"scale", {{"type", "log"}}},
            {"title", "bytes per replica (MiB)"}}},
          {"y", {{"field", "busbw"}, {"type", "quantitative"}, {"title", "bus bandwidth (GB/s)"}}},
          {"color", {{"field", "op"}, {"type", "nominal"}}},
          {"tooltip", Json::array({{{"field", "label"}},
                                   {{"field", "MiB"}, {"format", ".3f"}},
                                   {{"field", "busbw"}, {"format", ".2f"}},
                                   {{"field", "count"}, {"title", "times in the run"}}})}}}};
    s.charts.push_back({"collectives", spec, false});
    if (s.table.rows.size() > 100) s.table.rows.resize(100);  // the chart has them all
  } else {
    s.note = "No collective in this run.";
    s.table = Table{};
  }
  return s;
}

}  // namespace

double bus_bandwidth_factor(const std::string& op, double n) {
  if (n <= 0) return 1;
  if (op == "allreduce") return 2 * (n - 1) / n;
  if (op == "reduce_scatter" || op == "all_gather" || op == "all_to_all") return (n - 1) / n;
  return 1;
}

std::vector<TimelineBar> phase_timeline(const Json& phases) {
  std::vector<TimelineBar> bars;
  for (const Json& p : phases) {
    for (const Json& op : p.value("ops", Json::array())) {
      TimelineBar b;
      b.row = "IPU " + std::to_string(op.value("vgraph", 0)) + " · " + op.value("lane", "");
      b.start_ms = num(op, "start_ns", 0) / 1e6;
      b.end_ms = b.start_ms + num(op, "duration_ns", 0) / 1e6;
      b.kind = op.value("kind", "");
      b.label = op.value("label", "");
      bars.push_back(b);
    }
  }
  return bars;
}

std::vector<TimelineBar> aggregate_timeline(const std::vector<TimelineBar>& bars,
                                            std::size_t max_bars, std::size_t bins) {
  if (bars.size() <= max_bars || bins == 0) return bars;
  double t0 = bars.front().start_ms, t1 = bars.front().end_ms;
  for (const TimelineBar& b : bars) {
    t0 = std::min(t0, b.start_ms);
    t1 = std::max(t1, b.end_ms);
  }
  const double width = (t1 - t0) / static_cast<double>(bins);
  if (!(width > 0)) return bars;
  // Per row (first-seen order) and slice: time and op count per kind (first-seen order).
  struct Slice {
    std::vector<std::string> kinds;
    std::vector<double> ms;
    std::vector<std::size_t> ops;
  };
  std::vector<std::string> rows;
  std::vector<std::vector<Slice>> slices;
  for (const TimelineBar& b : bars) {
    auto row = std::find(rows.begin(), rows.end(), b.row);
    if (row == rows.end()) {
      rows.push_back(b.row);
      slices.emplace_back(bins);
      row = rows.end() - 1;
    }
    std::vector<Slice>& line = slices[static_cast<std::size_t>(row - rows.begin())];
    const std::size_t first =
        std::min(bins - 1, static_cast<std::size_t>(std::max(0.0, (b.start_ms - t0) / width)));
    for (std::size_t i = first; i < bins; ++i) {
      const double lo = t0 + static_cast<double>(i) * width;
      if (lo >= b.end_ms && i > first) break;
      const double overlap = std::min(b.end_ms, lo + width) - std::max(b.start_ms, lo);
      Slice& sl = line[i];
      auto kind = std::find(sl.kinds.begin(), sl.kinds.end(), b.kind);
      const std::size_t k = static_cast<std::size_t>(kind - sl.kinds.begin());
      if (kind == sl.kinds.end()) {
        sl.kinds.push_back(b.kind);
        sl.ms.push_back(0);
        sl.ops.push_back(0);
      }
      sl.ms[k] += std::max(0.0, overlap);
      if (i == first) ++sl.ops[k];
    }
  }
  std::vector<TimelineBar> out;
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t i = 0; i < bins; ++i) {
      const Slice& sl = slices[r][i];
      double t = t0 + static_cast<double>(i) * width;
      for (std::size_t k = 0; k < sl.kinds.size(); ++k) {
        if (sl.ms[k] <= 0) continue;
        out.push_back({rows[r], t, t + sl.ms[k], sl.kinds[k],
                       std::to_string(sl.ops[k]) + (sl.ops[k] == 1 ? " op" : " ops") +
                           " starting in this slice (aggregated: " + std::to_string(bars.size()) +
                           " ops in all)"});
        t += sl.ms[k];
      }
    }
  return out;
}

std::vector<TimelineBar> pipeline_timeline(const Json& pipeline) {
  std::vector<TimelineBar> bars;
  const Json& cycles = pipeline.value("cycle_time_ns", Json::array());
  const long P = pipeline.value("pipeline_stages", 1L);
  const long C = static_cast<long>(cycles.size());
  const long M = pipeline.value("cycles", C) - (P - 1);
  std::vector<int> vgraphs;
  for (const Json& st : pipeline.value("stages", Json::array())) {
    const int vg = st.value("vgraph", 0);
    if (std::find(vgraphs.begin(), vgraphs.end(), vg) == vgraphs.end()) vgraphs.push_back(vg);
  }
  std::sort(vgraphs.begin(), vgraphs.end());
  double t = 0;
  for (long c = 0; c < C; ++c) {
    const double cycle = cycles[c].get<double>();
    for (int vg : vgraphs) {
      double busy = 0;
      for (const Json& st : pipeline["stages"]) {
        if (st.value("vgraph", 0) != vg) continue;
        const long s = st.value("stage", 0L);
        if (c - s >= 0 && c - s < M) busy += num(st, "forward_ns_per_micro_batch", 0);
        if (c - (P - 1 - s) >= 0 && c - (P - 1 - s) < M)
          busy += num(st, "backward_ns_per_micro_batch", 0);
      }
      busy = std::min(busy, cycle);
      const std::string row = "IPU " + std::to_string(vg);
      const std::string when = "cycle " + std::to_string(c);
      if (busy > 0) bars.push_back({row, t / 1e6, (t + busy) / 1e6, "busy", when});
      if (busy < cycle)
        bars.push_back({row, (t + busy) / 1e6, (t + cycle) / 1e6, "idle (bubble)", when});
    }
    t += cycle;
  }
  const double optimizer = num(pipeline, "optimizer_time_ns", 0);
  for (int vg : vgraphs)
    if (optimizer > 0)
      bars.push_back({"IPU " + std::to_string(vg), t / 1e6, (t + optimizer) / 1e6, "after the loop",
                      "optimizer and collectives"});
  return bars;
}

void strip_sram_histograms(Json& report) {
  if (!report.is_object()) return;
  report.erase("sram_bytes_histogram");
  for (auto& [key, value] : report.items()) {
    (void)key;
    if (value.is_object()) strip_sram_histograms(value);
  }
}

Page run_page(const Json& report) {
  Page page;
  // A collective's name is its system file: the page names the stem, the kind and the system.
  const std::string name = report.value("name", std::string("run"));
  page.title = "ipusim: " + name.substr(name.find_last_of('/') + 1) + " (" +
               report.value("workload_kind", std::string("run")) + " on " +
               report.value("system", std::string("?")) + ")";
  page.subtitle = "Simulated with ipusim " +
                  report.value("run_info", Json::object()).value("ipusim_version", "") +
                  ". Hover a mark for its values.";
  add_summary(page, report);
  page.sections.push_back(breakdown_section(report));
  page.sections.push_back(timeline_section(report.value("workload", Json::object())));
  page.sections.push_back(memory_section(report));
  page.sections.push_back(collectives_section(report));
  Section links{"Link utilisation", "", {}, {}};
  const Json& system = report.value("stats", Json::object()).value("system", Json::object());
  links.charts = topology_charts(system);
  links.note = links.charts.empty() ? "No link was used."
                                    : "IPU-Link directions on the system's ladder (each ILD a "
                                      "column pair, IPUs 2k and 2k+1 on rung "
                                      "k, the two directions of a link side by side), coloured by "
                                      "utilisation over the run; then the "
                                      "busiest links of every kind.";
  page.sections.push_back(links);
  return page;
}

}  // namespace ipusim::html
