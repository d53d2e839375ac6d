#include "collectives/algorithms/auto_select.hpp"

#include <algorithm>

#include "collectives/algorithms/algorithm_groups.hpp"

namespace ipusim::coll {

RingThresholds ring_thresholds(RingPhaseKind kind) {
  if (kind == RingPhaseKind::AllGather) return {622592, 2490368, 19922944};
  return {1245184, 4980736, 39845888};
}

Algorithm pick_ring_method(RingPhaseKind kind, std::uint32_t ranks, std::uint64_t bytes,
                           std::uint32_t ipus_per_replica, bool torus, LinkConfig config) {
  if (config == LinkConfig::BarleyTwist) {
    const std::uint64_t limit = kind == RingPhaseKind::AllGather
                                    ? kBarleyTwistThresholdBytes
                                    : kBarleyTwistThresholdBytes * ranks;
    return bytes < limit ? Algorithm::MeetInTheMiddle : Algorithm::QuadDirectional;
  }
  if (torus && ipus_per_replica > 1) return Algorithm::MeetInTheMiddle;
  if (ipus_per_replica > 1 || ranks <= 2) return Algorithm::Clockwise;
  const std::uint64_t bytes_per_ipu = bytes / ipus_per_replica;
  const auto t = ring_thresholds(kind);
  if (bytes_per_ipu < t.a || (ranks > 4 && bytes_per_ipu < t.b) ||
      (ranks > 8 && bytes_per_ipu < t.c) || ranks > 16) {
    return Algorithm::MeetInTheMiddle;
  }
  return Algorithm::BidirectionalPair;
}

Algorithm pick_gw_method(std::uint32_t num_ilds) {
  return num_ilds > 2 ? Algorithm::MeetInTheMiddle : Algorithm::Clockwise;
}

// The small-message thresholds, one home: per op and span, the scanned size (1/8-octave steps
// from 256 B to 64 MiB) that makes auto's worst slowdown against `best` smallest over the
// presets of that span (Ladder: pod4; Torus: pod16, pod64; Domains: pod128, pod256), one IPU
// per replica, all replicas, float32, given what auto runs above it (GCL's ring table, kept as
// GCL's, or hierarchical); where GCL's ring is not the fastest the threshold can sit past the
// plain crossover. Derived by `/usr/bin/python3 tools/auto_thresholds.py` on 337219b (its first
// table; the candidates' times do not depend on this table, so neither does the derivation).
// Below a crossover the fixed cost of every superstep across IPUs (both barriers, the external
// exchange set-up and the step's on-chip program) dominates and the method with the fewest
// supersteps wins; above it the bytes on the busiest link do. The torus Broadcast crossover is
// worked by hand in tests/component/collectives/auto_threshold_test.cpp.
namespace {
struct SmallMessageRow {
  CollectiveOp op;
  std::uint64_t ladder, torus, domains;
};
constexpr SmallMessageRow kSmallMessage[] = {
    {CollectiveOp::AllReduce, 1143480, 571740, 1763488},
    {CollectiveOp::ReduceScatter, 1143480, 623488, 1763488},
    {CollectiveOp::AllGather, 2286960, 524288, 1763328},
    {CollectiveOp::Broadcast, 623488, 77936, 1216},
};
/// A broadcast over several domains above its direct threshold: hierarchical up to this many
/// bytes per group member (a ring's supersteps grow with the group; hierarchical's do not, nor
/// do the bytes on its busiest link, one domain's direct broadcast), a ring above.
constexpr std::uint64_t kTieredBroadcastMaxBytesPerMember = 4096;
/// The Domains column was derived on two and four IPU-Link domains (pod128, pod256). Beyond, no
/// crossover was derived (pod1024 and up: 16 or more domains on a leaf/spine fabric, where
/// direct's N(N-1) transfers per superstep reach 268 M on pod16k, more than the simulator can
/// hold), so auto keeps hierarchical there as before the rule.
constexpr std::uint32_t kSmallMessageMaxDomains = 4;

}  // namespace

std::uint64_t small_message_max_bytes(CollectiveOp op, GroupSpan span) {
  for (const auto& row : kSmallMessage) {
    if (row.op != op) continue;
    return span == GroupSpan::Ladder  ? row.ladder
           : span == GroupSpan::Torus ? row.torus
                                      : row.domains;
  }
  return 0;  // all_to_all: always direct, no threshold
}

bool small_message_rule(const CollectiveRequest& request, std::uint64_t bytes,
                        std::uint32_t group_size, GroupSpan span) {
  for (const auto& group : request.groups) {
    for (std::size_t i = 1; i < group.size(); ++i) {
      if (group[i] != group[i - 1] + 1) return false;
    }
  }
  const std::uint64_t size = request.op == CollectiveOp::AllGather ? bytes * group_size : bytes;
  return size <= small_message_max_bytes(request.op, span);
}

Algorithm select_algorithm(const CollectiveRequest& request) {
  if (request.algorithm != Algorithm::Auto) return request.algorithm;
  if (request.op == CollectiveOp::AllToAll) return Algorithm::Direct;
  const auto& topo = request.topology;
  const auto structure = ild_structure(request.groups, topo.ipus_per_replica, topo.ild_size_ipus);
  const bool spans = structure && structure->num_ilds > 1;
  const std::uint64_t bytes = request.elements_per_replica * dtype_bytes(request.dtype);
  std::uint32_t group_size = 0;
  for (const auto& group : request.groups)
    group_size = std::max(group_size, static_cast<std::uint32_t>(group.size()));
  // Below the threshold the fixed cost of each superstep across IPUs dominates, so the method
  // with the fewest supersteps wins: direct (1 or 2 supersteps). Above it the bytes dominate:
  // a ring (hierarchical's tiers are rings), except that a broadcast over several domains
  // first takes hierarchical (a direct broadcast per tier: few supersteps, and the root's
  // links carry one copy per domain instead of one per member) up to its own threshold.
  const GroupSpan span = spans        ? GroupSpan::Domains
                         : topo.torus ? GroupSpan::Torus
                                      : GroupSpan::Ladder;
  const bool derived = !spans || structure->num_ilds <= kSmallMessageMaxDomains;
  const bool small = (derived && small_message_rule(request, bytes, group_size, span)) ||
                     (request.direct_max_bytes > 0 && bytes <= request.direct_max_bytes);
  if (small) return Algorithm::Direct;
  if (spans && (!derived || request.op != CollectiveOp::Broadcast ||
                bytes <= kTieredBroadcastMaxBytesPerMember * group_size)) {
    return Algorithm::Hierarchical;
  }
  const auto ranks = max_members_per_ild(request.groups, topo.ipus_per_replica, topo.ild_size_ipus);
  if (request.op == CollectiveOp::Broadcast) {
    // A ring broadcast scatters the root's tensor, then all-gathers the pieces.
    return pick_ring_method(RingPhaseKind::AllGather, ranks, bytes / std::max(ranks, 1u),
                            topo.ipus_per_replica, topo.torus, topo.link_config);
  }
  const auto kind = request.op == CollectiveOp::AllGather ? RingPhaseKind::AllGather
                                                          : RingPhaseKind::ReduceScatter;
  return pick_ring_method(kind, ranks, bytes, topo.ipus_per_replica, topo.torus, topo.link_config);
}

}  // namespace ipusim::coll
