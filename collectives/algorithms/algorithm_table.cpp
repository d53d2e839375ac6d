// The collective-algorithm table (see algorithm_table.hpp).
#include "collectives/algorithms/algorithm_table.hpp"

#include <stdexcept>

namespace ipusim::coll {

const std::vector<AlgorithmInfo>& algorithm_table() {
  constexpr LaneRing P = LaneRing::Primary;
  constexpr LaneRing M = LaneRing::Mirrored;
  constexpr LaneHops All = LaneHops::All;
  // name, GCL name, what, needs, kind, parts, serpent rings, lanes, barley twist only,
  // all_to_all, best candidate
  static const std::vector<AlgorithmInfo> table = {
      {Algorithm::Auto,
       "auto",
       "auto",
       "GCL's choice: direct (GCL's broadcast method) for small messages on consecutive groups "
       "(up to the model's crossover for the op and whether the group lies on a ladder, a torus "
       "or several IPU-Link domains); above it hierarchical for groups spanning IPU-Link domains "
       "(a broadcast up to its own crossover); otherwise GCL's ring rules by size and ranks.",
       "",
       AlgorithmKind::Auto,
       1,
       false,
       {},
       false,
       true,
       false},
      {Algorithm::Auto,
       "best",
       "",
       "Simulates every algorithm that can run the request and plays the fastest; the report lists "
       "each candidate's time and how far auto is from it.",
       "one simulation per candidate (slower)",
       AlgorithmKind::Best,
       1,
       false,
       {},
       false,
       true,
       false},
      {Algorithm::Clockwise,
       "clockwise",
       "clockwise_ring",
       "One ring direction: N-1 reduce steps, then N-1 gather steps.",
       "",
       AlgorithmKind::Ring,
       1,
       false,
       {{P, +1, 0, All}},
       false,
       false,
       true},
      {Algorithm::Anticlockwise,
       "anticlockwise",
       "anticlockwise_ring",
       "The same ring, the other direction.",
       "",
       AlgorithmKind::Ring,
       1,
       false,
       {{P, -1, 0, All}},
       false,
       false,
       true},
      {Algorithm::BidirectionalPair,
       "bidirectional_pair",
       "bidirectional_ring_pair",
       "Half the data clockwise, half anticlockwise, at the same time: every link used both ways.",
       "",
       AlgorithmKind::Ring,
       2,
       false,
       {{P, +1, 0, All}, {P, -1, 1, All}},
       false,
       false,
       true},
      // Same data both ways; each fragment's chain is cut so the two halves of the ring (ceil
      // and floor of (N-1)/2 hops) meet at the owner.
      {Algorithm::MeetInTheMiddle,
       "meet_in_the_middle",
       "meet_in_middle_ring",
       "Each fragment travels half way round in each direction: about N/2 steps per phase, larger "
       "fragments; the last step uses one direction only.",
       "",
       AlgorithmKind::Ring,
       1,
       false,
       {{P, +1, 0, LaneHops::CeilHalf}, {P, -1, 0, LaneHops::FloorHalf}},
       false,
       false,
       true},
      {Algorithm::QuadDirectional,
       "quad_directional",
       "quad_directional_ring",
       "Four parts over two rings (serpent and mirrored serpent), both directions.",
       "--link-config barley_twist (a torus, 1 IPU per replica)",
       AlgorithmKind::Ring,
       4,
       true,
       {{P, +1, 0, All}, {P, -1, 1, All}, {M, +1, 2, All}, {M, -1, 3, All}},
       true,
       false,
       true},
      {Algorithm::Direct,
       "direct",
       "broadcast (closest)",
       "Every member sends each other member its piece in one step (AllReduce: a reduce-scatter "
       "step, then a gather step): the fewest syncs, the most link traffic; the only algorithm of "
       "all_to_all.",
       "",
       AlgorithmKind::Direct,
       1,
       false,
       {},
       false,
       true,
       true},
      {Algorithm::Hierarchical,
       "hierarchical",
       "",
       "Groups spanning IPU-Link domains: reduce-scatter inside each domain, all-reduce over "
       "GW-Links between domains, all-gather inside each domain (GCL's three-phase collectives).",
       "every group spans 2 or more IPU-Link domains with the same number of members in each "
       "(an error otherwise)",
       AlgorithmKind::Hierarchical,
       1,
       false,
       {},
       false,
       false,
       true},
  };
  return table;
}

const AlgorithmInfo& algorithm_info(Algorithm algorithm) {
  for (const AlgorithmInfo& a : algorithm_table()) {
    if (a.kind != AlgorithmKind::Best && a.algorithm == algorithm) return a;
  }
  throw std::logic_error("algorithm " + std::to_string(static_cast<int>(algorithm)) +
                         " has no row in the algorithm table");
}

std::vector<std::string> algorithm_name_list(bool with_best) {
  std::vector<std::string> out;
  for (const AlgorithmInfo& a : algorithm_table()) {
    if (with_best || a.kind != AlgorithmKind::Best) out.push_back(a.name);
  }
  return out;
}

std::string algorithm_names(const std::string& separator, bool with_best) {
  std::string out;
  for (const std::string& n : algorithm_name_list(with_best))
    out += (out.empty() ? "" : separator) + n;
  return out;
}

std::uint32_t lane_hops(LaneHops hops, std::uint32_t length) {
  const std::uint32_t full = length == 0 ? 0 : length - 1;
  switch (hops) {
    case LaneHops::All:
      return full;
    case LaneHops::CeilHalf:
      return (full + 1) / 2;
    case LaneHops::FloorHalf:
      return full / 2;
  }
  return full;
}

}  // namespace ipusim::coll
