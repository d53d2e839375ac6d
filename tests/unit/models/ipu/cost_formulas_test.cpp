// Exchange, compute and sync formulas; per-tile and aggregated exchange agreement.
#include <catch2/catch.hpp>
#include <cmath>

#include "models/ipu/compute.hpp"
#include "models/ipu/exchange.hpp"
#include "models/ipu/sync.hpp"
#include "models/network/routing.hpp"

using namespace ipusim;

TEST_CASE("external sync worked values of ipu_hardware.md section 3", "[sync]") {
  const std::uint32_t n[] = {2, 4, 8, 16, 32, 64};
  const std::uint64_t at_1325[] = {40, 80, 120, 199, 358, 676};
  const std::uint64_t at_185[] = {56, 111, 167, 278, 500, 944};
  for (int i = 0; i < 6; ++i) {
    CHECK(external_sync_cycles(15, 1.325, n[i]) == at_1325[i]);
    CHECK(external_sync_cycles(15, 1.85, n[i]) == at_185[i]);
  }
  CHECK(external_sync_cycles(15, 1.6, 2) == 48);  // exact product: no spurious round-up
}

TEST_CASE("sync model picks internal, external or GW-Link scope", "[sync]") {
  HwParams p = registry_hw_params();
  p.chip.clock_GHz = 1.325;             // the worked values below are at 1.325 GHz
  p.machine.gw_link_latency_ns = 2000;  // and a 2 us GW-Link
  p.system.num_ilds = 2;
  p.system.gw_topology = GwTopology::Ring;
  Topology t(p);
  SyncModel m(p, t);
  CHECK(m.cost({7}).scope == SyncScope::Internal);
  CHECK(m.cost({7}).cycles == p.chip.sync_internal_cycles);
  CHECK(m.cost_first(16).cycles == 199);
  CHECK(m.cost_first(16).scope == SyncScope::External);
  const SyncCost gw = m.cost({0, 64});
  CHECK(gw.scope == SyncScope::GwLink);
  CHECK(gw.cycles == 676 + static_cast<std::uint64_t>(std::ceil(2 * 2000 * 1.325)));
  CHECK(gw.ns == Approx(gw.cycles / 1.325));
}

TEST_CASE("per-tile and aggregated exchange agree on every named pattern", "[exchange]") {
  for (std::uint32_t st : {1u, 2u, 4u}) {
    for (std::uint32_t tiles_per_ipu : {7u, 8u, 1472u}) {
      ExchangeRates r{4.0, st, 100, 7.5, 16};
      for (auto pat : {ExchangePattern::Uniform, ExchangePattern::OneToAll,
                       ExchangePattern::AllToOne, ExchangePattern::AllGather}) {
        for (std::uint32_t n : {1u, 2u, 3u, 5u, tiles_per_ipu}) {
          if (n > tiles_per_ipu) continue;
          ExchangeSpec s;
          s.pattern = pat;
          s.bytes_per_tile = 1003;
          s.tiles = n;
          s.root_tile = n - 1;
          INFO("st " << st << " tiles " << tiles_per_ipu << " pattern " << to_string(pat) << " n "
                     << n);
          const auto per_tile =
              exchange_cycles_per_tile(r, expand_exchange(s, tiles_per_ipu), receives_same_data(s));
          CHECK(per_tile == exchange_cycles_aggregated(r, s, tiles_per_ipu));
        }
      }
    }
  }
}

TEST_CASE("exchange phase: the farthest word's flight hides under the busiest tile's transfer",
          "[exchange]") {
  // 4 B/cycle, fixed 20 cycles, 7.5 cycles per column, 16 columns (92 tiles each on 1472).
  const ExchangeRates r{4.0, 2, 20, 7.5, 16};
  // Idle, one word 6 columns away: 20 + ceil(7.5 x 6) + 1 = 20 + 45 + 1 = 66.
  CHECK(exchange_phase_cycles(r, 1, 6) == 66);
  // Destinations not listed: the whole chip, 15 columns: 20 + ceil(112.5) + 1 = 134.
  CHECK(exchange_phase_cycles(r, 1, -1) == 134);
  CHECK(exchange_phase_cycles(r, 100, 15) == 134);
  // Contention at a port (a gather's root receiving 1471 words) outlasts the flight: 20 + 1471.
  CHECK(exchange_phase_cycles(r, 1471, 15) == 1491);
  // Same column: the word's own cycle.
  CHECK(exchange_phase_cycles(r, 1, 0) == 21);
  CHECK(tile_column(91, 1472, 16) == 0);
  CHECK(tile_column(92, 1472, 16) == 1);
  CHECK(tile_column(601, 1216, 16) == 7);  // GC2: 76 tiles a column
  // A training phase (uniform, 4 B per tile, no destinations): both fidelities give 134.
  ExchangeSpec u;
  u.bytes_per_tile = 4;
  CHECK(exchange_cycles_aggregated(r, u, 1472) == 134);
  CHECK(exchange_cycles_per_tile(r, expand_exchange(u, 1472), false) == 134);
  u.span_columns = 2;  // listed: 20 + max(1, 15 + 1)
  CHECK(exchange_cycles_aggregated(r, u, 1472) == 36);
}

TEST_CASE("exchange spec errors name the problem", "[exchange]") {
  ExchangeSpec s;
  s.pattern = ExchangePattern::AllToOne;
  s.tiles = 10;
  s.root_tile = 10;
  CHECK_THROWS_WITH(expand_exchange(s, 1472), Catch::Contains("root_tile 10"));
  s.tiles = 2000;
  CHECK_THROWS_WITH(exchange_totals(s, 1472), Catch::Contains("1472 tiles"));
}

TEST_CASE("compute cycles by dtype and unit", "[compute]") {
  ChipParams c = registry_hw_params().chip;
  c.amp_efficiency = 1.0;
  ComputeSpec s;
  s.flops = 1472.0 * 128 * 10;
  CHECK(compute_cycles(c, s) == 10 + c.op_overhead_cycles);
  s.dtype = ComputeDType::Float32;
  CHECK(compute_cycles(c, s) == 40 + c.op_overhead_cycles);
  s.dtype = ComputeDType::Float16_32;
  CHECK(compute_cycles(c, s) == 20 + c.op_overhead_cycles);
  s.unit = ComputeUnit::Vector;
  s.dtype = ComputeDType::Float16;
  // 1280 flops per tile, each an element of popops' ADD (3 cycles per 4 halves, 2 floats).
  CHECK(compute_cycles(c, s) == 960 + c.op_overhead_cycles);
  s.dtype = ComputeDType::Float32;
  CHECK(compute_cycles(c, s) == 1920 + c.op_overhead_cycles);
  ComputeSpec none;
  CHECK(compute_cycles(c, none) == 0);
}
