#include "collectives/algorithms/algorithm_flat.hpp"

#include <algorithm>

#include "collectives/algorithms/algorithm_direct.hpp"
#include "collectives/algorithms/algorithm_ring.hpp"
#include "collectives/algorithms/algorithm_tier.hpp"

namespace ipusim::coll::detail {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace

Layout flat_layout(const CollectiveRequest& request, std::uint32_t group_size, Algorithm algorithm,
                   std::uint64_t& cell_elems) {
  const std::uint32_t k = group_size;
  const std::uint64_t n = request.elements_per_replica;
  const CollectiveOp op = request.op;
  // Direct broadcast sends the whole buffer, so it needs no cells (and no cell padding).
  const bool whole_broadcast = op == CollectiveOp::Broadcast && algorithm == Algorithm::Direct;
  cell_elems = ceil_div(n, k);  // AllReduce, ReduceScatter, ring Broadcast
  if (op == CollectiveOp::AllGather || whole_broadcast) cell_elems = n;
  if (op == CollectiveOp::AllToAll) cell_elems = n / k;
  return make_layout(request.topology.ipus_per_replica, parts_of(algorithm),
                     whole_broadcast ? 1 : k, cell_elems);
}

void build_flat(const CollectiveRequest& request, const GroupIndex& index, Algorithm algorithm,
                Schedule& schedule, StepEmitter& emitter) {
  const auto& topo = request.topology;
  const std::uint32_t k = index.group_size;
  const CollectiveOp op = request.op;
  const bool whole_broadcast = op == CollectiveOp::Broadcast && algorithm == Algorithm::Direct;
  std::uint64_t cell_elems = 0;
  const Layout layout = flat_layout(request, k, algorithm, cell_elems);
  set_buffer_maps(schedule, layout, cell_elems, index.rank_of);

  const bool reducing = op == CollectiveOp::AllReduce || op == CollectiveOp::ReduceScatter;
  if (k == 1 || layout.atom_elems == 0 || (reducing && request.reduce == ReduceOp::Local)) {
    return;  // nothing to communicate
  }
  if (op == CollectiveOp::AllToAll) {
    emit_direct_all_to_all(emitter, layout, request.groups, "all_to_all");
    return;
  }

  // One ring per group; each member owns the cell of its group rank.
  std::vector<std::vector<RingMember>> rings;
  rings.reserve(request.groups.size());
  for (const auto& group : request.groups) {
    std::vector<std::uint32_t> sorted(group);
    std::sort(sorted.begin(), sorted.end());
    std::vector<RingMember> members;
    members.reserve(k);
    for (auto r : sorted) {
      RingMember m{r, {}};
      if (!whole_broadcast) m.fragment.push_back({index.rank_of[r], 1});
      members.push_back(std::move(m));
    }
    rings.push_back(std::move(members));
  }
  const RingPattern pattern = ild_ring_pattern(topo.torus, topo.ipus_per_replica, topo.link_config);
  const TierRings tier = make_tier_rings(rings, algorithm, pattern);

  switch (op) {
    case CollectiveOp::AllReduce:
      emit_tier_reduce_scatter(emitter, layout, tier, "reduce_scatter");
      emit_tier_all_gather(emitter, layout, tier, "all_gather");
      break;
    case CollectiveOp::ReduceScatter:
      emit_tier_reduce_scatter(emitter, layout, tier, "reduce_scatter");
      break;
    case CollectiveOp::AllGather:
      emit_tier_all_gather(emitter, layout, tier, "all_gather");
      break;
    case CollectiveOp::Broadcast: {
      std::vector<std::uint32_t> root_replicas;
      for (const auto& group : request.groups) root_replicas.push_back(group.front());
      const auto roots = find_slots(tier.primary, root_replicas);
      if (whole_broadcast) {
        emit_direct_broadcast(emitter, layout, tier.primary, roots, false, "broadcast");
      } else {
        // Bandwidth-optimal broadcast: scatter the root's cells, then all-gather them.
        emit_direct_broadcast(emitter, layout, tier.primary, roots, true, "scatter");
        emit_tier_all_gather(emitter, layout, tier, "all_gather");
      }
      break;
    }
    case CollectiveOp::AllToAll:
      break;  // handled above
  }
}

}  // namespace ipusim::coll::detail
