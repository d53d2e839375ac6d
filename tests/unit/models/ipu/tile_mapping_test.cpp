// Poplar's linear tile mapping (grains, remainder on the first tiles) and the busiest-tile
// compute and IoTileCopy formulas built on it, against hand-worked cases.
#include "models/ipu/tile_mapping.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "models/ipu/compute.hpp"
#include "models/ipu/exchange.hpp"
#include "models/ipu/tile_array.hpp"

using namespace ipusim;

TEST_CASE(
    "linear mapping: 10 grains of 4 over 4 tiles give 3, 3, 2, 2 grains; the last grain partial") {
  // 38 elements = 9 full grains of 4 + one of 2: tiles 0 and 1 take 3 grains, 2 and 3 take 2.
  const LinearMapping m(38, 4, 4);
  CHECK(m.elements_on(0) == 12);
  CHECK(m.elements_on(1) == 12);
  CHECK(m.elements_on(2) == 8);
  CHECK(m.elements_on(3) == 6);  // grains 8 and 9, the last holding 2 elements
  CHECK(m.elements_on(4) == 0);
  CHECK(m.max_elements() == 12);
  CHECK_FALSE(m.balanced());  // ceil(38 / 4) = 10 < 12
}

TEST_CASE(
    "linear mapping: fewer grains than tiles leave the last tiles empty; grain 1 is an even "
    "split") {
  const LinearMapping few(24, 8, 1472);
  CHECK(few.elements_on(0) == 8);
  CHECK(few.elements_on(2) == 8);
  CHECK(few.elements_on(3) == 0);
  const LinearMapping even(1000, 1, 7);
  std::uint64_t sum = 0;
  for (std::uint32_t t = 0; t < 7; ++t) sum += even.elements_on(t);
  CHECK(sum == 1000);
  CHECK(even.max_elements() == 143);  // 1000 = 6 x 143 + 142
  CHECK(even.balanced());
}

TEST_CASE("compute with a share: the busiest tile's fraction replaces 1 / tiles") {
  ChipParams c = registry_hw_params().chip;
  c.tiles = 4;
  c.op_overhead_cycles = 10;
  c.vector_flops_per_cycle_fp16 = 4;
  c.memory_bytes_per_cycle_per_tile = 1e9;  // flop-bound
  ComputeSpec s;
  s.flops = 4000;
  s.unit = ComputeUnit::Vector;
  s.dtype = ComputeDType::Float16;
  // Balanced: 1000 flops per tile x 0.75 (popops' ADD per half) = 750 cycles + 10.
  CHECK(compute_cycles(c, s) == 760);
  // Busiest tile holds 12 of 38 elements: 4000 x 12 / 38 = 1263.16 flops -> ceil(947.4) + 10.
  CHECK(compute_cycles_with_share(c, s, 12.0 / 38.0) == 958);
}

TEST_CASE(
    "per_tile fidelity: an unevenly mapped output slows the step by the busiest tile's extra "
    "grain") {
  ChipParams c = registry_hw_params().chip;
  c.tiles = 4;
  c.op_overhead_cycles = 10;
  c.vector_flops_per_cycle_fp16 = 4;
  c.memory_bytes_per_cycle_per_tile = 1e9;
  ComputeSpec s;
  s.flops = 4000;
  s.unit = ComputeUnit::Vector;
  s.dtype = ComputeDType::Float16;
  s.mapped_bytes = 38;
  s.grain_bytes = 4;
  TileArray per_tile(c, Fidelity::PerTile), aggregated(c, Fidelity::Aggregated);
  CHECK(aggregated.compute(s) == 760);  // aggregated ignores the mapping
  CHECK(per_tile.compute(s) == 958);
  // Tile 3 holds 6 of 38: 4000 x 6 / 38 = 631.6 flops -> ceil(631.6 x 0.75 = 473.7) + 10 = 484.
  CHECK(per_tile.compute_cycles()[3] == 484);
  s.mapped_bytes = 40;  // 10 grains: 3, 3, 2, 2 grains: still one grain over ceil(40 / 4)
  CHECK(per_tile.compute(s) == 10 + 900);
  s.mapped_bytes = 32;  // 8 grains, 2 per tile: balanced, the aggregated formula
  CHECK(per_tile.compute(s) == compute_cycles(c, s));
}

TEST_CASE(
    "IoTileCopy: aggregated over the smaller tile set; per_tile bounded by the busiest tile") {
  ChipParams c = registry_hw_params().chip;
  c.tiles = 8;
  c.exchange_bytes_per_cycle_per_tile = 4;
  c.exchange_fixed_cycles = 100;
  // 2 IO tiles, 6 compute tiles, 1000 bytes: aggregated ceil(1000 / (2 x 4)) = 125 + 100.
  TileArray agg(c, Fidelity::Aggregated), pt(c, Fidelity::PerTile);
  CHECK(agg.io_copy(1000, 2, true, 8) == 225);
  // per_tile, grain 8: 125 grains over 2 IO tiles = 63 and 62 grains: 504 bytes on IO tile 0
  // -> ceil(504 / 4) = 126 + 100; compute side 21 grains = 168 bytes is not the bound.
  CHECK(pt.io_copy(1000, 2, true, 8) == 226);
  CHECK(pt.bytes_sent()[6] == 504);
  CHECK(pt.bytes_sent()[7] == 496);
  CHECK(pt.bytes_received()[0] == 168);
  CHECK(pt.total_bytes_sent() == 1000);
  // 1024 bytes = 128 grains: 64 per IO tile, balanced: the aggregated closed form.
  CHECK(pt.io_copy(1024, 2, true, 8) == io_copy_cycles(ExchangeRates::from(c), 1024, 2, 6));
}

TEST_CASE("LinearMapping runs cover every tile exactly as elements_on says", "[tile_mapping]") {
  // Exhaustive over small shapes: partial last grains, fewer grains than tiles, exact fits.
  for (std::uint64_t elements = 0; elements <= 40; ++elements) {
    for (std::uint64_t grain = 1; grain <= 5; ++grain) {
      for (std::uint32_t tiles = 1; tiles <= 9; ++tiles) {
        const LinearMapping m(elements, grain, tiles);
        std::vector<std::uint64_t> from_runs(tiles, 0);
        m.for_each_run([&](std::uint32_t first, std::uint32_t end, std::uint64_t e) {
          for (std::uint32_t i = first; i < end; ++i) from_runs[i] += e;
        });
        for (std::uint32_t i = 0; i < tiles; ++i) {
          INFO("elements " << elements << " grain " << grain << " tiles " << tiles << " tile "
                           << i);
          REQUIRE(from_runs[i] == m.elements_on(i));
        }
      }
    }
  }
}

TEST_CASE(
    "a recorded run of compute steps applied to another tile array equals the steps themselves",
    "[tile_mapping]") {
  ChipParams c = registry_hw_params().chip;
  c.tiles = 4;
  c.amp_flops_per_cycle_fp16 = 4;
  c.amp_efficiency = 1.0;
  c.op_overhead_cycles = 10;
  ComputeSpec a;
  a.flops = 4000;
  a.dtype = ComputeDType::Float16;
  a.mapped_bytes = 38;  // unbalanced: tile 3 holds less (as in the case above)
  a.grain_bytes = 4;
  ComputeSpec b = a;
  b.flops = 1000;
  b.mapped_bytes = 0;  // even split
  b.bytes = 6;         // 2, 2, 1, 1 bytes: two tile loads
  for (const Fidelity f : {Fidelity::PerTile, Fidelity::Aggregated}) {
    TileArray direct(c, f), recorded(c, f), replayed(c, f);
    const std::uint64_t cycles = direct.compute(a) + direct.compute(b) + direct.compute(a);
    TileArray::ComputeEffect effect;
    recorded.record_computes(&effect);
    CHECK(recorded.compute(a) + recorded.compute(b) + recorded.compute(a) == cycles);
    recorded.record_computes(nullptr);
    CHECK(effect.computes == 3);
    replayed.apply(effect);
    replayed.apply(effect);
    Json twice;
    direct.compute(a);
    direct.compute(b);
    direct.compute(a);
    direct.collect_stats(twice);
    Json got;
    replayed.collect_stats(got);
    CHECK(got == twice);
    CHECK(replayed.compute_cycles() == direct.compute_cycles());
    if (f == Fidelity::PerTile) {
      // Tile 3: 168 cycles for each `a` (case above) and 1000 / 4 / 4 = 62.5 -> 63 + 10 for `b`.
      CHECK(replayed.compute_cycles()[3] == 2 * (168 + 168 + 73));
    }
  }
}
