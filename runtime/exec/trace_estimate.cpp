#include "runtime/exec/trace_estimate.hpp"

#include <algorithm>
#include <vector>

#include "collectives/algorithms/step_count.hpp"
#include "models/ipu/compute.hpp"
#include "models/network/link_tiers.hpp"
#include "runtime/ir/program.hpp"
#include "sim/progress.hpp"
#include "sim/trace.hpp"

namespace ipusim {
namespace {

// Bytes per JSON event (with its ",\n"), measured on the traces of allreduce pod16 (every
// algorithm), pod64 and pod256, mnist_phased, bert_large_phased_pod64 and the MLPerf pod16
// presets (2026-11-23). They grow by a few bytes with longer IPU numbers and timestamps.
constexpr double kOpSliceBytes = 177;        // executor op "X" slice with its args
constexpr double kStepSliceBytes = 112;      // per-IPU "sync" / "collective" X slice
constexpr double kPhaseStepPairBytes = 260;  // "b" + "e" of a superstep on the collectives track
constexpr double kLinkPairBytes = 226;       // "b" + "e" of a slice on a link or DDR track
constexpr double kPhaseSliceBytes = 95;      // executor phase "X" slice
constexpr double kCounterBytes = 100;        // utilisation "C" sample
constexpr double kMetadataBytes = 82;        // process / thread name "M" event

// Who is traced, as the writers decide (CollectivePlayer::kMaxTracedIpus and
// rt::Executor::kMaxTracedIpus): above these sizes only replica 0 / the collectives track,
// unless --trace-ipus names IPUs.
constexpr std::uint32_t kPlayerMaxTracedIpus = 256;
constexpr std::uint32_t kExecutorMaxTracedIpus = 64;

// Distinct links one IPU's transfers of one superstep cross, at most (direct exchanges on a
// ladder: 4; ring steps: 1 or 2, bounded by the transfers themselves).
constexpr double kLinksPerIpuStep = 4;
// Utilisation samples per superstep (the tiers whose load changes at its start and end).
constexpr double kCountersPerStep = 3;
// Utilisation samples per op that moves data over the network (measured 2-7 on the presets;
// they are a few % of a training trace).
constexpr double kCountersPerNetworkOp = 4;

bool link_tiers_selected(const TraceFilter& f) {
  return f.tier_selected(link_trace_tier(ResourceKind::IpuLink)) ||
         f.tier_selected(link_trace_tier(ResourceKind::GwLink));
}

bool any_counter_selected(const TraceFilter& f) {
  return link_tiers_selected(f) || f.tier_selected(link_trace_tier(ResourceKind::Ddr)) ||
         f.tier_selected(link_trace_tier(ResourceKind::HostLink));
}

void add(TraceEstimate& e, double events, double bytes_each) {
  e.events += events;
  e.bytes += events * bytes_each;
}

}  // namespace

TraceEstimate estimate_collective_trace(const coll::CollectiveRequest& request,
                                        std::uint64_t repeat, std::uint32_t system_ipus,
                                        const TraceFilter& filter) {
  const coll::StepCount c = coll::count_steps(request);
  const double steps = static_cast<double>(c.steps) * static_cast<double>(repeat);
  const double transfers = static_cast<double>(c.transfers) * static_cast<double>(repeat);
  const bool links = link_tiers_selected(filter);
  TraceEstimate e;
  if (links) add(e, 2 * steps, kPhaseStepPairBytes / 2);
  if (any_counter_selected(filter)) add(e, kCountersPerStep * steps, kCounterBytes);
  if (system_ipus > kPlayerMaxTracedIpus && filter.ipus.empty()) return e;

  // Every member IPU sends or receives in (nearly) every superstep.
  const std::uint32_t K = request.topology.ipus_per_replica;
  double members = 0, selected = 0;
  for (const auto& group : request.groups) {
    for (const std::uint32_t r : group) {
      for (std::uint32_t j = 0; j < K; ++j) {
        members += 1;
        if (filter.ipus.empty() || filter.ipus.count(r * K + j) > 0) selected += 1;
      }
    }
  }
  if (selected == 0) return e;
  add(e, 4 * selected, kMetadataBytes);  // process name and sort index, two thread names
  add(e, steps * selected * (links ? 2 : 1), kStepSliceBytes);  // sync (always) + collective
  if (links) {
    // A link is traced once per step if a transfer with a selected end crosses it.
    const double kept = transfers * std::min(1.0, 2 * selected / members);
    add(e, 2 * std::min(kept, steps * kLinksPerIpuStep * selected), kLinkPairBytes / 2);
  }
  return e;
}

TraceEstimate estimate_program_trace(const rt::Program& program, std::uint32_t replicas,
                                     std::uint32_t ipus_per_replica, std::uint32_t system_ipus,
                                     const TraceFilter& filter) {
  const bool all = system_ipus <= kExecutorMaxTracedIpus || !filter.ipus.empty();
  // Traced replicas per virtual graph (the executor traces op.vg of each traced replica).
  std::vector<double> traced(ipus_per_replica, 0);
  for (std::uint32_t vg = 0; vg < ipus_per_replica; ++vg) {
    for (std::uint32_t r = 0; r < (all ? replicas : std::min(replicas, 1u)); ++r) {
      if (filter.ipus.empty() || filter.ipus.count(r * ipus_per_replica + vg) > 0) traced[vg] += 1;
    }
  }
  TraceEstimate e;
  double network_ops = 0;
  for (const auto& phase : program.phases) {
    for (const auto& op : phase.ops) {
      const double n =
          op.vg >= 0 && static_cast<std::uint32_t>(op.vg) < ipus_per_replica ? traced[op.vg] : 0;
      switch (op.kind) {
        case rt::LKind::Compute:
        case rt::LKind::IoCopy:
          if (filter.tier_selected(trace_tier(kComputeTraceTrack))) add(e, n, kOpSliceBytes);
          break;
        case rt::LKind::RemoteExchange:
          if (filter.tier_selected(link_trace_tier(ResourceKind::Ddr))) {
            add(e, n, kOpSliceBytes);
            add(e, 2 * n, kLinkPairBytes / 2);
          }
          network_ops += 1;
          break;
        case rt::LKind::Host:
          if (filter.tier_selected(link_trace_tier(ResourceKind::HostLink)))
            add(e, n, kOpSliceBytes);
          network_ops += 1;
          break;
        case rt::LKind::IpuCopy:
        case rt::LKind::Collective:
          if (link_tiers_selected(filter)) add(e, n, kOpSliceBytes);
          network_ops += 1;
          break;
      }
    }
  }
  add(e, static_cast<double>(program.phases.size()), kPhaseSliceBytes);
  if (any_counter_selected(filter)) add(e, kCountersPerNetworkOp * network_ops, kCounterBytes);
  double traced_ipus = 0;
  for (const double t : traced) traced_ipus += t;
  add(e, 5 * traced_ipus, kMetadataBytes);  // process name and sort index, up to three lanes
  return e;
}

void announce_collective_run(const coll::CollectiveRequest& request, std::uint64_t repeat,
                             std::uint32_t system_ipus) {
  const coll::StepCount c = coll::count_steps(request);
  RunProgress::instance().add_total(c.steps * repeat, "supersteps");
  TraceWriter& trace = TraceWriter::instance();
  if (!trace.enabled()) return;
  const TraceEstimate e = estimate_collective_trace(request, repeat, system_ipus, trace.filter());
  trace.add_estimate(e.events, e.bytes);
}

void announce_program_trace(const rt::Program& program, std::uint32_t replicas,
                            std::uint32_t ipus_per_replica, std::uint32_t system_ipus) {
  TraceWriter& trace = TraceWriter::instance();
  if (!trace.enabled()) return;
  const TraceEstimate e =
      estimate_program_trace(program, replicas, ipus_per_replica, system_ipus, trace.filter());
  trace.add_estimate(e.events, e.bytes);
}

}  // namespace ipusim
