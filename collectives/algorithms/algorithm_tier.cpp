#include "collectives/algorithms/algorithm_tier.hpp"

#include "collectives/algorithms/algorithm_direct.hpp"
#include "collectives/algorithms/algorithm_ring.hpp"
#include "collectives/algorithms/algorithm_table.hpp"

namespace ipusim::coll::detail {

TierRings make_tier_rings(const std::vector<std::vector<RingMember>>& rings_by_position,
                          Algorithm algorithm, RingPattern pattern) {
  TierRings tier;
  tier.algorithm = algorithm;
  if (algorithm_info(algorithm).serpent_rings) {
    tier.primary = make_ring_set(rings_by_position, RingPattern::Serpent);
    tier.mirrored = make_ring_set(rings_by_position, RingPattern::SerpentMirrored);
  } else {
    tier.primary = make_ring_set(rings_by_position, pattern);
  }
  return tier;
}

void emit_tier_reduce_scatter(StepEmitter& emitter, const Layout& layout, const TierRings& tier,
                              const std::string& phase) {
  if (tier.primary.length <= 1) return;
  if (algorithm_info(tier.algorithm).kind == AlgorithmKind::Direct) {
    emit_direct_reduce_scatter(emitter, layout, tier.primary, phase);
    return;
  }
  const auto lanes = ring_lanes(tier.algorithm, tier.primary, &tier.mirrored, layout.parts);
  emit_ring_phase(emitter, layout, lanes, true, phase);
}

void emit_tier_all_gather(StepEmitter& emitter, const Layout& layout, const TierRings& tier,
                          const std::string& phase) {
  if (tier.primary.length <= 1) return;
  if (algorithm_info(tier.algorithm).kind == AlgorithmKind::Direct) {
    emit_direct_all_gather(emitter, layout, tier.primary, phase);
    return;
  }
  const auto lanes = ring_lanes(tier.algorithm, tier.primary, &tier.mirrored, layout.parts);
  emit_ring_phase(emitter, layout, lanes, false, phase);
}

}  // namespace ipusim::coll::detail
