#pragma once
// The executor: plays a lowered Program on the System for all replicas at once (SPMD).
// Each virtual graph has three lanes (compute tiles; IO tiles for loop transfers; IO tiles
// for phase-level transfers), each an SC_THREAD that runs its ops in program order once
// their dependencies are done, so IO really overlaps compute. Every op is issued on every
// replica's IPU simultaneously: remote transfers of all IPUs of a machine contend for its
// DDR and gateway links, collectives run through CollectivePlayer on the real groups.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tuple>
#include <vector>

#include "models/ipu/ipu.hpp"
#include "models/network/network.hpp"
#include "runtime/exec/collective_player.hpp"
#include "runtime/exec/phase_reach.hpp"
#include "runtime/ir/program.hpp"

namespace ipusim {
class System;
}

namespace ipusim::rt {

/// Executor knobs (`/workload/executor`).
struct ExecutorOptions {
  std::uint32_t num_io_tiles = 0;
  /// Replay an identical collective played before, when provably equivalent: it and the
  /// original each had the network to themselves (see Executor::network_alone()).
  bool collective_cache = true;
  bool first_machine_only =
      false;  ///< remote/host IO on the first machine's IPUs only (all machines are alike)
  /// per_tile fidelity: grain of the linear tile mapping of op outputs and IoTileCopies, bytes.
  std::uint64_t grain_bytes = 8;
};

/// Timing of one lowered op (the same on every replica).
struct OpTiming {
  double start_ns = -1, end_ns = -1;
  std::string category;   ///< breakdown category
  std::string tier;       ///< link tier of transfers and collectives
  double gw_link_ns = 0;  ///< part of a hierarchical collective spent on GW-Links
  bool cached = false;
};

/// A busy interval of one category on one lane, for the breakdown.
struct BusyInterval {
  double start_ns = 0, end_ns = 0;
  std::string category;
};

/// Plays the program during sc_start().
class Executor : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Executor);
  Executor(sc_core::sc_module_name name, System& system, const Program& program,
           std::uint32_t replicas, std::uint32_t ipus_per_replica, ExecutorOptions options);

  bool done() const { return done_; }
  const std::string& failure() const { return failure_; }
  /// After sc_start: what keeps the current phase from completing (watchdog.hpp), "" if done.
  std::string stall_report() const;
  double end_ns() const { return end_ns_; }
  /// Per phase of the program: per op.
  const std::vector<std::vector<OpTiming>>& timings() const { return timings_; }
  /// Per phase: start and end (after its closing sync).
  const std::vector<std::pair<double, double>>& phase_ns() const { return phase_ns_; }
  const std::vector<BusyInterval>& intervals() const { return intervals_; }
  std::uint64_t collectives_played() const { return played_; }
  std::uint64_t collectives_cached() const { return cached_; }

 private:
  void master();
  void lane(int vg, Lane lane);
  /// Trace events of one finished op (only when tracing is on).
  void trace_op(std::size_t p, const LOp& op, const OpTiming& t) const;
  /// Systems above this size trace replica 0 only unless --trace-ipus names IPUs: every op
  /// is one slice per replica, so a 256-replica GPT-3 step would be a 7.6 GB trace.
  static constexpr std::uint32_t kMaxTracedIpus = 64;
  void run_op(std::size_t phase, std::size_t index, CollectivePlayer& player);
  void run_transfers(std::vector<TransferRequest>& reqs);
  std::vector<std::uint32_t> replica_ipus(int vg, bool io_only) const;
  /// Cycles of a compute op on the compute tiles of virtual graph `vg`, through replica 0's
  /// IPU model (its stats record the steps; the other replicas get them at the end).
  std::uint64_t compute_op_cycles(int vg, const LOp& op, std::uint32_t compute_tiles);
  /// Holds the compute tiles of virtual graph `vg` (replica 0's IPU) for `duration_ns`.
  void hold_compute_tiles(int vg, double duration_ns);
  /// SPMD: credits replica 0's compute and exchange activity to every other replica's IPUs.
  void replicate_activity();

  System& system_;
  const Program& program_;
  std::uint32_t replicas_, ipr_;
  ExecutorOptions opt_;
  std::vector<std::vector<OpTiming>> timings_;
  std::vector<std::vector<char>> done_ops_;
  std::vector<std::pair<double, double>> phase_ns_;
  std::vector<BusyInterval> intervals_;
  /// A collective that ran alone on the inter-IPU links, and what it added to their stats.
  struct CachedCollective {
    CollectiveTiming timing;
    bool crosses = false;  ///< spans IPU-Link domains: all resources were recorded
    std::vector<std::pair<ResourceId, ResourceStats>> resources;  ///< deltas of the links it used
    /// The same for the representatives only (the network credits nobody else while it folds).
    std::vector<std::pair<ResourceId, ResourceStats>> rep_resources;
  };
  /// True if no other op of the current phase can touch the resources a collective on lane
  /// (vg, l) uses while it runs: every unfinished collective and IpuCopy of the phase is on
  /// that lane (which runs them one after another), and, when the collective `crosses` IPU-Link
  /// domains (its GW-Link steps go through the gateway links that remote and host transfers
  /// also use), every unfinished remote and host transfer too; and nothing drains on those
  /// resources now. A collective inside domains uses only IPU-Links, a set disjoint from the
  /// gateway links, DDR and host links of remote and host transfers, and max-min sharing
  /// couples only flows that share resources. Nothing else sends in a training run, and the
  /// phase cannot end before the op does.
  /// An unfinished op of the phase that must wait for op `index` (through its dependencies or
  /// its lane's order) cannot interfere either: such ops are allowed too.
  bool network_alone(std::size_t index, bool crosses);
  /// A collective op's request (by key: it depends on nothing else) and whether its groups
  /// span IPU-Link domains.
  struct CollectiveOp {
    coll::CollectiveRequest request;
    bool crosses = false;
  };
  /// Plays `cop` (recording its network use when it runs alone) or replays a cached play.
  CollectiveTiming run_collective(const CollectiveOp& cop, const std::string& key,
                                  std::size_t index, CollectivePlayer& player, bool& cached);
  /// A remote exchange of `load` and `store` bytes on every replica's IPU of virtual graph `vg`.
  void run_remote(int vg, std::uint64_t load, std::uint64_t store);
  std::map<std::string, CollectiveOp> collective_ops_;
  /// While the network folds: the plans of the collectives played (collective_plan.hpp).
  std::shared_ptr<CollectivePlans> plans_;
  /// While the network folds: each remote exchange's batch folded (by virtual graph, load and
  /// store bytes), with its classes' routes; no batch when it did not fold.
  struct RemoteBatch {
    std::vector<Route> routes;  ///< every replica's transfers (route_ptrs point into it)
    std::vector<const Route*> route_ptrs;
    std::vector<std::uint64_t> bytes;
    std::shared_ptr<const FoldRecord> record;  ///< FlowEngine::fold_record() of the batch
  };
  std::map<std::tuple<int, std::uint64_t, std::uint64_t>, RemoteBatch> remote_batches_;
  std::map<std::string, CachedCollective> cache_;
  /// Effect on the IPU model of each compute op's parts, by parts list: the same parts recur
  /// every micro-batch and layer, and every IPU of the system has the same chip and fidelity
  /// (compute_tiles and the grain size are fixed for the run).
  std::map<const void*, Ipu::ComputeEffect> compute_effects_;
  /// Unfinished ops of the current phase, in all and per lane: collectives and IpuCopies
  /// (link_), remote and host transfers (io_).
  std::size_t link_pending_ = 0, io_pending_ = 0;
  std::vector<std::size_t> lane_link_pending_, lane_io_pending_;
  /// Current phase: ops that wait for each op (its dependents and the next op of its lane),
  /// and scratch marks of the ops that wait for a given op, transitively.
  std::vector<std::vector<std::size_t>> waiters_;
  /// Per op of phase `reach_phase_`: the collectives and IpuCopies (first) and the remote and
  /// host transfers (second) that cannot start before it ends (phase_reach.hpp).
  PhaseReach reach_;
  std::size_t reach_phase_ = static_cast<std::size_t>(-1);
  /// Above this the per-phase counts are not kept (one bit per such op per op): 16 MiB.
  static constexpr std::size_t kMaxReachBytes = std::size_t{16} << 20;
  std::vector<std::unique_ptr<CollectivePlayer>> players_;
  sc_core::sc_event go_, op_done_, lane_done_;
  std::uint64_t generation_ = 0;
  std::size_t current_ = 0;
  int lanes_done_ = 0;
  std::uint64_t played_ = 0, cached_ = 0;
  std::vector<std::uint32_t> all_ipus_;
  double sync_ns_ = 0;
  double end_ns_ = 0;
  bool done_ = false;
  bool stop_ = false;
  std::string failure_;
};

}  // namespace ipusim::rt
