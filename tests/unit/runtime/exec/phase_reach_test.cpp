// Reachable-op counts of a phase (runtime/exec/phase_reach.hpp), worked out by hand.
#include "runtime/exec/phase_reach.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace ipusim::rt;

TEST_CASE("phase reach: an op counts itself and each op waiting for it once", "[reach]") {
  // 0 -> 1 -> 3, 0 -> 2 -> 3 (a diamond: 3 is reached twice from 0 but counted once);
  // 4 -> 5 apart. Classes: 0, 3, 4 are class 1; 2 and 5 class 2; 1 neither.
  const std::vector<std::vector<std::size_t>> waiters{{1, 2}, {3}, {3}, {}, {5}, {}};
  const std::vector<std::uint8_t> cls{1, 0, 2, 1, 1, 2};
  const PhaseReach r = phase_reach(waiters, cls, 1 << 20);
  // From 0: {0, 1, 2, 3}: class 1 = {0, 3}, class 2 = {2}. From 1: {1, 3}. From 2: {2, 3}.
  CHECK(r.first == std::vector<std::uint32_t>{2, 1, 1, 1, 1, 0});
  CHECK(r.second == std::vector<std::uint32_t>{1, 0, 1, 0, 1, 1});
}

TEST_CASE("phase reach: sets wider than one 64-bit word split at the class boundary", "[reach]") {
  // A chain of 130 ops, i -> i + 1; ops 0..69 are class 1, 70..129 class 2. From op i the
  // chain reaches i..129: max(0, 70 - i) of class 1 and 130 - max(i, 70) of class 2.
  constexpr std::size_t n = 130;
  std::vector<std::vector<std::size_t>> waiters(n);
  std::vector<std::uint8_t> cls(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i + 1 < n) waiters[i] = {i + 1};
    cls[i] = i < 70 ? 1 : 2;
  }
  const PhaseReach r = phase_reach(waiters, cls, 1 << 20);
  REQUIRE(r.first.size() == n);
  CHECK(r.first[0] == 70);
  CHECK(r.second[0] == 60);
  CHECK(r.first[65] == 5);
  CHECK(r.second[65] == 60);
  CHECK(r.first[100] == 0);
  CHECK(r.second[100] == 30);
  CHECK(r.first[129] == 0);
  CHECK(r.second[129] == 1);
}

TEST_CASE("phase reach: no counts when the sets would exceed the byte limit", "[reach]") {
  // 130 ops x 3 words of 8 B = 3120 B > 3000.
  std::vector<std::vector<std::size_t>> waiters(130);
  const std::vector<std::uint8_t> cls(130, 1);
  CHECK(phase_reach(waiters, cls, 3000).first.empty());
  CHECK(phase_reach(waiters, cls, 3120).first.size() == 130);
}

TEST_CASE("phase reach: a phase without classed ops counts 0 everywhere", "[reach]") {
  const std::vector<std::vector<std::size_t>> waiters{{1}, {2}, {}};
  const PhaseReach r = phase_reach(waiters, {0, 0, 0}, 1 << 20);
  CHECK(r.first == std::vector<std::uint32_t>{0, 0, 0});
  CHECK(r.second == std::vector<std::uint32_t>{0, 0, 0});
}
