#include "collectives/algorithms/algorithm_hierarchical.hpp"

#include <numeric>

#include "collectives/algorithms/algorithm_direct.hpp"
#include "collectives/algorithms/algorithm_ring.hpp"
#include "collectives/algorithms/algorithm_tier.hpp"
#include "collectives/algorithms/auto_select.hpp"

namespace ipusim::coll::detail {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace

void choose_tier_methods(const CollectiveRequest& request, const IldStructure& s,
                         Schedule& schedule) {
  if (request.op == CollectiveOp::Broadcast) {
    schedule.ild_algorithm = schedule.gw_algorithm = Algorithm::Direct;
    return;
  }
  const auto& topo = request.topology;
  const bool gather = request.op == CollectiveOp::AllGather;
  // AllGather's IPU-Link tier gathers pieces that already hold L members' inputs.
  const std::uint64_t bytes =
      request.elements_per_replica * dtype_bytes(request.dtype) * (gather ? s.num_ilds : 1);
  schedule.ild_algorithm =
      request.hierarchical_ild_algorithm != Algorithm::Auto
          ? request.hierarchical_ild_algorithm
          : pick_ring_method(gather ? RingPhaseKind::AllGather : RingPhaseKind::ReduceScatter,
                             s.members_per_ild, bytes, topo.ipus_per_replica, topo.torus,
                             topo.link_config);
  schedule.gw_algorithm = request.hierarchical_gw_algorithm != Algorithm::Auto
                              ? request.hierarchical_gw_algorithm
                              : pick_gw_method(s.num_ilds);
}

void build_hierarchical(const CollectiveRequest& request, const GroupIndex& index,
                        const IldStructure& s, Schedule& schedule, StepEmitter& emitter) {
  const auto& topo = request.topology;
  const CollectiveOp op = request.op;
  const std::uint32_t k = index.group_size;
  const std::uint32_t L = s.num_ilds;
  const std::uint32_t kl = s.members_per_ild;
  const std::uint64_t n = request.elements_per_replica;

  const bool broadcast = op == CollectiveOp::Broadcast;
  std::uint64_t cell_elems = ceil_div(n, k);
  if (op == CollectiveOp::AllGather || broadcast) cell_elems = n;
  const std::uint32_t parts =
      std::lcm(parts_of(schedule.ild_algorithm), parts_of(schedule.gw_algorithm));
  const Layout layout = make_layout(topo.ipus_per_replica, parts, broadcast ? 1 : k, cell_elems);
  set_buffer_maps(schedule, layout, cell_elems, index.rank_of);

  const bool reducing = op == CollectiveOp::AllReduce || op == CollectiveOp::ReduceScatter;
  if (k == 1 || layout.atom_elems == 0 || (reducing && request.reduce == ReduceOp::Local)) {
    return;
  }

  // Cell finally owned by member (g, l). AllReduce's layout is free, so local index l owns
  // the contiguous cells [lL, lL+L) and every tier moves one run; ReduceScatter and
  // AllGather must put rank r's data in cell r (the PopART output layout).
  const auto cell_of = [&](std::size_t grp, std::uint32_t g, std::uint32_t l) -> std::uint32_t {
    if (op == CollectiveOp::AllReduce) return l * L + g;
    return index.rank_of[s.at(grp, g, l)];
  };
  std::vector<std::vector<RingMember>> ild_rings;
  std::vector<std::vector<RingMember>> gw_rings;
  std::vector<std::uint32_t> ild_roots;
  std::vector<std::uint32_t> gw_roots;
  for (std::size_t grp = 0; grp < s.members.size(); ++grp) {
    // Broadcast root = group rank 0 at (g0, l0).
    std::uint32_t g0 = 0;
    std::uint32_t l0 = 0;
    for (std::uint32_t i = 0; i < k; ++i) {
      if (s.members[grp][i] == request.groups[grp].front()) {
        g0 = i / kl;
        l0 = i % kl;
      }
    }
    for (std::uint32_t g = 0; g < L; ++g) {
      std::vector<RingMember> ring;
      for (std::uint32_t l = 0; l < kl; ++l) {
        RingMember m{s.at(grp, g, l), {}};
        if (!broadcast) {
          std::vector<std::uint32_t> cells;
          for (std::uint32_t gg = 0; gg < L; ++gg) cells.push_back(cell_of(grp, gg, l));
          m.fragment = runs_of(std::move(cells));
        }
        ring.push_back(std::move(m));
      }
      ild_rings.push_back(std::move(ring));
      ild_roots.push_back(s.at(grp, g, l0));
    }
    for (std::uint32_t l = 0; l < kl; ++l) {
      if (broadcast && l != l0) continue;  // only the root's peers cross the GW-Links
      std::vector<RingMember> ring;
      for (std::uint32_t g = 0; g < L; ++g) {
        RingMember m{s.at(grp, g, l), {}};
        if (!broadcast) m.fragment.push_back({cell_of(grp, g, l), 1});
        ring.push_back(std::move(m));
      }
      gw_rings.push_back(std::move(ring));
      gw_roots.push_back(s.at(grp, g0, l));
    }
  }
  const TierRings ild =
      make_tier_rings(ild_rings, schedule.ild_algorithm,
                      ild_ring_pattern(topo.torus, topo.ipus_per_replica, topo.link_config));
  const TierRings gw = make_tier_rings(gw_rings, schedule.gw_algorithm, RingPattern::Flat);

  switch (op) {
    case CollectiveOp::AllReduce:
      emit_tier_reduce_scatter(emitter, layout, ild, "ild_reduce_scatter");
      emit_tier_reduce_scatter(emitter, layout, gw, "gw_all_reduce");
      emit_tier_all_gather(emitter, layout, gw, "gw_all_reduce");
      emit_tier_all_gather(emitter, layout, ild, "ild_all_gather");
      break;
    case CollectiveOp::ReduceScatter:
      emit_tier_reduce_scatter(emitter, layout, ild, "ild_reduce_scatter");
      emit_tier_reduce_scatter(emitter, layout, gw, "gw_reduce_scatter");
      break;
    case CollectiveOp::AllGather:
      emit_tier_all_gather(emitter, layout, gw, "gw_all_gather");
      emit_tier_all_gather(emitter, layout, ild, "ild_all_gather");
      break;
    case CollectiveOp::Broadcast:
      if (L > 1) {
        emit_direct_broadcast(emitter, layout, gw.primary, find_slots(gw.primary, gw_roots), false,
                              "gw_broadcast");
      }
      if (kl > 1) {
        emit_direct_broadcast(emitter, layout, ild.primary, find_slots(ild.primary, ild_roots),
                              false, "ild_broadcast");
      }
      break;
    case CollectiveOp::AllToAll:
      break;  // rejected by validation
  }
}

}  // namespace ipusim::coll::detail
