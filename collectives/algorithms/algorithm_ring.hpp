#pragma once
// Ring algorithm family: clockwise, anticlockwise, bidirectional pair, meet in the middle,
// quad-directional, expressed as "lanes" that run concurrently over ring sets.
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm_emit.hpp"

namespace ipusim::coll::detail {

/// One direction of one ring method over a set of rings and a range of layout parts. A lane
/// of `steps` hops: in reduce step s member u sends the fragment owned by u + d(steps-s+1)
/// to u + d; in gather step s it forwards the fragment owned by u - d(s-1).
struct Lane {
  const RingSet* rings = nullptr;
  int direction = +1;  ///< +1 clockwise (to ring index + 1), -1 anticlockwise
  std::uint32_t part_begin = 0;
  std::uint32_t part_count = 1;
  std::uint32_t steps = 0;
};

/// Direction parts a method needs: bidirectional pair 2, quad-directional 4, otherwise 1.
std::uint32_t parts_of(Algorithm algorithm);

/// Lanes of a ring method; `mirrored` is the second ring set (quad-directional only) and
/// `layout_parts` a multiple of parts_of(algorithm).
std::vector<Lane> ring_lanes(Algorithm algorithm, const RingSet& primary, const RingSet* mirrored,
                             std::uint32_t layout_parts);

/// Emits max(lane.steps) supersteps; reduce = true for a reduce-scatter, false for gather.
void emit_ring_phase(StepEmitter& emitter, const Layout& layout, const std::vector<Lane>& lanes,
                     bool reduce, const std::string& phase);

}  // namespace ipusim::coll::detail
