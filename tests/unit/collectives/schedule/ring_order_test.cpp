// Ring orders (reference §4.3, PLRC createRing examples for 8 ranks).
#include "collectives/schedule/ring_order.hpp"

#include <catch2/catch.hpp>

using namespace ipusim::coll;
using V = std::vector<std::uint32_t>;

TEST_CASE("ring patterns for 8 ranks match the reference examples", "[ring_order]") {
  CHECK(ring_pattern(8, RingPattern::Interleaved) == V{0, 2, 4, 6, 7, 5, 3, 1});
  CHECK(ring_pattern(8, RingPattern::Flat) == V{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(ring_pattern(8, RingPattern::Serpent) == V{0, 1, 3, 2, 4, 5, 7, 6});
  CHECK(ring_pattern(8, RingPattern::SerpentMirrored) == V{1, 0, 2, 3, 5, 4, 6, 7});
}

TEST_CASE("interleaved order for odd and tiny rings: evens up, odds down", "[ring_order]") {
  CHECK(ring_pattern(5, RingPattern::Interleaved) == V{0, 2, 4, 3, 1});
  CHECK(ring_pattern(2, RingPattern::Interleaved) == V{0, 1});
  CHECK(ring_pattern(1, RingPattern::Interleaved) == V{0});
  CHECK(ring_pattern(0, RingPattern::Interleaved).empty());
}

TEST_CASE("serpent orders stay permutations for odd rings", "[ring_order]") {
  CHECK(ring_pattern(3, RingPattern::Serpent) == V{0, 1, 2});
  CHECK(ring_pattern(3, RingPattern::SerpentMirrored) == V{1, 0, 2});
  CHECK(ring_pattern(5, RingPattern::SerpentMirrored) == V{1, 0, 2, 3, 4});
}

TEST_CASE("GCL picks the pattern from topology and link configuration", "[ring_order]") {
  CHECK(ild_ring_pattern(false, 1, LinkConfig::Default) == RingPattern::Interleaved);
  CHECK(ild_ring_pattern(true, 1, LinkConfig::Default) == RingPattern::Interleaved);
  CHECK(ild_ring_pattern(false, 4, LinkConfig::Default) == RingPattern::Interleaved);
  CHECK(ild_ring_pattern(true, 4, LinkConfig::Default) == RingPattern::Flat);
  CHECK(ild_ring_pattern(true, 2, LinkConfig::SlidingWindow) == RingPattern::Flat);
  CHECK(ild_ring_pattern(true, 1, LinkConfig::BarleyTwist) == RingPattern::Serpent);
}

TEST_CASE("ring_order sorts members by position before applying the pattern", "[ring_order]") {
  // Group order 7..0: still ladder order 0,2,4,6,7,5,3,1.
  CHECK(ring_order({7, 6, 5, 4, 3, 2, 1, 0}, RingPattern::Interleaved) ==
        V{0, 2, 4, 6, 7, 5, 3, 1});
  // A stride-2 group (all on the odd rail): up every other member, back down the rest.
  CHECK(ring_order({1, 3, 5, 7, 9, 11, 13, 15}, RingPattern::Interleaved) ==
        V{1, 5, 9, 13, 15, 11, 7, 3});
  CHECK(ring_order({12, 4, 8, 0}, RingPattern::Flat) == V{0, 4, 8, 12});
}
