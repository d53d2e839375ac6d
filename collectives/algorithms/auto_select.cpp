#include "collectives/algorithms/auto_select.hpp"

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

Algorithm select_algorithm(const CollectiveRequest& request) {
  if (request.algorithm != Algorithm::Auto) return request.algorithm;
  if (request.op == CollectiveOp::AllToAll) return Algorithm::Direct;
  const auto& topo = request.topology;
  const auto structure = ild_structure(request.groups, topo.ipus_per_replica, topo.ild_size_ipus);
  if (structure && structure->num_ilds > 1) return Algorithm::Hierarchical;
  if (request.op == CollectiveOp::Broadcast) return Algorithm::Direct;
  const std::uint64_t bytes = request.elements_per_replica * dtype_bytes(request.dtype);
  if (request.direct_max_bytes > 0 && bytes <= request.direct_max_bytes) return Algorithm::Direct;
  const auto kind = request.op == CollectiveOp::AllGather ? RingPhaseKind::AllGather
                                                          : RingPhaseKind::ReduceScatter;
  const auto ranks = max_members_per_ild(request.groups, topo.ipus_per_replica, topo.ild_size_ipus);
  return pick_ring_method(kind, ranks, bytes, topo.ipus_per_replica, topo.torus,
                          topo.link_config);
}

}  // namespace ipusim::coll
