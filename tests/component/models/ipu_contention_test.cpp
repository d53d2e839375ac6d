// IPUs as contended resources (BSP): compute, exchange and sync steps issued together on one
// IPU run one after another on its compute tiles; steps on other IPUs and IO (network) steps
// overlap. Closed forms from the resolved chip parameters, one elaboration per TEST_CASE.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/component/models/model_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

constexpr double kFlops = 1e10;
constexpr std::uint64_t kBytesPerTile = 4096;

Json compute_step(std::uint32_t ipu, std::uint32_t tiles = 0) {
  return {{"kind", "compute"},  {"ipu", ipu},    {"flops", kFlops},
          {"dtype", "float16"}, {"unit", "amp"}, {"tiles", tiles}};
}

Json exchange_step(std::uint32_t ipu) {
  return {{"kind", "exchange"},
          {"ipu", ipu},
          {"pattern", "uniform"},
          {"bytes_per_tile", kBytesPerTile}};
}

Json concurrent(const Json& steps) {
  return Json::array({{{"kind", "concurrent"}, {"steps", steps}}});
}

/// Cycles of a 1e10-flop FP16 AMP step without a GEMM shape on `tiles` tiles:
/// overhead + ceil(flops / tiles / (AMP peak x efficiency)).
double compute_cycles_by_hand(const ConfigDoc& doc, double tiles) {
  const double peak = resolved(doc, "/chip/flops_per_cycle_per_tile/float16") *
                      resolved(doc, "/chip/compute/amp_efficiency");
  return resolved(doc, "/chip/compute/op_overhead_cycles") +
         std::ceil(kFlops / tiles / peak - 1e-9);
}

/// Cycles of a uniform exchange phase: fixed + bytes per tile / per-tile rate.
double exchange_cycles_by_hand(const ConfigDoc& doc) {
  return resolved(doc, "/chip/exchange_fixed_cycles") +
         std::ceil(kBytesPerTile / resolved(doc, "/chip/exchange_bytes_per_cycle_per_tile"));
}

}  // namespace

TEST_CASE(
    "two 1e10-flop compute steps and an exchange issued together on one IPU serialise: 2 C + X",
    "[microbenchmark][contention]") {
  ConfigDoc doc = preset_config(
      "pod4", workload(concurrent({compute_step(0), compute_step(0), exchange_step(0)})));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double cyc = cycle_ns(doc);
  const double C = compute_cycles_by_hand(doc, resolved(doc, "/chip/tiles")) * cyc;
  const double X = exchange_cycles_by_hand(doc) * cyc;
  REQUIRE(C > 1e4);  // tens of us: the serialisation is not lost in rounding
  CHECK(b.duration(0) == Approx(2 * C + X).margin(0.002));
  const Json kids = b.step(0)["steps"];
  CHECK(kids[0]["start_ns"].get<double>() == Approx(0.0).margin(0.002));
  CHECK(kids[1]["start_ns"].get<double>() == Approx(C).margin(0.002));
  CHECK(kids[2]["start_ns"].get<double>() == Approx(2 * C).margin(0.002));
  CHECK(kids[2]["duration_ns"].get<double>() == Approx(X).margin(0.002));
}

TEST_CASE("compute steps on two IPUs overlap: the group takes one C",
          "[microbenchmark][contention]") {
  ConfigDoc doc = preset_config("pod4", workload(concurrent({compute_step(0), compute_step(1)})));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double C = compute_cycles_by_hand(doc, resolved(doc, "/chip/tiles")) * cycle_ns(doc);
  CHECK(b.duration(0) == Approx(C).margin(0.002));
  CHECK(b.step(0)["steps"][1]["start_ns"].get<double>() == Approx(0.0).margin(0.002));
}

TEST_CASE("IO overlaps compute: a remote load next to a compute step on its IPU takes max(C, load)",
          "[microbenchmark][contention]") {
  const std::uint64_t bytes = 64ull << 20;
  Json steps =
      concurrent({compute_step(0), {{"kind", "remote_load"}, {"ipu", 0}, {"bytes", bytes}}});
  ConfigDoc doc = preset_config("pod4", workload(steps));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double C = compute_cycles_by_hand(doc, resolved(doc, "/chip/tiles")) * cycle_ns(doc);
  const Json load = b.step(0)["steps"][1];
  const double L = load["lone_transfer_ns"].get<double>();
  CHECK(load["start_ns"].get<double>() == Approx(0.0).margin(0.002));
  CHECK(load["duration_ns"].get<double>() == Approx(L).epsilon(1e-9));
  CHECK(b.duration(0) == Approx(std::max(C, L)).margin(0.002));
}

TEST_CASE(
    "a sync waits for every IPU it spans: compute(IPU0, 736 tiles); sync(0,1); compute(IPU1) = "
    "C736 + S + C",
    "[microbenchmark][contention]") {
  Json steps =
      concurrent({compute_step(0, 736), {{"kind", "sync"}, {"ipus", {0, 1}}}, compute_step(1)});
  ConfigDoc doc = preset_config("pod4", workload(steps));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double cyc = cycle_ns(doc);
  const double C736 = compute_cycles_by_hand(doc, 736) * cyc;
  const double C = compute_cycles_by_hand(doc, resolved(doc, "/chip/tiles")) * cyc;
  const double S = b.system->sync_cost({0, 1}).ns;
  REQUIRE(S > 0);
  const Json kids = b.step(0)["steps"];
  CHECK(kids[1]["start_ns"].get<double>() == Approx(C736).margin(0.002));
  CHECK(kids[2]["start_ns"].get<double>() == Approx(C736 + S).margin(0.002));
  CHECK(b.duration(0) == Approx(C736 + S + C).margin(0.002));
}
