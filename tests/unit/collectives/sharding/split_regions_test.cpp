// poputil::splitRegions: the code's worked example (which differs from the poplibs
// comment), the balance property on random inputs, limits and overflow safety.
#include "collectives/sharding/split_regions.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

using namespace ipusim::coll;
using Partitions = std::vector<std::vector<Interval>>;

TEST_CASE("poplibs comment example, computed the way the code does it", "[cbr][split]") {
  // total 42, grain 4 -> 11 grains; min 6 elems -> 2 grains; max partitions 8.
  // maxGrains = max(ceil(11/8)=2, ceil(11/min(5,..))=ceil(11/5)=3) = 3 -> V = ceil(11/3) = 4;
  // grain bounds floor(v*11/4) = 0,2,5,8,11 -> element bounds 0,8,20,32,42.
  const auto parts = splitRegions({{0, 10}, {15, 20}, {33, 60}}, 4, 8, 6);
  const Partitions expected = {{{0, 8}}, {{8, 10}, {15, 20}, {33, 38}}, {{38, 50}}, {{50, 60}}};
  CHECK(parts == expected);
}

TEST_CASE("partition sizes are balanced, not 'full then remainder'", "[cbr][split]") {
  // 10 elements into 4: ceil(10/4) = 3 per partition max, V = 4, bounds 0,2,5,7,10.
  CHECK(splitRegions({{0, 10}}, 1, 4) == Partitions{{{0, 2}}, {{2, 5}}, {{5, 7}}, {{7, 10}}});
  // 6 elements into 4: max 2 per partition, V = 3.
  CHECK(splitRegions({{10, 16}}, 1, 4) == Partitions{{{10, 12}}, {{12, 14}}, {{14, 16}}});
  // Fewer elements than partitions.
  CHECK(splitRegions({{0, 3}}, 1, 4) == Partitions{{{0, 1}}, {{1, 2}}, {{2, 3}}});
  CHECK(splitRegions({}, 1, 4).empty());
  CHECK(splitRegions({{5, 5}}, 1, 4).empty());
}

TEST_CASE("random inputs: order kept, V minimal, sizes within one grain", "[cbr][split]") {
  std::mt19937_64 rng(20240601);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<Interval> regions;
    std::uint64_t pos = rng() % 5;
    const int numRegions = 1 + static_cast<int>(rng() % 5);
    for (int i = 0; i < numRegions; ++i) {
      const std::uint64_t len = rng() % 40;
      regions.push_back({pos, pos + len});
      pos += len + rng() % 3;  // gaps between regions are allowed
    }
    const std::uint64_t grain = 1 + rng() % 5;
    const unsigned maxParts = 1 + static_cast<unsigned>(rng() % 9);
    std::uint64_t total = 0;
    for (const auto& r : regions) total += r.size();
    const auto parts = splitRegions(regions, grain, maxParts);
    INFO("trial " << trial << " total " << total << " grain " << grain << " M " << maxParts);
    if (total == 0) {
      CHECK(parts.empty());
      continue;
    }
    const std::uint64_t grains = (total + grain - 1) / grain;
    const std::uint64_t maxPer = (grains + maxParts - 1) / maxParts;
    REQUIRE(parts.size() == (grains + maxPer - 1) / maxPer);
    REQUIRE(parts.size() <= maxParts);
    // Concatenated partitions reproduce the input elements in order.
    std::vector<std::uint64_t> in, out;
    for (const auto& r : regions)
      for (auto e = r.begin; e < r.end; ++e) in.push_back(e);
    std::uint64_t smallest = ~0ull, largest = 0;
    for (std::size_t v = 0; v < parts.size(); ++v) {
      std::uint64_t size = 0;
      for (const auto& iv : parts[v]) {
        REQUIRE(iv.size() > 0);
        for (auto e = iv.begin; e < iv.end; ++e) out.push_back(e);
        size += iv.size();
      }
      REQUIRE(size > 0);
      if (v + 1 < parts.size()) {
        REQUIRE(size % grain == 0);  // only the last partition may hold a partial grain
        smallest = std::min(smallest, size);
      }
      largest = std::max(largest, size);
    }
    REQUIRE(in == out);
    REQUIRE(largest <= maxPer * grain);
    if (parts.size() > 2) REQUIRE(largest - smallest <= grain);
  }
}

TEST_CASE("boundary arithmetic does not overflow 64 bits", "[cbr][split]") {
  const std::uint64_t n = 1ull << 62;  // 7 * 2^62 overflows a naive v * numGrains
  const auto parts = splitRegions({{0, n}}, 1, 7);
  REQUIRE(parts.size() == 7);
  std::uint64_t expectBegin = 0;
  for (const auto& p : parts) {
    REQUIRE(p.size() == 1);
    CHECK(p[0].begin == expectBegin);
    CHECK(p[0].end <= n);
    expectBegin = p[0].end;
  }
  CHECK(expectBegin == n);
  CHECK(parts[0][0].end == n / 7);  // floor(2^62 / 7)
}

TEST_CASE("limits: max elements per region and per partition", "[cbr][split]") {
  // Regions cut into pieces of at most 3 (whole grains of 1).
  CHECK(splitRegions({{0, 8}}, 1, 1, 0, 100, 3) == Partitions{{{0, 3}, {3, 6}, {6, 8}}});
  // At most 2 elements per partition -> more partitions than requested, as in poplibs.
  CHECK(splitRegions({{0, 6}}, 1, 2, 0, 2) == Partitions{{{0, 2}}, {{2, 4}}, {{4, 6}}});
  CHECK_THROWS_AS(splitRegions({{0, 6}}, 0, 2), std::invalid_argument);
  CHECK_THROWS_AS(splitRegions({{0, 6}}, 1, 0), std::invalid_argument);
  CHECK_THROWS_AS(splitRegions({{0, 6}}, 4, 2, 0, 3), std::invalid_argument);
}
