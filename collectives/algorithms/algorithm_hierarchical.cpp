#include "collectives/algorithms/algorithm_hierarchical.hpp"

#include <numeric>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm_direct.hpp"
#include "collectives/algorithms/algorithm_ring.hpp"
#include "collectives/algorithms/algorithm_tier.hpp"
#include "collectives/algorithms/auto_select.hpp"

namespace ipusim::coll::detail {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

/// Leaf rings (the group's D domains under leaf b, same local index l) and spine rings
/// (domain d of every leaf, same l) of one group, each member owning the cells it reduces.
template <typename CellOf>
void add_leaf_spine_rings(const IldStructure& s, std::size_t grp, std::uint32_t D,
                          const CellOf& cell_of, std::vector<std::vector<RingMember>>& leaf_rings,
                          std::vector<std::vector<RingMember>>& spine_rings) {
  const std::uint32_t L = s.num_ilds, NL = L / D, kl = s.members_per_ild;
  std::vector<std::vector<CellRun>> fragment(D);  // of position d, the same under every leaf
  for (std::uint32_t l = 0; l < kl; ++l) {
    for (std::uint32_t d = 0; d < D; ++d) {
      std::vector<std::uint32_t> cells;
      for (std::uint32_t bb = 0; bb < NL; ++bb) cells.push_back(cell_of(grp, bb * D + d, l));
      fragment[d] = runs_of(std::move(cells));
    }
    for (std::uint32_t b = 0; b < NL; ++b) {
      std::vector<RingMember> ring;
      for (std::uint32_t d = 0; d < D; ++d) {
        ring.push_back(RingMember{s.at(grp, b * D + d, l), fragment[d]});
      }
      leaf_rings.push_back(std::move(ring));
    }
    for (std::uint32_t d = 0; d < D; ++d) {
      std::vector<RingMember> ring;
      for (std::uint32_t b = 0; b < NL; ++b) {
        RingMember m{s.at(grp, b * D + d, l), {}};
        m.fragment.push_back({cell_of(grp, b * D + d, l), 1});
        ring.push_back(std::move(m));
      }
      spine_rings.push_back(std::move(ring));
    }
  }
}

/// A tier of a hierarchical collective, innermost first, and its phases' name prefix.
struct NamedTier {
  const TierRings* rings;
  const char* name;
};

/// The phases of a hierarchical collective over `tiers` (innermost first: the IPU-Link
/// domains, then the leaves, then the GW-Links or the spine): reduce-scatters inside out (the
/// outermost tier's one reduce-scatter and all-gather form its all-reduce), all-gathers
/// outside in. Broadcast is emitted by the caller.
void emit_tiers(StepEmitter& emitter, const Layout& layout, CollectiveOp op,
                const std::vector<NamedTier>& tiers) {
  const auto phase = [](const NamedTier& t, const char* what) {
    return std::string(t.name) + "_" + what;
  };
  const std::size_t outer = tiers.size() - 1;
  switch (op) {
    case CollectiveOp::AllReduce:
      for (std::size_t i = 0; i < outer; ++i)
        emit_tier_reduce_scatter(emitter, layout, *tiers[i].rings,
                                 phase(tiers[i], "reduce_scatter"));
      emit_tier_reduce_scatter(emitter, layout, *tiers[outer].rings,
                               phase(tiers[outer], "all_reduce"));
      emit_tier_all_gather(emitter, layout, *tiers[outer].rings, phase(tiers[outer], "all_reduce"));
      for (std::size_t i = outer; i-- > 0;)
        emit_tier_all_gather(emitter, layout, *tiers[i].rings, phase(tiers[i], "all_gather"));
      break;
    case CollectiveOp::ReduceScatter:
      for (const NamedTier& t : tiers)
        emit_tier_reduce_scatter(emitter, layout, *t.rings, phase(t, "reduce_scatter"));
      break;
    case CollectiveOp::AllGather:
      for (std::size_t i = tiers.size(); i-- > 0;)
        emit_tier_all_gather(emitter, layout, *tiers[i].rings, phase(tiers[i], "all_gather"));
      break;
    case CollectiveOp::Broadcast:
    case CollectiveOp::AllToAll:
      break;  // Broadcast: by the caller (two tiers); AllToAll is rejected by validation
  }
}

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

std::uint32_t leaf_block(const CollectiveRequest& request, const IldStructure& s) {
  const auto& topo = request.topology;
  if (topo.ilds_per_leaf == 0 || s.num_ilds < 4) return 0;
  const auto leaf_of_g = [&](std::size_t grp, std::uint32_t g) {
    const std::uint64_t ipu = static_cast<std::uint64_t>(s.at(grp, g, 0)) * topo.ipus_per_replica;
    return ipu / topo.ild_size_ipus / topo.ilds_per_leaf;
  };
  std::uint32_t block = 0;
  for (std::size_t grp = 0; grp < s.members.size(); ++grp) {
    std::uint32_t d = 1;
    while (d < s.num_ilds && leaf_of_g(grp, d) == leaf_of_g(grp, 0)) ++d;
    if (block != 0 && d != block) return 0;
    block = d;
  }
  if (block < 2 || block >= s.num_ilds || s.num_ilds % block != 0) return 0;
  // Every block of D consecutive domains lies under one leaf, and blocks under distinct ones.
  for (std::size_t grp = 0; grp < s.members.size(); ++grp) {
    for (std::uint32_t g = 0; g < s.num_ilds; ++g) {
      const bool first = g % block == 0;
      if (!first && leaf_of_g(grp, g) != leaf_of_g(grp, g - 1)) return 0;
      if (first && g > 0 && leaf_of_g(grp, g) == leaf_of_g(grp, g - 1)) return 0;
    }
  }
  return block;
}

Layout hierarchical_layout(const CollectiveRequest& request, std::uint32_t group_size,
                           Algorithm ild_algorithm, Algorithm gw_algorithm,
                           std::uint64_t& cell_elems) {
  const CollectiveOp op = request.op;
  const std::uint64_t n = request.elements_per_replica;
  const bool broadcast = op == CollectiveOp::Broadcast;
  cell_elems = ceil_div(n, group_size);
  if (op == CollectiveOp::AllGather || broadcast) cell_elems = n;
  const std::uint32_t parts = std::lcm(parts_of(ild_algorithm), parts_of(gw_algorithm));
  return make_layout(request.topology.ipus_per_replica, parts, broadcast ? 1 : group_size,
                     cell_elems);
}

void build_hierarchical(const CollectiveRequest& request, const GroupIndex& index,
                        const IldStructure& s, Schedule& schedule, StepEmitter& emitter) {
  const auto& topo = request.topology;
  const CollectiveOp op = request.op;
  const std::uint32_t k = index.group_size;
  const std::uint32_t L = s.num_ilds;
  const std::uint32_t kl = s.members_per_ild;

  const bool broadcast = op == CollectiveOp::Broadcast;
  std::uint64_t cell_elems = 0;
  const Layout layout =
      hierarchical_layout(request, k, schedule.ild_algorithm, schedule.gw_algorithm, cell_elems);
  set_buffer_maps(schedule, layout, cell_elems, index.rank_of);

  const bool reducing = op == CollectiveOp::AllReduce || op == CollectiveOp::ReduceScatter;
  if (k == 1 || layout.atom_elems == 0 || (reducing && request.reduce == ReduceOp::Local)) {
    return;
  }

  // Cell finally owned by member (g, l). AllReduce's layout is free, so local index l owns
  // the contiguous cells [lL, lL+L) and every tier moves one run; ReduceScatter and
  // AllGather must put rank r's data in cell r (the PopART output layout).
  // On a leaf/spine fabric (D domains per leaf, NL leaves), domain g = b D + d: AllReduce
  // then lays member l's cells out as [d NL + b] so that each tier's fragment is one run.
  const std::uint32_t D = broadcast ? 0 : leaf_block(request, s);
  const std::uint32_t NL = D == 0 ? 1 : L / D;
  const auto cell_of = [&](std::size_t grp, std::uint32_t g, std::uint32_t l) -> std::uint32_t {
    if (op == CollectiveOp::AllReduce) return l * L + (D == 0 ? g : (g % D) * NL + g / D);
    return index.rank_of[s.at(grp, g, l)];
  };
  std::vector<std::vector<RingMember>> leaf_rings;
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
    // Local index l owns the cells of every domain's member l: the same in every domain
    // (computed once: L x L cells per index would be quadratic in the domains).
    std::vector<std::vector<CellRun>> fragment(broadcast ? 0 : kl);
    for (std::uint32_t l = 0; l < fragment.size(); ++l) {
      std::vector<std::uint32_t> cells;
      for (std::uint32_t gg = 0; gg < L; ++gg) cells.push_back(cell_of(grp, gg, l));
      fragment[l] = runs_of(std::move(cells));
    }
    for (std::uint32_t g = 0; g < L; ++g) {
      std::vector<RingMember> ring;
      for (std::uint32_t l = 0; l < kl; ++l) {
        RingMember m{s.at(grp, g, l), {}};
        if (!broadcast) m.fragment = fragment[l];
        ring.push_back(std::move(m));
      }
      ild_rings.push_back(std::move(ring));
      ild_roots.push_back(s.at(grp, g, l0));
    }
    if (D != 0) {
      add_leaf_spine_rings(s, grp, D, cell_of, leaf_rings, gw_rings);
      continue;
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
  if (op != CollectiveOp::Broadcast) {
    if (D != 0) {
      const TierRings leaf = make_tier_rings(leaf_rings, schedule.gw_algorithm, RingPattern::Flat);
      emit_tiers(emitter, layout, op, {{&ild, "ild"}, {&leaf, "leaf"}, {&gw, "spine"}});
    } else {
      emit_tiers(emitter, layout, op, {{&ild, "ild"}, {&gw, "gw"}});
    }
    return;
  }
  // Broadcast (two tiers): the root's peers across the GW-Links, then inside each domain.
  if (L > 1) {
    emit_direct_broadcast(emitter, layout, gw.primary, find_slots(gw.primary, gw_roots), false,
                          "gw_broadcast");
  }
  if (kl > 1) {
    emit_direct_broadcast(emitter, layout, ild.primary, find_slots(ild.primary, ild_roots), false,
                          "ild_broadcast");
  }
}

}  // namespace ipusim::coll::detail
