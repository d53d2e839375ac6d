#pragma once
// The page of one run (`ipusim run|collective --html`): summary, time breakdown, a timeline
// per IPU, memory per tile and streaming memory per machine, collectives with bus bandwidth,
// link utilisation on the system's topology. Everything comes from report.json.
#include <vector>

#include "sim/json.hpp"
#include "tools/html/html_page.hpp"

namespace ipusim::html {

/// The whole page of a run from its report (with per_tile.sram_bytes_histogram in the IPU
/// stats when the run collected it; without, the histogram section says so).
Page run_page(const Json& report);

/// One bar of a timeline: a row (e.g. "IPU 1"), start and end in ms, a kind and a label.
struct TimelineBar {
  std::string row;
  double start_ms = 0, end_ms = 0;
  std::string kind;
  std::string label;
};

/// When `bars` are more than `max_bars`: per row, the time each kind takes in each of `bins`
/// equal slices of the timeline, drawn as one bar per kind and slice (kinds in first-seen
/// order from the slice's start), labelled with the number of ops it stands for; otherwise
/// `bars` unchanged. A slice is narrower than a pixel of the chart, so the page looks the
/// same with fewer marks: busy time per kind and slice is kept, the order inside it is not.
std::vector<TimelineBar> aggregate_timeline(const std::vector<TimelineBar>& bars,
                                            std::size_t max_bars, std::size_t bins);

/// A pipelined (or accumulation-loop) step per IPU and pipeline cycle, from
/// workload.pipeline: in cycle c forward stage s works on micro-batch c - s and its backward
/// (pipeline stage P-1-s) on c - (P-1-s) when that is in [0, micro-batches); each IPU is busy
/// for its active stages' per-micro-batch times and idle (the bubble) for the rest.
std::vector<TimelineBar> pipeline_timeline(const Json& pipeline);

/// A phased step's ops (workload.phases) as bars, one row per virtual graph and lane.
std::vector<TimelineBar> phase_timeline(const Json& phases);

/// nccl-tests' bus bandwidth factor of `op` over `n` replicas: 2(n-1)/n for allreduce,
/// (n-1)/n for reduce_scatter, all_gather and all_to_all, 1 otherwise.
double bus_bandwidth_factor(const std::string& op, double n);

/// Strips every per_tile.sram_bytes_histogram from `report` (what report.json keeps).
void strip_sram_histograms(Json& report);

}  // namespace ipusim::html
