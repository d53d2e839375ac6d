// Oracle tests of on-chip exchange phases, compute steps and BSP syncs.
#include <catch2/catch.hpp>
#include <cmath>

#include "model_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {
std::uint64_t ceil_div(double a, double b) {
  return static_cast<std::uint64_t>(std::ceil(a / b - 1e-9));
}
}  // namespace

TEST_CASE("exchange phases follow the per-tile bound: uniform, all-to-one, supertile sharing",
          "[models][exchange]") {
  // Four tiles (two supertiles) each send 100 B and receive 800 B.
  const Json explicit_bytes = Json::array({{100, 800}, {100, 800}, {100, 800}, {100, 800}});
  Json steps = Json::array({
      {{"kind", "exchange"}, {"ipu", 0}, {"pattern", "uniform"}, {"bytes_per_tile", 1000}},
      {{"kind", "exchange"}, {"ipu", 1}, {"pattern", "all_to_one"}, {"bytes_per_tile", 100}},
      {{"kind", "exchange"}, {"ipu", 2}, {"pattern", "all_gather"}, {"bytes_per_tile", 8}},
      {{"kind", "exchange"},
       {"ipu", 3},
       {"pattern", "explicit"},
       {"per_tile_bytes", explicit_bytes},
       {"shared_receive", true}},
      {{"kind", "exchange"},
       {"ipu", 3},
       {"pattern", "explicit"},
       {"per_tile_bytes", explicit_bytes}},
      {{"kind", "exchange"}, {"ipu", 0}, {"pattern", "one_to_all"}, {"bytes_per_tile", 2000}},
  });
  ConfigDoc doc = preset_config("pod4", workload(steps));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double rate = resolved(doc, "/chip/exchange_bytes_per_cycle_per_tile");
  const double st = resolved(doc, "/chip/tiles_per_supertile");
  const double tiles = resolved(doc, "/chip/tiles");
  const std::uint64_t fixed =
      static_cast<std::uint64_t>(resolved(doc, "/chip/exchange_fixed_cycles"));
  const std::vector<std::uint64_t> expect = {
      fixed + ceil_div(1000, rate),                  // each tile sends and receives 1000 B
      fixed + ceil_div((tiles - 1) * 100, rate),     // the root receives from every other tile
      fixed + ceil_div((tiles - 1) * 8, rate * st),  // same data on both tiles of a supertile
      fixed + ceil_div(800, rate * st),              // explicit, shared: receive bound shrinks...
      fixed + ceil_div(800, rate),                   // ...but not without shared data
      fixed + ceil_div(2000, rate),                  // the broadcasting root sends at the tile rate
  };
  for (std::size_t i = 0; i < expect.size(); ++i) {
    INFO("step " << i);
    CHECK(b.step(i)["cycles"] == expect[i]);
    CHECK(std::fabs(b.duration(i) - expect[i] * cycle_ns(doc)) <= 0.002);
  }
}

TEST_CASE("per_tile and aggregated fidelity agree within 0.1% on balanced work",
          "[models][exchange]") {
  Json steps = Json::array({
      {{"kind", "exchange"}, {"ipu", 0}, {"pattern", "uniform"}, {"bytes_per_tile", 4096}},
      {{"kind", "exchange"},
       {"ipu", 1},
       {"pattern", "all_gather"},
       {"bytes_per_tile", 16},
       {"tiles", 1000}},
      {{"kind", "exchange"}, {"ipu", 2}, {"pattern", "one_to_all"}, {"bytes_per_tile", 4096}},
      {{"kind", "compute"}, {"ipu", 3}, {"flops", 1e9}, {"dtype", "float16"}},
      {{"kind", "compute"},
       {"ipu", 3},
       {"flops", 1e6},
       {"bytes", 10000000},
       {"unit", "vector"},
       {"dtype", "float32"}},
  });
  ConfigDoc per_tile = preset_config("pod4", workload(steps));
  Json agg_extra = workload(steps);
  agg_extra["sim"] = {{"fidelity", "aggregated"}};
  ConfigDoc aggregated = preset_config("pod4", agg_extra);
  Bench a = Bench::make(per_tile, "per_tile");
  Bench g = Bench::make(aggregated, "aggregated");
  sc_core::sc_start();
  REQUIRE(a.mb->finished());
  REQUIRE(g.mb->finished());
  CHECK(a.system->fidelity() == Fidelity::PerTile);
  CHECK(g.system->fidelity() == Fidelity::Aggregated);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    INFO("step " << i);
    CHECK(a.duration(i) > 0);
    CHECK(std::fabs(a.duration(i) - g.duration(i)) <= 1e-3 * a.duration(i));
  }
  SECTION("per_tile keeps each tile's bytes") {
    const auto& sent = a.system->ipu(0).tiles().bytes_sent();
    REQUIRE(sent.size() == static_cast<std::size_t>(resolved(per_tile, "/chip/tiles")));
    CHECK(sent.front() == 4096);
    CHECK(g.system->ipu(0).tiles().bytes_sent().empty());
  }
}

TEST_CASE("compute cycles = overhead + busiest tile's work / (peak x op-class efficiency)",
          "[models][compute]") {
  Json steps = Json::array({
      {{"kind", "compute"}, {"ipu", 0}, {"flops", 1472.0 * 128 * 1000}, {"dtype", "float16"}},
      {{"kind", "compute"}, {"ipu", 0}, {"flops", 32000}, {"dtype", "float32"}, {"tiles", 1}},
      {{"kind", "compute"},
       {"ipu", 0},
       {"flops", 0},
       {"bytes", 24000},
       {"tiles", 1},
       {"unit", "vector"}},
  });
  ConfigDoc doc = preset_config("pod4", workload(steps));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double tiles = resolved(doc, "/chip/tiles");
  // Microbenchmark compute steps carry no GEMM shape: the AMP formula without shape terms.
  const double amp = resolved(doc, "/chip/compute/amp_efficiency");
  const std::uint64_t ovh =
      static_cast<std::uint64_t>(resolved(doc, "/chip/compute/op_overhead_cycles"));
  CHECK(b.step(0)["cycles"] ==
        ceil_div(1472.0 * 128 * 1000 / tiles,
                 resolved(doc, "/chip/flops_per_cycle_per_tile/float16") * amp) +
            ovh);
  CHECK(b.step(1)["cycles"] ==
        ceil_div(32000, resolved(doc, "/chip/flops_per_cycle_per_tile/float32") * amp) + ovh);
  CHECK(b.step(2)["cycles"] ==
        ceil_div(24000, resolved(doc, "/chip/memory_bytes_per_cycle_per_tile")) + ovh);
}

TEST_CASE("external sync follows ceil(15 ns x f x hops x 2), hops = 1 + n/4, for 4, 16 and 64 IPUs",
          "[models][sync]") {
  Json steps = Json::array({
      {{"kind", "sync"}, {"ipus", 4}},
      {{"kind", "sync"}, {"ipus", 16}},
      {{"kind", "sync"}, {"ipus", 64}},
      {{"kind", "sync"}, {"ipus", {5}}},
  });
  Json extra = workload(steps);
  extra["sim"] = {{"fidelity", "aggregated"}};
  ConfigDoc doc = preset_config("pod64", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double f = resolved(doc, "/chip/clock_GHz");
  const double per_hop = resolved(doc, "/system/sync_ns_per_hop");
  const std::uint32_t n[] = {4, 16, 64};
  for (int i = 0; i < 3; ++i) {
    const auto oracle =
        static_cast<std::uint64_t>(std::ceil(per_hop * f * (1 + n[i] / 4) * 2 - 1e-9));
    CHECK(b.step(i)["cycles"] == oracle);
  }
  // The worked values of ipu_hardware.md section 3 at 1.325 GHz.
  CHECK(b.step(0)["cycles"] == 80);
  CHECK(b.step(1)["cycles"] == 199);
  CHECK(b.step(2)["cycles"] == 676);
  CHECK(b.step(3)["cycles"] ==
        static_cast<std::uint64_t>(resolved(doc, "/chip/sync_internal_cycles")));
}

TEST_CASE("sync across IPU-Link domains adds a GW-Link round trip to the 64-IPU value",
          "[models][sync]") {
  Json extra = workload(
      Json::array({{{"kind", "sync"}, {"ipus", {0, 64}}}, {{"kind", "sync"}, {"ipus", "all"}}}));
  extra["sim"] = {{"fidelity", "aggregated"}};
  ConfigDoc doc = preset_config("pod128", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double f = resolved(doc, "/chip/clock_GHz");
  const auto ild = static_cast<std::uint64_t>(
      std::ceil(resolved(doc, "/system/sync_ns_per_hop") * f * 17 * 2 - 1e-9));
  const auto gw = static_cast<std::uint64_t>(
      std::ceil(2 * resolved(doc, "/machine/gw_link/latency_ns") * f - 1e-9));
  CHECK(b.step(0)["cycles"] == ild + gw);
  CHECK(b.step(1)["cycles"] == ild + gw);
}
