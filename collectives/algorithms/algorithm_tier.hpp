#pragma once
// One tier of a collective (a flat ring over a whole group, or the IPU-Link / GW-Link tier
// of the hierarchical algorithm): ring sets for the chosen method, and its
// reduce-scatter / all-gather phases for any ring method or direct.
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm_emit.hpp"

namespace ipusim::coll::detail {

/// Ring sets of a tier: `primary` in the tier's pattern (serpent for quad-directional) and,
/// for quad-directional only, `mirrored` in the mirrored serpent order.
struct TierRings {
  Algorithm algorithm = Algorithm::Clockwise;
  RingSet primary;
  RingSet mirrored;
};

/// Orders the rings (members given in position order) for `algorithm`.
TierRings make_tier_rings(const std::vector<std::vector<RingMember>>& rings_by_position,
                          Algorithm algorithm, RingPattern pattern);

/// Reduce-scatter over every ring of the tier: each member ends with its fragment reduced.
void emit_tier_reduce_scatter(StepEmitter& emitter, const Layout& layout, const TierRings& tier,
                              const std::string& phase);

/// All-gather over every ring of the tier: each member ends with every member's fragment.
void emit_tier_all_gather(StepEmitter& emitter, const Layout& layout, const TierRings& tier,
                          const std::string& phase);

}  // namespace ipusim::coll::detail
