#pragma once
// Ring orders as GCL builds them (reference §4.3, PLRC `createRing`).
//
// A pattern maps a ring index (position going clockwise round the ring) to the index of a
// member in the list of ring members sorted by physical position. For a group of
// consecutive replicas with one IPU each, "sorted by position" is the ladder order
// 0, 1, 2, ... (IPU 2k and 2k+1 share rung k), so Interleaved goes up the even rail and
// back down the odd one and every ring hop is one ladder link. For strided groups the same
// rule is applied to the members' order along the ladder (their sorted replica ids): on a
// line of members that gives hops of at most two member spacings and no long wrap-round.
#include <cstdint>
#include <vector>

#include "collectives/schedule/schedule.hpp"

namespace ipusim::coll {

/// Ring patterns (PLRC names; SerpentMirrored is the BarleyTwist second ring).
enum class RingPattern { Interleaved, Flat, Serpent, SerpentMirrored };

/// Ring index -> sorted-member index: Interleaved 0,2,4,6,7,5,3,1; Flat 0..n-1;
/// Serpent i ^ ((i >> 1) & 1) and mirrored i ^ ((i >> 1) & 1) ^ 1 (an index that would
/// fall outside 0..n-1 for odd n stays where it is, keeping the map a permutation).
std::vector<std::uint32_t> ring_pattern(std::uint32_t n, RingPattern pattern);

/// GCL's IPU-Link ring pattern: Serpent for BarleyTwist, Flat on a torus with more than one
/// IPU per replica, Interleaved otherwise (one IPU per replica, or the ladder).
RingPattern ild_ring_pattern(bool torus, std::uint32_t ipus_per_replica, LinkConfig config);

/// Replica ids in clockwise ring order: members sorted by position, then `pattern` applied.
std::vector<std::uint32_t> ring_order(std::vector<std::uint32_t> members, RingPattern pattern);

}  // namespace ipusim::coll
