#include "collectives/algorithms/step_count.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "collectives/algorithms/algorithm_groups.hpp"
#include "collectives/algorithms/algorithm_hierarchical.hpp"
#include "collectives/algorithms/algorithm_ring.hpp"
#include "collectives/algorithms/algorithm_table.hpp"
#include "collectives/algorithms/auto_select.hpp"

namespace ipusim::coll {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

StepCount& operator+=(StepCount& a, const StepCount& b) {
  a.steps += b.steps;
  a.transfers += b.transfers;
  return a;
}

/// Geometry shared by every phase of one schedule (mirrors detail::Layout).
struct Shape {
  std::uint64_t ipus = 1;   ///< K: every fragment run moves once per IPU of the replica
  std::uint64_t parts = 1;  ///< layout direction parts
};

/// One reduce-scatter or all-gather phase of a tier (emit_tier_*): rings of `length`
/// members whose fragments hold `runs_total` cell runs together over all rings.
/// Ring methods: lane l of a step moves every run once per IPU and per part of its lane
/// (the owner map is a bijection), so transfers = (sum of lane steps) x runs x K x span and
/// steps = the longest lane. Direct: one step, every run sent to the length-1 other members.
StepCount tier_phase(Algorithm algorithm, std::uint64_t length, std::uint64_t runs_total,
                     const Shape& shape) {
  if (length <= 1) return {};
  const AlgorithmInfo& info = algorithm_info(algorithm);
  if (info.kind == AlgorithmKind::Direct) {
    return {1, (length - 1) * runs_total * shape.ipus * shape.parts};
  }
  // The table's lanes, as detail::ring_lanes builds them.
  std::uint64_t longest = 0;
  std::uint64_t lane_steps = 0;  // sum over lanes
  for (const LaneSpec& l : info.lanes) {
    const std::uint64_t hops = lane_hops(l.hops, static_cast<std::uint32_t>(length));
    longest = std::max(longest, hops);
    lane_steps += hops;
  }
  const std::uint64_t span = shape.parts / info.parts;
  return {longest, lane_steps * runs_total * shape.ipus * span};
}

/// One direct broadcast step from each of `rings` roots to the other length-1 members, each
/// receiving `runs_each` runs (emit_direct_broadcast).
StepCount broadcast_step(std::uint64_t rings, std::uint64_t length, std::uint64_t runs_each,
                         const Shape& shape) {
  if (rings == 0 || length <= 1) return {};
  return {1, rings * (length - 1) * runs_each * shape.ipus * shape.parts};
}

bool nothing_to_move(const CollectiveRequest& r, std::uint64_t k, std::uint64_t atom) {
  const bool reducing = r.op == CollectiveOp::AllReduce || r.op == CollectiveOp::ReduceScatter;
  return k == 1 || atom == 0 || (reducing && r.reduce == ReduceOp::Local);
}

/// build_flat's phases: one ring per group, each member owning one run (its rank's cell).
StepCount count_flat(const CollectiveRequest& r, Algorithm algorithm, std::uint64_t k) {
  const std::uint64_t groups = r.groups.size();
  const std::uint64_t n = r.elements_per_replica;
  const bool whole_broadcast = r.op == CollectiveOp::Broadcast && algorithm == Algorithm::Direct;
  std::uint64_t cell_elems = ceil_div(n, k);
  if (r.op == CollectiveOp::AllGather || whole_broadcast) cell_elems = n;
  if (r.op == CollectiveOp::AllToAll) cell_elems = n / k;
  const Shape shape{r.topology.ipus_per_replica, detail::parts_of(algorithm)};
  const std::uint64_t atom = ceil_div(cell_elems, shape.ipus * shape.parts);
  if (nothing_to_move(r, k, atom)) return {};

  const std::uint64_t runs_total = groups * k;
  StepCount c;
  switch (r.op) {
    case CollectiveOp::AllToAll:
      c = {1, groups * k * (k - 1) * shape.ipus};
      break;
    case CollectiveOp::AllReduce:
      c += tier_phase(algorithm, k, runs_total, shape);
      c += tier_phase(algorithm, k, runs_total, shape);
      break;
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::AllGather:
      c += tier_phase(algorithm, k, runs_total, shape);
      break;
    case CollectiveOp::Broadcast:
      c += broadcast_step(groups, k, 1, shape);  // whole buffer, or the scatter of cells
      if (!whole_broadcast) c += tier_phase(algorithm, k, runs_total, shape);
      break;
  }
  return c;
}

/// Runs of the fragment of local index l in group `grp`'s ILD rings: the cells of the
/// members (g, l) over all g, merged where consecutive (detail::runs_of). AllReduce lays
/// them out contiguously (one run); ReduceScatter / AllGather use the members' ranks.
std::uint64_t ild_fragment_runs(const CollectiveRequest& r, const GroupIndex& index,
                                const IldStructure& s, std::size_t grp, std::uint32_t l) {
  if (r.op == CollectiveOp::AllReduce) return 1;
  std::vector<std::uint32_t> cells;
  cells.reserve(s.num_ilds);
  for (std::uint32_t g = 0; g < s.num_ilds; ++g) cells.push_back(index.rank_of[s.at(grp, g, l)]);
  std::sort(cells.begin(), cells.end());
  std::uint64_t runs = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i == 0 || cells[i] != cells[i - 1] + 1) ++runs;
  }
  return runs;
}

/// Runs of the fragment of member (b, d, l) in group `grp`'s leaf rings (the same for every
/// leaf b): the cells of the members (b', d, l) over all b', merged where consecutive.
std::uint64_t leaf_fragment_runs(const CollectiveRequest& r, const GroupIndex& index,
                                 const IldStructure& s, std::size_t grp, std::uint32_t l,
                                 std::uint32_t d, std::uint32_t D) {
  if (r.op == CollectiveOp::AllReduce) return 1;
  std::vector<std::uint32_t> cells;
  for (std::uint32_t g = d; g < s.num_ilds; g += D) cells.push_back(index.rank_of[s.at(grp, g, l)]);
  std::sort(cells.begin(), cells.end());
  std::uint64_t runs = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i == 0 || cells[i] != cells[i - 1] + 1) ++runs;
  }
  return runs;
}

/// build_hierarchical's phases: G x L ILD rings of k_l members, G x k_l GW rings of L.
StepCount count_hierarchical(const CollectiveRequest& r, const GroupIndex& index, std::uint64_t k) {
  const auto& topo = r.topology;
  const auto s = ild_structure(r.groups, topo.ipus_per_replica, topo.ild_size_ipus);
  if (!s) return {};  // unreachable: validate_request rejected it
  Schedule tiers;
  detail::choose_tier_methods(r, *s, tiers);
  const std::uint64_t groups = r.groups.size();
  const std::uint64_t L = s->num_ilds;
  const std::uint64_t kl = s->members_per_ild;
  const bool broadcast = r.op == CollectiveOp::Broadcast;
  const std::uint64_t n = r.elements_per_replica;
  const std::uint64_t cell_elems =
      (r.op == CollectiveOp::AllGather || broadcast) ? n : ceil_div(n, k);
  const Shape shape{topo.ipus_per_replica, std::lcm(detail::parts_of(tiers.ild_algorithm),
                                                    detail::parts_of(tiers.gw_algorithm))};
  if (nothing_to_move(r, k, ceil_div(cell_elems, shape.ipus * shape.parts))) return {};

  StepCount c;
  if (broadcast) {
    c += broadcast_step(groups, L, 1, shape);       // root to its peer in every other ILD
    c += broadcast_step(groups * L, kl, 1, shape);  // then inside every ILD
    return c;
  }
  std::uint64_t ild_runs = 0;
  for (std::size_t grp = 0; grp < s->members.size(); ++grp) {
    for (std::uint32_t l = 0; l < kl; ++l) ild_runs += ild_fragment_runs(r, index, *s, grp, l);
  }
  ild_runs *= L;  // every ILD ring of a group has the same fragments
  const std::uint64_t gw_runs = groups * kl * L;
  const StepCount ild = tier_phase(tiers.ild_algorithm, kl, ild_runs, shape);
  const std::uint64_t D = detail::leaf_block(r, *s);
  if (D != 0) {
    // Leaf tier: rings of D under each leaf; spine tier: rings of L / D across leaves.
    std::uint64_t leaf_runs = 0;
    for (std::size_t grp = 0; grp < s->members.size(); ++grp) {
      for (std::uint32_t l = 0; l < kl; ++l) {
        for (std::uint32_t d = 0; d < D; ++d) {
          leaf_runs += leaf_fragment_runs(r, index, *s, grp, l, d, static_cast<std::uint32_t>(D));
        }
      }
    }
    leaf_runs *= L / D;  // every leaf ring of a group has the same fragments
    const StepCount leaf = tier_phase(tiers.gw_algorithm, D, leaf_runs, shape);
    const StepCount spine = tier_phase(tiers.gw_algorithm, L / D, gw_runs, shape);
    const int passes = r.op == CollectiveOp::AllReduce ? 2 : 1;
    for (int i = 0; i < passes; ++i) {
      c += ild;
      c += leaf;
      c += spine;
    }
    return c;
  }
  const StepCount gw = tier_phase(tiers.gw_algorithm, L, gw_runs, shape);
  switch (r.op) {
    case CollectiveOp::AllReduce:
      c += ild;
      c += gw;
      c += gw;
      c += ild;
      break;
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::AllGather:
      c += ild;
      c += gw;
      break;
    default:
      break;  // AllToAll is never hierarchical; Broadcast handled above
  }
  return c;
}

}  // namespace

StepCount count_steps(const CollectiveRequest& request) {
  validate_request(request);
  const GroupIndex index = index_groups(request.groups);
  const Algorithm algorithm = select_algorithm(request);
  if (algorithm == Algorithm::Hierarchical) {
    return count_hierarchical(request, index, index.group_size);
  }
  return count_flat(request, algorithm, index.group_size);
}

}  // namespace ipusim::coll
