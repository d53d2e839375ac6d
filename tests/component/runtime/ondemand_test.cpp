// OnDemand weight loads (popart_semantics.md §3.1: loaded in the phase that uses them) on
// the phased chain: the compute waits for the load, through the IO-tile copy or the RTS
// AllGather. L, C' and the copy come from the resolved parameters as in pingpong_test.cpp;
// tolerance 1 % for rounding to the SystemC time resolution.
#include "tests/component/runtime/phased_chain.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

constexpr int kP = 4;
constexpr std::uint64_t kWeightBytes = 768 * 1024 * 2;
constexpr double kFlopsFwd = 1.5e10, kFlopsBwd = 3.75e10;
constexpr std::uint32_t kIoTiles = 192;

Json workload(std::uint32_t replicas, std::uint32_t io_tiles, bool rts) {
  Json loc = {{"storage", "off_chip"}, {"replicatedTensorSharding", rts ? "on" : "off"}};
  if (io_tiles > 0) loc["loadTileSet"] = "io";
  return {{"kind", "training"},
          {"model", phased_chain(kP, {768, 1024}, kFlopsFwd, kFlopsBwd, false)},
          {"session",
           {{"replicatedGraphCount", replicas},
            {"numIOTiles", io_tiles},
            {"executionPhaseSettings", {{"weightIOSchedule", "on_demand"}}},
            {"weightTensorLocationSettings", {{"location", loc}}}}}};
}

}  // namespace

TEST_CASE("OnDemand through IO tiles: each phase is L + copy + C' (the copy waits for the load)") {
  const TrainingRun r = TrainingRun::make("pod4", workload(1, kIoTiles, false));
  const ChipParams& chip = r.system->chip();
  const std::uint32_t tiles = chip.tiles - kIoTiles;
  const double L = r.load_ns(kWeightBytes), Cf = r.compute_ns(kFlopsFwd, tiles),
               Cb = r.compute_ns(kFlopsBwd, tiles);
  const double copy = r.system->clock().cycles_to_ns(
      static_cast<double>(chip.exchange_fixed_cycles) +
      std::ceil(static_cast<double>(kWeightBytes) /
                (kIoTiles * chip.exchange_bytes_per_cycle_per_tile)));
  const double sync = r.system->sync_cost({0}).ns;
  // Phases 0..6 (no prologue): every phase loads its weight but phase 4, whose w2 was loaded
  // for phase 2 and is kept live (PopART keeps what was loaded in p-1 or p-2).
  const std::vector<double> C = {Cf, Cf, Cf, Cf + Cb, Cb, Cb, Cb};
  const std::vector<double> got = r.phase_times();
  REQUIRE(got.size() == C.size());
  double step = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("phase " << i);
    const double want = (i == 4 ? 0.0 : L + copy) + C[i] + sync;
    CHECK(got[i] == Approx(want).epsilon(0.01));
    step += want;
  }
  CHECK(r.results["step_time_ns"].get<double>() == Approx(step).epsilon(0.01));
}

TEST_CASE(
    "OnDemand with RTS on the compute tiles (16 replicas) runs load -> AllGather -> compute in "
    "each phase") {
  const TrainingRun r = TrainingRun::make("pod16", workload(16, 0, true));
  REQUIRE(r.results["rts"]["sharded_tensors"] == kP);
  int phases = 0;
  for (const Json& p : r.results["phases"]) {
    const Json& ops = p["ops"];
    if (p["phase"] == 4) {
      // w2 is kept live (gathered) from phase 2: no load, no gather.
      CHECK(ops[0]["kind"] == "compute");
      continue;
    }
    REQUIRE(ops.size() >= 3);
    CHECK(ops[0]["kind"] == "remote_exchange");
    CHECK(ops[1]["kind"] == "collective");
    CHECK(ops[1]["op"] == "all_gather");
    CHECK(ops[2]["kind"] == "compute");
    auto end = [](const Json& op) {
      return op["start_ns"].get<double>() + op["duration_ns"].get<double>();
    };
    CHECK(ops[1]["start_ns"].get<double>() >= end(ops[0]));
    CHECK(ops[2]["start_ns"].get<double>() >= end(ops[1]));
    ++phases;
  }
  CHECK(phases == 2 * kP - 2);
}
