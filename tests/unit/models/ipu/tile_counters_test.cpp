// TileCounters (difference-array range adds) against a hand-worked case and a plain vector.
#include "models/ipu/tile_counters.hpp"

#include <catch2/catch.hpp>
#include <vector>

using ipusim::TileCounters;

TEST_CASE("tile counters: range adds fold into per-tile values as worked by hand") {
  TileCounters c;
  c.assign(6);
  c.add_range(0, 4, 3);  // 3 3 3 3 0 0
  c.add_range(2, 6, 5);  // 3 3 8 8 5 5
  c.add_at(5, 1);        // 3 3 8 8 5 6
  c.add_range(4, 4, 9);  // empty range: nothing
  CHECK(c.values() == std::vector<std::uint64_t>{3, 3, 8, 8, 5, 6});
  // Adds after a read fold in on the next read.
  c.add_range(1, 2, 10);
  CHECK(c.values() == std::vector<std::uint64_t>{3, 13, 8, 8, 5, 6});
  TileCounters twin;
  twin.assign(6);
  twin.add_range(0, 6, 1);
  c.add(twin);
  CHECK(c.values() == std::vector<std::uint64_t>{4, 14, 9, 9, 6, 7});
}

TEST_CASE("tile counters: many overlapping range adds equal tile-by-tile addition") {
  const std::uint32_t n = 97;
  TileCounters c;
  c.assign(n);
  std::vector<std::uint64_t> plain(n, 0);
  std::uint64_t x = 12345;
  for (int k = 0; k < 500; ++k) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;  // a fixed LCG: deterministic
    const std::uint32_t a = static_cast<std::uint32_t>((x >> 33) % n);
    const std::uint32_t b = static_cast<std::uint32_t>((x >> 13) % (n + 1));
    const std::uint64_t v = (x >> 40) % 1000;
    const std::uint32_t first = a < b ? a : b, end = a < b ? b : a;
    c.add_range(first, end, v);
    for (std::uint32_t i = first; i < end; ++i) plain[i] += v;
    if (k % 97 == 0) CHECK(c.values() == plain);
  }
  CHECK(c.values() == plain);
}
