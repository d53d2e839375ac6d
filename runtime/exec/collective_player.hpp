#pragma once
// Plays a collective schedule on the SystemC models: every superstep is a BSP sync, an
// exchange (all transfers at once on the Network, routed over IPU-Links or GW-Links), then
// the local reduction on the tiles. Steps are generated and played one at a time, so a
// 4096-IPU ring never holds its whole schedule in memory.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "models/network/routing.hpp"
#include "runtime/exec/collective_plan.hpp"
#include "runtime/exec/plan_scaling.hpp"
#include "sim/json.hpp"

namespace ipusim {

class System;

/// Simulated time of one collective, split the way reports need it.
struct CollectiveTiming {
  double start_ns = 0;
  double end_ns = 0;
  double sync_ns = 0;
  double exchange_fixed_ns = 0;  ///< fabric latency / per-phase overhead of each exchange
  double ipu_link_ns = 0;        ///< exchange time of steps whose highest tier is IPU-Links
  double gw_link_ns = 0;         ///< exchange time of steps that cross GW-Links
  double on_chip_ns = 0;         ///< extra time when the per-tile exchange bound dominates
  double reduce_ns = 0;          ///< on-tile reduction compute
  /// The on-chip program around each cross-replica copy (collective_program.hpp): index ops,
  /// fragment slices / updates and their copies.
  double program_ns = 0;
  std::uint64_t steps = 0;
  std::uint64_t gw_syncs = 0;  ///< steps whose sync crossed the GW-Links (the rest: per GCD)
  std::uint64_t transfers = 0;
  std::uint64_t flows = 0;  ///< network flows started (transfers whose route is not empty)
  std::map<std::string, double> phase_ns;  ///< by schedule phase, in first-seen order names
  double total_ns() const { return end_ns - start_ns; }
  /// {"sync":..,"exchange_fixed":..,"ipu_link":..,"gw_link":..,"on_chip":..,"reduce":..,
  /// "program":..}
  Json tiers_json() const;
};

/// Records a collective's `steps` BSP syncs in the system's sync stats as they were paid:
/// `gw_syncs` of them across the GW-Links over all of `ipus` (sorted), the others by each graph
/// compile domain on its own (one sync per GCD, over that GCD's members of `ipus`).
void record_collective_syncs(System& system, const std::vector<std::uint32_t>& ipus,
                             std::uint64_t steps, std::uint64_t gw_syncs);

/// Extra on-chip exchange bound of a step: given the bytes one IPU sends in the step,
/// the cycles its busiest tile needs (0 = no bound beyond the links).
using TileBoundFn = std::function<std::uint64_t(std::uint64_t bytes_sent_per_ipu)>;

/// Plays collectives on a System. Must be used from an SC_THREAD.
class CollectivePlayer {
 public:
  explicit CollectivePlayer(System& system);
  /// Generates the schedule of `request` step by step and plays each step; returns the
  /// schedule's summary (without steps) through `summary` when non-null.
  CollectiveTiming play(const coll::CollectiveRequest& request, coll::Schedule* summary = nullptr,
                        const TileBoundFn& tile_bound = nullptr);
  /// Whether traces get a slice per superstep (on the collectives track, and per IPU and
  /// link for small systems or --trace-ipus). The executor turns it off: its ops already have
  /// one slice per IPU, and a training step's collectives have millions of supersteps.
  void set_trace_steps(bool on) { trace_steps_ = on; }
  /// Declares that no other process uses the network while this player plays (a collective
  /// or sharded-tensor workload; not the executor, whose lanes overlap). Then, with
  /// /sim/fast_paths and no trace, a step that repeats the previous step's traffic on an idle
  /// network replays its recorded outcome (StepMemo) instead of starting its transfers.
  void set_exclusive_network(bool on) { exclusive_network_ = on; }
  /// Exchange steps replayed from the step memo so far (for tests and benchmarks).
  std::uint64_t replayed_steps() const { return replayed_steps_; }
  /// Plays `request` as the collective `plan` records (collective_plan.hpp): while the network
  /// folds, the first play records each step's folded batch and later plays hand the network
  /// those batches instead of generating the schedule. The plan also keeps the members' sync
  /// costs, and the syncs are credited later (CollectivePlans::flush_syncs). Not with a step
  /// memo (set_exclusive_network) or a trace of the steps: then as play().
  CollectiveTiming play_planned(const coll::CollectiveRequest& request, CollectivePlan& plan);
  /// Steps played from a plan without generating the schedule (for tests and benchmarks).
  std::uint64_t planned_steps() const { return planned_steps_; }
  /// Steps recorded with a folding taken from an earlier play's step on the same routes
  /// (fold_memo_) instead of folding their flows (for tests and benchmarks).
  std::uint64_t reused_foldings() const { return reused_foldings_; }
  /// Steps recorded by folding their flows (fold_batch; for tests and benchmarks).
  std::uint64_t fresh_foldings() const { return fresh_foldings_; }
  /// Plans made by scaling a recorded plan of another size (plan_scaling.hpp) instead of
  /// recording them (for tests and benchmarks).
  std::uint64_t scaled_plans() const { return scaled_plans_; }

 private:
  /// play() and play_planned(): `plan` is null for play().
  CollectiveTiming play_impl(const coll::CollectiveRequest& request, coll::Schedule* summary,
                             const TileBoundFn& tile_bound, CollectivePlan* plan);
  const Route& route(std::uint32_t src, std::uint32_t dst);
  /// Trace events of one step: the collective's phase track, and per IPU and link tracks.
  void trace_step(const coll::Superstep& step, LinkTier tier, double t0, double tx0, double t1);
  /// Larger systems get only the per-phase track (a trace viewer cannot show thousands).
  static constexpr std::uint32_t kMaxTracedIpus = 256;
  System& system_;
  bool trace_steps_ = true;
  bool exclusive_network_ = false;
  std::uint64_t replayed_steps_ = 0;
  std::uint64_t planned_steps_ = 0;
  std::uint64_t reused_foldings_ = 0;
  std::uint64_t fresh_foldings_ = 0;
  std::uint64_t scaled_plans_ = 0;
  /// Complete plans this player recorded, by plan_shape_key: a plan of the same shape and
  /// another size is scaled from them.
  std::unordered_map<std::string, ShapedPlan> shaped_plans_;
  std::unordered_map<std::uint64_t, Route> routes_;
  FoldScratch fold_scratch_;  ///< fold_batch()'s scratch for recording plans
  /// A step folded while recording any plan: its routes (this player's, so compared by
  /// pointer), sizes (both as runs: a step has millions of flows), each class's first flow and
  /// the compact batch.
  struct FoldMemo {
    RunLengthVector<const Route*> routes;
    RunLengthVector<std::uint64_t> bytes;
    std::vector<std::uint32_t> first;
    std::shared_ptr<const CompactFoldedBatch> batch;
  };
  /// Foldings by a hash of their routes, across plays: another collective on the same routes
  /// (another weight's size on the same grouping) whose sizes relabel a recorded step's one
  /// to one folds the same way (sizes_relabel_one_to_one), so it takes that folding with its
  /// own sizes instead of folding every replica's flows again.
  std::unordered_map<std::uint64_t, std::vector<FoldMemo>> fold_memo_;
};

/// Collective topology facts of a system for `ipus_per_replica`.
coll::CollectiveTopology collective_topology(const System& system, std::uint32_t ipus_per_replica,
                                             coll::LinkConfig link_config);

}  // namespace ipusim
