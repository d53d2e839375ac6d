#pragma once
// Guards before work (issue 15) for the `collective` and `sharded_tensor` kinds: the size of
// a collective run from the schedule's closed forms (coll::count_steps, O(replicas): a ring
// over k replicas has 2(k-1) supersteps of k transfers), without generating the schedule.
// Kernel events are exactly what the collective player counts (one per transfer and one per
// superstep); memory is what the functional check materialises (the whole schedule and
// per-replica buffers of doubles). Checked with check_work_estimate (exit 2).
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "sim/resource_guard.hpp"

namespace ipusim {

class ConfigNode;

namespace rt {

/// Supersteps and transfers of one play of a collective.
struct CollectivePlayCounts {
  double steps = 0;      ///< supersteps (each: a sync)
  double transfers = 0;  ///< transfers over all supersteps

  /// Model events of one play, as the collective player counts them: transfers + supersteps.
  double events() const { return transfers + steps; }
};

/// Counts of one play of `request` (its algorithm; Auto resolved as build_schedule does).
/// Throws coll::RequestError on an inconsistent request.
CollectivePlayCounts collective_play_counts(const coll::CollectiveRequest& request);

/// Lower bound of the memory of the functional check of `request` (run_functional and its
/// reference): the materialised schedule (24 B per transfer of `counts`) and, per replica, the
/// input, the working buffer and two outputs (result and reference) of 8-byte doubles.
std::vector<std::pair<std::string, double>> functional_memory_parts(
    const coll::CollectiveRequest& request, const CollectivePlayCounts& counts);

/// What a `collective` run needs. `algorithms`: the algorithm played (one entry) or, for
/// algorithm "best", every candidate (each simulated once in a trial, then the fastest is
/// played `repeat` times: the fewest events bound that play from below).
struct CollectiveRunEstimate {
  double trial_events = 0;      ///< events of the best trials (0 without best)
  CollectivePlayCounts played;  ///< one play of the (cheapest) played algorithm
  double repeat = 1;
  std::vector<std::pair<std::string, double>> functional_parts;  ///< empty without data

  /// Kernel events of the whole run.
  double events() const { return trial_events + played.events() * repeat; }
};

/// The estimate of a `collective` run of `request` over `algorithms` (see
/// CollectiveRunEstimate), with the functional memory when `functional`.
CollectiveRunEstimate collective_run_estimate(const coll::CollectiveRequest& request,
                                              const std::vector<coll::Algorithm>& algorithms,
                                              std::uint64_t repeat, bool functional);

/// Refuses (ConfigError, exit 2) a `collective` run above /sim/max_memory_bytes (blamed on
/// `data_key`: "data" or "input") or /sim/max_events (blamed on "repeat"), with the estimate.
void check_collective_run(const CollectiveRunEstimate& estimate, const ConfigNode& workload,
                          const std::string& data_key);

/// Refuses (ConfigError, exit 2) a `sharded_tensor` run whose collectives (`requests`, played
/// once each) exceed /sim/max_events, or whose CBR per-tile table (`tiles` x `shard_factor`
/// 8-byte counts) exceeds /sim/max_memory_bytes; blamed on "sharding_domain".
void check_sharded_tensor_run(const std::vector<coll::CollectiveRequest>& requests,
                              std::uint64_t tiles, std::uint64_t shard_factor,
                              const ConfigNode& workload);

}  // namespace rt
}  // namespace ipusim
