// Per-tile exchange load of a sharded collective with and without CBR (used by the
// runtime to cost the tile-level exchange). Values are hand-worked.
#include <catch2/catch.hpp>
#include <vector>

#include "collectives/sharding/cbr.hpp"

using namespace ipusim::coll;
using Loads = std::vector<std::vector<std::uint64_t>>;

TEST_CASE("unbalanced mapping: CBR lowers the per-tile per-shard maximum", "[cbr][load]") {
  // Tile 0 [0,12), tile 1 [12,16), 4 shards. Without CBR chunk = 4: replicas 0..2 read
  // only tile 0, replica 3 only tile 1. With CBR: P = [3, 1].
  const TileMapping mapping = {{{0, 12}}, {{12, 16}}};
  const auto without = tileShardLoadWithoutCbr(mapping, 4);
  const auto with = tileShardLoadWithCbr(mapping, 4);
  CHECK(without.elems == Loads{{4, 4, 4, 0}, {0, 0, 0, 4}});
  CHECK(with.elems == Loads{{3, 3, 3, 3}, {1, 1, 1, 1}});
  CHECK(without.maxElemsPerTilePerReplica() == 4);
  CHECK(with.maxElemsPerTilePerReplica() == 3);
  CHECK(without.maxElemsPerTilePerReplica() > with.maxElemsPerTilePerReplica());
  CHECK(without.maxElemsPerTile() == 12);
  CHECK(with.maxElemsPerTile() == 12);
}

TEST_CASE("E27 mapping and an interleaved mapping", "[cbr][load]") {
  const auto e27 = tileShardLoadWithoutCbr({{{0, 10}}, {{10, 16}}}, 4);
  CHECK(e27.elems == Loads{{4, 4, 2, 0}, {0, 0, 2, 4}});
  CHECK(tileShardLoadWithCbr({{{0, 10}}, {{10, 16}}}, 4).elems ==
        Loads{{3, 3, 3, 3}, {2, 2, 2, 2}});
  // Tile 0 [0,2)+[8,10), tile 1 [2,8), tile 2 [10,16); 2 shards, chunk 8.
  const TileMapping interleaved = {{{0, 2}, {8, 10}}, {{2, 8}}, {{10, 16}}};
  const auto without = tileShardLoadWithoutCbr(interleaved, 2);
  CHECK(without.elems == Loads{{2, 2}, {6, 0}, {0, 6}});
  const auto with = tileShardLoadWithCbr(interleaved, 2);
  CHECK(with.elems == Loads{{2, 2}, {3, 3}, {3, 3}});
  CHECK(without.maxElemsPerTilePerReplica() == 6);
  CHECK(with.maxElemsPerTilePerReplica() == 3);
}

TEST_CASE("end padding without CBR belongs to no tile", "[cbr][load]") {
  // 30 elements on one tile, 4 shards: chunk 8 -> 8, 8, 8, 6 real elements.
  CHECK(tileShardLoadWithoutCbr({{{0, 30}}}, 4).elems == Loads{{8, 8, 8, 6}});
  CHECK(tileShardLoadWithCbr({{{0, 30}}}, 4).elems == Loads{{8, 8, 8, 8}});
}
