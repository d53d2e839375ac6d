#include "collectives/algorithms/auto_select.hpp"

#include <algorithm>
#include <iterator>

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
// presets of that span (Ladder: pod4; Torus: pod16, pod64; Domains: below), one IPU per
// replica, all replicas, float32, given what auto runs above it (GCL's ring table, kept as
// GCL's, or hierarchical); where GCL's ring is not the fastest the threshold can sit past the
// plain crossover. Derived by `/usr/bin/python3 tools/auto_thresholds.py` (its first table;
// the candidates' times do not depend on this table, so neither does the derivation).
// Below a crossover the fixed cost of every superstep across IPUs (both barriers, the external
// exchange set-up and the step's on-chip program) dominates and the method with the fewest
// supersteps wins; above it the bytes on the busiest link do. The torus Broadcast crossover is
// worked by hand in tests/component/collectives/auto_threshold_test.cpp.
namespace {
struct SmallMessageRow {
  CollectiveOp op;
  std::uint64_t ladder, torus;
};
constexpr SmallMessageRow kSmallMessage[] = {
    {CollectiveOp::AllReduce, 1143480, 571740},
    {CollectiveOp::ReduceScatter, 1143480, 623488},
    {CollectiveOp::AllGather, 2286960, 524288},
    {CollectiveOp::Broadcast, 623488, 77936},
};

/// Over several domains a reduce op's direct threshold (AllGather: its output) per number of
/// domains, a table because the crossover with hierarchical is not monotonic in the count.
/// Both times are affine in the bytes (AllReduce on M2000 systems, through 64 KiB and 4 MiB):
/// hierarchical's fixed cost grows with its GW-Link supersteps (442, 529, 693, 719 us on 2, 4,
/// 8, 16 domains; its cost per byte stays 0.038-0.042 ns/B), and so does direct's cost per byte
/// once the GW-Links, not the IPU-Links, are its busiest (0.29, 0.28, 0.38, 0.57 ns/B; fixed
/// 23-29 us), so the crossover rises from two to four domains, stays at eight and falls at
/// sixteen. Two and four: the minimax over the M2000 and the Bow presets (pod128, bow_pod128;
/// pod256, bow_pod256); eight and sixteen: the crossover on pod1024 (leaf/spine) with 512
/// replicas and with all (`--wide`, a bisection). A count between two in the table takes the
/// smaller count's value, one above sixteen sixteen's.
constexpr std::uint32_t kDomainCounts[] = {2, 4, 8, 16};
struct DomainRow {
  CollectiveOp op;
  std::uint64_t by_count[std::size(kDomainCounts)];
};
constexpr DomainRow kDomainSmallMessage[] = {
    {CollectiveOp::AllReduce, {1482912, 1923096, 1923096, 1246976}},
    {CollectiveOp::ReduceScatter, {1482912, 1923096, 1923096, 1246976}},
    {CollectiveOp::AllGather, {1482752, 1923072, 1923072, 1245184}},
};
/// A broadcast over several domains: direct while its input times the members outside the
/// root's domain is at most this. Direct's root sends the tensor over its GW-Links once per
/// such member, hierarchical's once per other domain, and little else in either cost grows
/// with the domains, so in this unit the crossover moves little (two domains 120,320 on the
/// Bow to 142,848 on the M2000, four 151,296-165,120, eight 177,408; sixteen below 245,760:
/// direct is slower from 256 B) while in bytes it falls from 2232 B (pod128) to 396 B (eight
/// domains). The minimax over the two- and four-domain presets, M2000 and Bow.
constexpr std::uint64_t kBroadcastRootGwMaxBytes = 151296;
/// A broadcast over several domains above its direct threshold: hierarchical up to this many
/// bytes per group member (a ring's supersteps grow with the group; hierarchical's do not, nor
/// do the bytes on its busiest link, one domain's direct broadcast), a ring above.
constexpr std::uint64_t kTieredBroadcastMaxBytesPerMember = 4096;
/// The tiered broadcast was derived on two and four domains only (a ring over 512 or more
/// members takes seconds per simulation); beyond, auto keeps hierarchical above direct.
constexpr std::uint32_t kTieredBroadcastMaxDomains = 4;
/// Direct's N(N-1) transfers per superstep: the simulator holds pod1024's 1 M but not
/// pod16k's 268 M, so larger groups keep hierarchical at every size (no crossover derived).
constexpr std::uint32_t kDirectMaxMembers = 1024;

}  // namespace

std::uint64_t small_message_max_bytes(CollectiveOp op, GroupSpan span, DomainSpread spread) {
  if (span == GroupSpan::Domains) {
    if (op == CollectiveOp::Broadcast) {
      const std::uint64_t outside =
          static_cast<std::uint64_t>(spread.num_ilds - 1) * spread.members_per_ild;
      return outside == 0 ? 0 : kBroadcastRootGwMaxBytes / outside;
    }
    std::size_t k = 0;  // the largest count in the table at most num_ilds
    while (k + 1 < std::size(kDomainCounts) && kDomainCounts[k + 1] <= spread.num_ilds) ++k;
    for (const auto& row : kDomainSmallMessage) {
      if (row.op == op) return row.by_count[k];
    }
    return 0;
  }
  for (const auto& row : kSmallMessage) {
    if (row.op == op) return span == GroupSpan::Ladder ? row.ladder : row.torus;
  }
  return 0;  // all_to_all: always direct, no threshold
}

bool small_message_rule(const CollectiveRequest& request, std::uint64_t bytes,
                        std::uint32_t group_size, GroupSpan span, DomainSpread spread) {
  if (group_size > kDirectMaxMembers) return false;
  for (const auto& group : request.groups) {
    for (std::size_t i = 1; i < group.size(); ++i) {
      if (group[i] != group[i - 1] + 1) return false;
    }
  }
  const std::uint64_t size = request.op == CollectiveOp::AllGather ? bytes * group_size : bytes;
  return size <= small_message_max_bytes(request.op, span, spread);
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
  const DomainSpread spread =
      spans ? DomainSpread{structure->num_ilds, structure->members_per_ild} : DomainSpread{1, 0};
  const bool small = small_message_rule(request, bytes, group_size, span, spread) ||
                     (request.direct_max_bytes > 0 && bytes <= request.direct_max_bytes);
  if (small) return Algorithm::Direct;
  if (spans &&
      (structure->num_ilds > kTieredBroadcastMaxDomains || request.op != CollectiveOp::Broadcast ||
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
