// CollectiveBalancedReorder and its host rearrangement: structural properties on random
// (seeded) tile mappings, byte-exact host round trips for several element sizes, zero
// padding, the grain > 1 extension and input validation.
#include "collectives/sharding/cbr.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <vector>

using namespace ipusim::coll;
using Catch::Matchers::Contains;

namespace {

// Cuts [0, n) into random pieces and deals them to random tiles (tiles may hold several
// non-adjacent pieces, listed in random order, or nothing).
TileMapping randomMapping(std::mt19937_64& rng, std::uint64_t n, std::size_t numTiles) {
  TileMapping mapping(numTiles);
  std::uint64_t pos = 0;
  while (pos < n) {
    const std::uint64_t len = std::min<std::uint64_t>(n - pos, 1 + rng() % 12);
    mapping[rng() % numTiles].push_back({pos, pos + len});
    pos += len;
  }
  for (auto& tile : mapping) std::shuffle(tile.begin(), tile.end(), rng);
  return mapping;
}

std::vector<std::uint64_t> tileOf(const TileMapping& mapping, std::uint64_t n) {
  std::vector<std::uint64_t> owner(n);
  for (std::size_t t = 0; t < mapping.size(); ++t)
    for (const auto& iv : mapping[t])
      for (auto e = iv.begin; e < iv.end; ++e) owner[e] = t;
  return owner;
}

}  // namespace

TEST_CASE("random mappings: balanced, tile-local, every element exactly once", "[cbr]") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const std::uint64_t n = rng() % 200;
    const std::size_t numTiles = 1 + rng() % 8;
    const unsigned R = 1 + static_cast<unsigned>(rng() % 8);
    const std::uint64_t grain = 1 + rng() % 4;
    const TileMapping mapping = randomMapping(rng, n, numTiles);
    const CollectiveBalancedReorder cbr(mapping, R, grain);
    INFO("trial " << trial << " n " << n << " tiles " << numTiles << " R " << R << " grain "
                  << grain);
    const auto owner = tileOf(mapping, n);
    const auto& P = cbr.getNumReplicaElementsPerTile();
    const auto& base = cbr.getTileOffsetsInReplicaSlice();
    std::uint64_t S = 0;
    for (std::size_t t = 0; t < numTiles; ++t) {
      const std::uint64_t nt = cbr.getElementsPerTile()[t];
      // P_t = ceil(n_t / (R*g)) * g, computed here by search rather than the formula.
      std::uint64_t expectP = 0;
      while (expectP * R < nt) expectP += grain;
      REQUIRE(P[t] == expectP);
      REQUIRE(base[t] == S);
      S += P[t];
    }
    REQUIRE(cbr.getTotalElementsPerReplica() == S);
    REQUIRE(cbr.getNumRearrangedTensorElems() == R * S);
    REQUIRE(S >= (n + R - 1) / R);

    std::vector<int> seen(n, 0);
    std::uint64_t totalReal = 0;
    for (unsigned r = 0; r < R; ++r) {
      const auto shard = cbr.getReplicaShard(r);
      REQUIRE(shard.size() == S);
      std::uint64_t real = 0;
      for (std::size_t t = 0; t < numTiles; ++t) {
        std::uint64_t prev = 0;
        bool first = true;
        std::uint64_t inBlock = 0;
        bool paddingStarted = false;
        for (std::uint64_t j = base[t]; j < base[t] + P[t]; ++j) {
          if (!shard[j]) {
            paddingStarted = true;
            continue;
          }
          REQUIRE_FALSE(paddingStarted);         // padding only at the block's tail
          REQUIRE(owner[*shard[j]] == t);        // tile-local
          REQUIRE((first || *shard[j] > prev));  // the tile's order is kept
          prev = *shard[j];
          first = false;
          ++seen[*shard[j]];
          ++inBlock;
        }
        REQUIRE(inBlock == cbr.getRealElemsPerTilePerReplica()[t][r]);
        real += inBlock;
      }
      REQUIRE(real == cbr.getNumRealElemsOnReplica(r));
      totalReal += real;
    }
    REQUIRE(totalReal == n);
    REQUIRE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
    // Slices come in reference order and cover the reference exactly.
    std::uint64_t refCovered = 0;
    for (const auto& s : cbr.getGatheredToRefSlices()) {
      REQUIRE(s.size() > 0);
      REQUIRE(s.end <= R * S);
      refCovered += s.size();
    }
    REQUIRE(refCovered == n);
    REQUIRE(cbr.getHostRearrangement().getNumReferenceElems() == n);
  }
}

TEST_CASE("host round trip for element sizes 1, 2, 4, 8 with zero padding", "[cbr]") {
  std::mt19937_64 rng(12345);
  for (std::size_t elemBytes : {1u, 2u, 4u, 8u}) {
    for (int trial = 0; trial < 100; ++trial) {
      const std::uint64_t n = 1 + rng() % 150;
      const unsigned R = 1 + static_cast<unsigned>(rng() % 8);
      const std::uint64_t grain = 1 + rng() % 3;
      const TileMapping mapping = randomMapping(rng, n, 1 + rng() % 6);
      const CollectiveBalancedReorder cbr(mapping, R, grain);
      const auto& host = cbr.getHostRearrangement();
      INFO("elemBytes " << elemBytes << " trial " << trial);

      std::vector<std::uint8_t> ref(n * elemBytes);
      for (auto& b : ref) b = static_cast<std::uint8_t>(1 + rng() % 255);  // never zero
      std::vector<std::uint8_t> gathered(host.getNumRearrangedTensorElems() * elemBytes, 0xAB);
      host.rearrangeForCollective(ref.data(), gathered.data(), elemBytes);

      // Real elements sit where getReplicaShard says; every padding byte is zero.
      const std::uint64_t S = cbr.getTotalElementsPerReplica();
      for (unsigned r = 0; r < R; ++r) {
        const auto shard = cbr.getReplicaShard(r);
        for (std::uint64_t j = 0; j < S; ++j) {
          const std::uint8_t* cell = gathered.data() + (r * S + j) * elemBytes;
          if (shard[j]) {
            REQUIRE(std::memcmp(cell, ref.data() + *shard[j] * elemBytes, elemBytes) == 0);
          } else {
            for (std::size_t b = 0; b < elemBytes; ++b) REQUIRE(cell[b] == 0);
          }
        }
      }
      std::vector<std::uint8_t> back(ref.size(), 0);
      host.undoRearrangeForCollective(gathered.data(), back.data(), elemBytes);
      REQUIRE(back == ref);
    }
  }
}

TEST_CASE("raw rearrange never writes padding", "[cbr]") {
  const CollectiveBalancedReorder cbr({{{0, 30}}}, 4);  // padding at positions 7 and 23
  std::vector<std::uint16_t> ref(30, 1);
  std::vector<std::uint16_t> gathered(32, 0xEEEE);
  cbr.getHostRearrangement().rearrange(ref.data(), gathered.data(), 2, true);
  CHECK(gathered[7] == 0xEEEE);
  CHECK(gathered[23] == 0xEEEE);
  CHECK(gathered[0] == 1);
}

TEST_CASE("typed helpers check buffer lengths", "[cbr]") {
  const CollectiveBalancedReorder cbr({{{0, 3}}}, 4);
  const auto& host = cbr.getHostRearrangement();
  CHECK(host.rearrangeForCollective(std::vector<double>{1.5, 2.5, 3.5}) ==
        std::vector<double>{1.5, 2.5, 3.5, 0.0});
  CHECK_THROWS_AS(host.rearrangeForCollective(std::vector<double>{1.0}), CbrError);
  CHECK_THROWS_AS(host.undoRearrangeForCollective(std::vector<double>{1.0}), CbrError);
}

TEST_CASE("grain > 1: blocks and partitions in whole grains", "[cbr]") {
  // One tile [0,10), R = 2, grain 4: P = ceil(10/8)*4 = 8; 3 grains split 1 + 2
  // (bounds floor(v*3/2) = 0,1,3) -> replica 0 gets [0,4), replica 1 gets [4,10).
  const CollectiveBalancedReorder cbr({{{0, 10}}}, 2, 4);
  CHECK(cbr.getNumReplicaElementsPerTile() == std::vector<std::uint64_t>{8});
  CHECK(cbr.getTotalElementsPerReplica() == 8);
  CHECK(cbr.getGatheredToRefSlices() == std::vector<Interval>{{0, 4}, {8, 14}});
  CHECK(cbr.getNumRealElemsOnReplica(0) == 4);
  CHECK(cbr.getNumRealElemsOnReplica(1) == 6);
}

TEST_CASE("non-contiguous tile contents are ordered by reference index", "[cbr]") {
  // Tile 0 holds [8,10) and [0,2) (listed out of order), tile 1 holds [2,8); R = 2.
  // Tile 0: regions [0,2),[8,10) -> partitions {[0,2)}, {[8,10)}; P0 = 2.
  // Tile 1: [2,8) -> [2,5), [5,8); P1 = 3. S = 5.
  const CollectiveBalancedReorder cbr({{{8, 10}, {0, 2}}, {{2, 8}}}, 2);
  CHECK(cbr.getNumReplicaElementsPerTile() == std::vector<std::uint64_t>{2, 3});
  CHECK(cbr.getGatheredToRefSlices() == std::vector<Interval>{{0, 2}, {2, 5}, {7, 10}, {5, 7}});
  const auto shard1 = cbr.getReplicaShard(1);
  CHECK(*shard1[0] == 8);
  CHECK(*shard1[1] == 9);
  CHECK(*shard1[2] == 5);
}

TEST_CASE("invalid CBR inputs", "[cbr]") {
  CHECK_THROWS_WITH(CollectiveBalancedReorder({{{0, 5}}, {{4, 8}}}, 2),
                    Contains("mapped to more than one tile"));
  CHECK_THROWS_WITH(CollectiveBalancedReorder({{{0, 5}}, {{6, 8}}}, 2),
                    Contains("elements [5,6) are not mapped"));
  CHECK_THROWS_WITH(CollectiveBalancedReorder({{{0, 5}}}, 0), Contains("replication factor"));
  CHECK_THROWS_WITH(CollectiveBalancedReorder({{{0, 5}}}, 2, 0), Contains("grain"));
  CHECK_THROWS_AS(CollectiveBalancedReorder({{{0, 5}}}, 2).getReplicaShard(2), CbrError);
  // An empty tensor is a valid, empty layout.
  const CollectiveBalancedReorder empty(TileMapping{{}, {}}, 4);
  CHECK(empty.getTotalElementsPerReplica() == 0);
  CHECK(empty.getGatheredToRefSlices().empty());
}
