// PopART conformance, reference §2.6–2.7: CBR layouts E26–E30 (derived from popart
// bb993085 collectivesx.cpp, grain 1) and splitRegions E31 (poplibs LargeSplitRegionsTest).
#include <catch2/catch.hpp>
#include <optional>
#include <vector>

#include "collectives/sharding/cbr.hpp"
#include "collectives/sharding/split_regions.hpp"

using namespace ipusim::coll;

namespace {

constexpr long long _ = -1;  // padding marker in the expected shards

struct Expected {
  TileMapping mapping;
  unsigned replicas;
  std::vector<std::uint64_t> padded;
  std::uint64_t shardElems;
  std::vector<Interval> slices;
  std::vector<std::vector<long long>> shards;
};

std::vector<long long> shardAsInts(const CollectiveBalancedReorder& cbr, unsigned r) {
  std::vector<long long> out;
  for (const auto& e : cbr.getReplicaShard(r)) out.push_back(e ? static_cast<long long>(*e) : _);
  return out;
}

void checkLayout(const Expected& x) {
  const CollectiveBalancedReorder cbr(x.mapping, x.replicas);
  CHECK(cbr.getNumReplicaElementsPerTile() == x.padded);
  CHECK(cbr.getTotalElementsPerReplica() == x.shardElems);
  CHECK(cbr.getNumRearrangedTensorElems() == x.replicas * x.shardElems);
  CHECK(cbr.getGatheredToRefSlices() == x.slices);
  for (unsigned r = 0; r < x.replicas; ++r) {
    INFO("replica " << r);
    CHECK(shardAsInts(cbr, r) == x.shards[r]);
  }
}

}  // namespace

TEST_CASE("E26 one tile holding 0..29, R = 4", "[conformance][E26]") {
  checkLayout({{{{0, 30}}},
               4,
               {8},
               8,
               {{0, 7}, {8, 16}, {16, 23}, {24, 32}},
               {{0, 1, 2, 3, 4, 5, 6, _},
                {7, 8, 9, 10, 11, 12, 13, 14},
                {15, 16, 17, 18, 19, 20, 21, _},
                {22, 23, 24, 25, 26, 27, 28, 29}}});
}

TEST_CASE("E27 tiles holding 0..9 and 10..15, R = 4", "[conformance][E27]") {
  checkLayout({{{{0, 10}}, {{10, 16}}},
               4,
               {3, 2},
               5,
               {{0, 2}, {5, 8}, {10, 12}, {15, 18}, {3, 5}, {8, 10}, {13, 15}},
               {{0, 1, _, 10, 11}, {2, 3, 4, 12, 13}, {5, 6, _, 14, 15}, {7, 8, 9, _, _}}});
}

TEST_CASE("E28 one tile holding 0..2, R = 4", "[conformance][E28]") {
  checkLayout({{{{0, 3}}}, 4, {1}, 1, {{0, 1}, {1, 2}, {2, 3}}, {{0}, {1}, {2}, {_}}});
}

TEST_CASE("E29 one tile holding element 0, R = 4", "[conformance][E29]") {
  checkLayout({{{{0, 1}}}, 4, {1}, 1, {{0, 1}}, {{0}, {_}, {_}, {_}}});
}

TEST_CASE("E30 one tile holding 0..15, R = 4: identity", "[conformance][E30]") {
  checkLayout({{{{0, 16}}},
               4,
               {4},
               4,
               {{0, 4}, {4, 8}, {8, 12}, {12, 16}},
               {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}});
}

TEST_CASE("E31 splitRegions of 1e8 elements into 6 never overflows", "[conformance][E31]") {
  const std::uint64_t n = 100000000;
  const auto parts = splitRegions({{0, n}}, 1, 6);
  REQUIRE(parts.size() == 6);
  // Hand-computed boundaries floor(v * 1e8 / 6).
  const std::vector<std::uint64_t> bounds = {0,        16666666, 33333333, 50000000,
                                             66666666, 83333333, 100000000};
  for (std::size_t v = 0; v < parts.size(); ++v) {
    REQUIRE(parts[v].size() == 1);
    CHECK(parts[v][0] == Interval{bounds[v], bounds[v + 1]});
    CHECK(parts[v][0].end <= n);
  }
}
