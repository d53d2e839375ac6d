#pragma once
// Direct algorithm family: every member talks straight to every other member in one step.
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm_emit.hpp"

namespace ipusim::coll::detail {

/// One reduce step: every member sends each other member's fragment to that member.
void emit_direct_reduce_scatter(StepEmitter& emitter, const Layout& layout, const RingSet& rings,
                                const std::string& phase);

/// One copy step: every member sends its own fragment to every other member.
void emit_direct_all_gather(StepEmitter& emitter, const Layout& layout, const RingSet& rings,
                            const std::string& phase);

/// One copy step from each ring's root slot: with `scatter` the root sends member v its
/// fragment, otherwise it sends every member the whole working buffer.
void emit_direct_broadcast(StepEmitter& emitter, const Layout& layout, const RingSet& rings,
                           const std::vector<std::uint32_t>& root_slot_per_ring, bool scatter,
                           const std::string& phase);

/// One copy step: rank i sends its cell j to rank j's cell i (groups in rank order).
void emit_direct_all_to_all(StepEmitter& emitter, const Layout& layout,
                            const std::vector<std::vector<std::uint32_t>>& groups,
                            const std::string& phase);

}  // namespace ipusim::coll::detail
