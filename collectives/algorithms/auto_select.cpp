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

bool small_message_rule(const CollectiveRequest& request, std::uint64_t bytes,
                        std::uint32_t ranks) {
  for (const auto& group : request.groups) {
    for (std::size_t i = 1; i < group.size(); ++i) {
      if (group[i] != group[i - 1] + 1) return false;
    }
  }
  switch (request.op) {
    case CollectiveOp::AllGather:
      return bytes * ranks <= kDirectMaxGatherOutputBytes;
    case CollectiveOp::Broadcast:
      return bytes <= kDirectMaxBroadcastBytes;
    default:
      return bytes <= kDirectMaxReduceBytes;
  }
}

Algorithm select_algorithm(const CollectiveRequest& request) {
  if (request.algorithm != Algorithm::Auto) return request.algorithm;
  if (request.op == CollectiveOp::AllToAll) return Algorithm::Direct;
  const auto& topo = request.topology;
  const auto structure = ild_structure(request.groups, topo.ipus_per_replica, topo.ild_size_ipus);
  if (structure && structure->num_ilds > 1) return Algorithm::Hierarchical;
  const std::uint64_t bytes = request.elements_per_replica * dtype_bytes(request.dtype);
  const auto ranks = max_members_per_ild(request.groups, topo.ipus_per_replica, topo.ild_size_ipus);
  if (small_message_rule(request, bytes, ranks)) return Algorithm::Direct;
  if (request.direct_max_bytes > 0 && bytes <= request.direct_max_bytes) return Algorithm::Direct;
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
