#include "runtime/workloads/collective/collective_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "collectives/algorithms/step_count.hpp"
#include "collectives/schedule/schedule.hpp"
#include "sim/config.hpp"

namespace ipusim::rt {
namespace {

std::string count_text(const char* format, double value) {
  char buf[96];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

}  // namespace

CollectivePlayCounts collective_play_counts(const coll::CollectiveRequest& request) {
  const coll::StepCount c = coll::count_steps(request);
  return {static_cast<double>(c.steps), static_cast<double>(c.transfers)};
}

std::vector<std::pair<std::string, double>> functional_memory_parts(
    const coll::CollectiveRequest& r, const CollectivePlayCounts& counts) {
  // Buffers exist for replicas 0 .. the largest id in any group (Schedule::num_replicas).
  double replicas = 0, k = 1;
  for (const auto& g : r.groups) {
    k = std::max(k, static_cast<double>(g.size()));
    for (const std::uint32_t id : g) replicas = std::max(replicas, static_cast<double>(id) + 1);
  }
  const double n = static_cast<double>(r.elements_per_replica);
  // Output elements per replica (set_buffer_maps): ReduceScatter a cell, AllGather k x n.
  double out = n;
  if (r.op == coll::CollectiveOp::ReduceScatter) out = std::ceil(n / k);
  if (r.op == coll::CollectiveOp::AllGather) out = k * n;
  const double working = std::max(n, out);  // the working buffer holds input and output
  return {{count_text("functional schedule %.4g transfers", counts.transfers),
           counts.transfers * static_cast<double>(sizeof(coll::Transfer))},
          {count_text("functional buffers of %.4g replicas", replicas),
           8.0 * replicas * (n + working + 2 * out)}};
}

CollectiveRunEstimate collective_run_estimate(const coll::CollectiveRequest& request,
                                              const std::vector<coll::Algorithm>& algorithms,
                                              std::uint64_t repeat, bool functional) {
  CollectiveRunEstimate e;
  e.repeat = static_cast<double>(std::max<std::uint64_t>(1, repeat));
  coll::CollectiveRequest r = request;
  bool first = true;
  for (const coll::Algorithm a : algorithms) {
    r.algorithm = a;
    const CollectivePlayCounts c = collective_play_counts(r);
    if (algorithms.size() > 1)
      e.trial_events += c.events();  // "best": each candidate once in a trial
    if (first || c.events() < e.played.events()) e.played = c;
    first = false;
  }
  if (functional) e.functional_parts = functional_memory_parts(request, e.played);
  return e;
}

void check_collective_run(const CollectiveRunEstimate& e, const ConfigNode& workload,
                          const std::string& data_key) {
  if (!e.functional_parts.empty()) {
    WorkEstimate mem;
    mem.memory_parts = e.functional_parts;
    mem.key = data_key;
    mem.advice = "use data none (timing only), or fewer elements or replicas";
    check_work_estimate(mem, workload);
  }
  WorkEstimate ev;
  ev.events = e.events();
  ev.events_what =
      count_text("%.4g transfers", e.played.transfers) +
      count_text(" + %.4g supersteps", e.played.steps) +
      count_text(" per play x repeat %.0f", e.repeat) +
      (e.trial_events > 0 ? count_text(" + %.4g in the trials of algorithm best", e.trial_events)
                          : "");
  ev.key = "repeat";
  ev.advice = "fewer repeats, smaller groups or fewer IPUs per replica";
  check_work_estimate(ev, workload);
}

void check_sharded_tensor_run(const std::vector<coll::CollectiveRequest>& requests,
                              std::uint64_t tiles, std::uint64_t shard_factor,
                              const ConfigNode& workload) {
  WorkEstimate e;
  double transfers = 0, steps = 0;
  for (const coll::CollectiveRequest& r : requests) {
    const CollectivePlayCounts c = collective_play_counts(r);
    transfers += c.transfers;
    steps += c.steps;
  }
  e.events = transfers + steps;
  e.events_what = count_text("%.4g transfers", transfers) +
                  count_text(" + %.4g supersteps of the step's collectives", steps);
  if (shard_factor > 1) {
    // CollectiveBalancedReorder keeps one element count per tile and replica shard.
    e.memory_parts.push_back(
        {count_text("CBR table of %.4g tiles", static_cast<double>(tiles)) +
             count_text(" x %.4g shards", static_cast<double>(shard_factor)),
         8.0 * static_cast<double>(tiles) * static_cast<double>(shard_factor)});
  }
  e.key = "sharding_domain";
  e.advice = "a smaller sharding domain or fewer replicas";
  check_work_estimate(e, workload);
}

}  // namespace ipusim::rt
