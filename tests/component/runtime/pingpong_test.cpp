// Ping-pong (executionPhaseSettings.stages = 2, popart_semantics.md §3.1): with Preload, the
// weight for phase p is loaded in phase p-1 by the IPU that is idle in p-1 (IPU p % 2) while
// IPU (p-1) % 2 computes, so each phase costs max(L, C) instead of L + C. Compared with the
// same model on one IPU (stages 1) with no IO tiles, where load and compute serialise, and
// with stages 1 through IO tiles, where the load overlaps the compute on fewer tiles.
//
// Model (phased_chain, P = 4): layer i has one weight (768 x 1024 float16 = 1.5 MiB, off
// chip), forward Cf in phase i, backward Cb in phase 6-i (phases -1..6). L, Cf, Cb and the
// IO-tile copy are computed from the resolved parameters (DDR and IPU-gateway link bandwidth
// and latency; the compute model of models/ipu/compute.hpp via compute_cycles).
// Tolerance 1 %: the closed forms include every fixed cost the executor charges (phase syncs,
// DDR latency, exchange fixed cycles); what is left is rounding to the SystemC time resolution.
#include <algorithm>
#include <numeric>

#include "tests/component/runtime/phased_chain.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

constexpr int kP = 4;
constexpr std::uint64_t kWeightBytes = 768 * 1024 * 2;
// At the fitted /chip/compute/amp_efficiency 0.7254 on 1472 tiles (shape-free compute steps):
constexpr double kFlopsFwd = 1.125e10;   // ~60 us: shorter than the load
constexpr double kFlopsBwd = 2.8125e10;  // ~150 us: longer than the load
constexpr std::uint32_t kIoTiles = 192;

Json workload(int stages, std::uint32_t io_tiles) {
  Json loc = {{"storage", "off_chip"}};
  if (io_tiles > 0) loc["loadTileSet"] = "io";
  return {{"kind", "training"},
          {"model", phased_chain(kP, {768, 1024}, kFlopsFwd, kFlopsBwd, false)},
          {"session",
           {{"replicatedGraphCount", 1},
            {"ipusPerReplica", stages},
            {"numIOTiles", io_tiles},
            {"executionPhaseSettings", {{"stages", stages}, {"weightIOSchedule", "preload"}}},
            {"weightTensorLocationSettings", {{"location", loc}}}}}};
}

/// Phase -1..6 durations of the model, given what each phase costs.
struct Closed {
  std::vector<double> phase;  // without the sync
  double sync = 0;
  double step() const {
    return std::accumulate(phase.begin(), phase.end(), 0.0) +
           sync * static_cast<double>(phase.size());
  }
};

/// Stages 2: the load for phase p+1 runs on the other IPU during phase p. w2 is read in
/// phases 2 and 4 on IPU 0: kept live (p - 2 is the same IPU), so phase 3 loads nothing.
Closed pingpong(double L, double Cf, double Cb, double sync) {
  return {{L, std::max(L, Cf), std::max(L, Cf), std::max(L, Cf), Cf + Cb, std::max(L, Cb),
           std::max(L, Cb), Cb},
          sync};
}

/// Stages 1 without IO tiles: the preload for phase p+1 and the compute of phase p share the
/// compute tiles; every use more than one phase after the previous one reloads (7 loads).
Closed serial(double L, double Cf, double Cb, double sync) {
  // Phase 3 preloads nothing: w2, loaded for phase 2, is kept live (p-2) for phase 4.
  return {{L, L + Cf, L + Cf, L + Cf, Cf + Cb, L + Cb, L + Cb, Cb}, sync};
}

}  // namespace

TEST_CASE(
    "ping-pong (stages 2): the next phase's weights load on the idle IPU: first load + sum of "
    "max(L, C)") {
  const TrainingRun r = TrainingRun::make("pod4", workload(2, 0));
  const std::uint32_t tiles = r.system->chip().tiles;
  const double L = r.load_ns(kWeightBytes), Cf = r.compute_ns(kFlopsFwd, tiles),
               Cb = r.compute_ns(kFlopsBwd, tiles);
  REQUIRE(r.load_ns(kWeightBytes, 1) == Approx(L));  // both IPUs reach the DDR alike
  REQUIRE(Cf < L);                                   // forward phases are load-bound,
  REQUIRE(Cb > L);                                   // backward phases compute-bound
  const Closed want = pingpong(L, Cf, Cb, r.system->sync_cost({0, 1}).ns);
  const std::vector<double> got = r.phase_times();
  REQUIRE(got.size() == want.phase.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("phase " << static_cast<int>(i) - 1);
    CHECK(got[i] == Approx(want.phase[i] + want.sync).epsilon(0.01));
  }
  const double step = r.results["step_time_ns"].get<double>();
  CHECK(step == Approx(want.step()).epsilon(0.01));
  // The loads are hidden: far below the no-overlap step sum(L + C) of the same program, and
  // below the stages-1 step (checked against its own closed form in the next test).
  const double no_overlap = 6 * L + 4 * Cf + 4 * Cb + want.sync * 8;
  CHECK(step < 0.75 * no_overlap);
  CHECK(step < 0.75 * serial(L, Cf, Cb, r.system->sync_cost({0}).ns).step());
  // SRAM: each IPU holds one weight in every phase it computes, prefetches or keeps one.
  // IPU 0: w0 prefetched (-1), used (0); w2 prefetched (1), used (2), kept while IPU 1 runs
  // phase 3, used (4); w0 prefetched (5), used (6). IPU 1: idle in -1 and 6.
  for (const Json& m : r.results["memory"]["phases"]) {
    const int p = m["phase"].get<int>(), vg = m["vgraph"].get<int>();
    INFO("phase " << p << " IPU " << vg);
    const bool idle = vg == 1 && (p == -1 || p == 2 * kP - 2);
    CHECK(m["compute_tiles_bytes"].get<std::uint64_t>() == (idle ? 0 : kWeightBytes));
  }
  // Each phase's weight load is issued on the IPU the next phase computes on.
  for (const Json& p : r.results["phases"])
    for (const Json& op : p["ops"])
      if (op["kind"] == "remote_exchange")
        CHECK(op["vgraph"].get<int>() == (p["phase"].get<int>() + 1) % 2);
}

TEST_CASE("stages 1 without IO tiles: load and compute serialise: sum of (L + C)") {
  const TrainingRun r = TrainingRun::make("pod4", workload(1, 0));
  const std::uint32_t tiles = r.system->chip().tiles;
  const double L = r.load_ns(kWeightBytes), Cf = r.compute_ns(kFlopsFwd, tiles),
               Cb = r.compute_ns(kFlopsBwd, tiles);
  const Closed want = serial(L, Cf, Cb, r.system->sync_cost({0}).ns);
  const std::vector<double> got = r.phase_times();
  REQUIRE(got.size() == want.phase.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("phase " << static_cast<int>(i) - 1);
    CHECK(got[i] == Approx(want.phase[i] + want.sync).epsilon(0.01));
  }
  CHECK(r.results["step_time_ns"].get<double>() == Approx(want.step()).epsilon(0.01));
}

TEST_CASE(
    "stages 1 through IO tiles: the preload overlaps compute on the remaining tiles: max(L, copy + "
    "C')") {
  const TrainingRun r = TrainingRun::make("pod4", workload(1, kIoTiles));
  const ChipParams& chip = r.system->chip();
  const std::uint32_t tiles = chip.tiles - kIoTiles;
  const double L = r.load_ns(kWeightBytes), Cf = r.compute_ns(kFlopsFwd, tiles),
               Cb = r.compute_ns(kFlopsBwd, tiles);
  // IO -> compute copy: bounded by the 192 IO tiles' exchange bandwidth plus the fixed cost.
  const double copy = r.system->clock().cycles_to_ns(
      static_cast<double>(chip.exchange_fixed_cycles) +
      std::ceil(static_cast<double>(kWeightBytes) /
                (kIoTiles * chip.exchange_bytes_per_cycle_per_tile)));
  const double a = copy + Cf, b = copy + Cb;
  const Closed want{{L, std::max(L, a), std::max(L, a), std::max(L, a), std::max(L, a + Cb),
                     std::max(L, b), std::max(L, b), b},
                    r.system->sync_cost({0}).ns};
  const std::vector<double> got = r.phase_times();
  REQUIRE(got.size() == want.phase.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("phase " << static_cast<int>(i) - 1);
    CHECK(got[i] == Approx(want.phase[i] + want.sync).epsilon(0.01));
  }
  CHECK(r.results["step_time_ns"].get<double>() == Approx(want.step()).epsilon(0.01));
}
