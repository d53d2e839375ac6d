// per_tile fidelity in training: IoTileCopies (and op outputs) are spread over the tiles by
// Poplar's linear mapping, so an uneven mapping makes the busiest tile set the time. A 1 MiB
// activation copied through 128 IO tiles in grains of 3000 B: 350 grains, 3 on each of the
// first 94 IO tiles, so IO tile 0 holds 9000 B where an even split holds 8192 B. Hand-worked:
//   aggregated  copy = fixed + ceil(1048576 / (128 x rate))   (2148 cycles at 4 B/cycle)
//   per_tile    copy = fixed + ceil(9000 / rate)              (2350 cycles): 202 cycles more.
// The IPU statistics say what ran: exchange phases and bytes of the copies, compute steps, and
// the SRAM peak of the memory report. One elaboration per TEST_CASE.
#include <catch2/catch.hpp>
#include <cmath>
#include <systemc>

#include "models/params/model_params.hpp"
#include "models/system/system.hpp"
#include "runtime/workloads/runtime_params.hpp"
#include "runtime/workloads/workload.hpp"
#include "sim/output.hpp"
#include "sim/stats.hpp"
#include "tests/component/models/model_fixture.hpp"

using namespace ipusim;

namespace {

constexpr std::uint64_t kBytes = 1 << 20;  // activation per micro-batch
constexpr int kSteps = 8;
constexpr std::uint32_t kIoTiles = 128;
constexpr std::uint64_t kGrain = 3000;
constexpr std::uint64_t kBusiestIoTileBytes = 3 * kGrain;  // 350 grains over 128 tiles: 3, 2

Json workload() {
  return Json{{"kind", "training"},
              {"model",
               {{"generator", "explicit"},
                {"tensors", Json::array({{{"name", "x"},
                                          {"shape", {kBytes / 2}},
                                          {"dtype", "float16"},
                                          {"kind", "activation"},
                                          {"per_micro_batch", true}}})},
                {"ops", Json::array({{{"name", "produce"},
                                      {"forward_phase", 0},
                                      {"flops", 1.0},
                                      {"unit", "vector"},
                                      {"outputs", {"x"}}},
                                     {{"name", "consume"},
                                      {"forward_phase", 1},
                                      {"flops", 2.28e10},
                                      {"inputs", {"x"}}}})}}},
              {"session",
               {{"replicatedGraphCount", 1},
                {"numIOTiles", kIoTiles},
                {"io_mode", "io"},
                {"executionPhaseSettings", {{"activationIOSchedule", "on_demand"}}},
                {"activationTensorLocationSettings", {{"location", {{"storage", "off_chip"}}}}},
                {"batchSerializationSettings", {{"factor", kSteps}}}}},
              {"executor", {{"grain_bytes", kGrain}}}};
}

struct Run {
  std::vector<double> copy_ns;  ///< durations of phase 1's listed IoTileCopies
  double agg_copy_ns = 0, pt_copy_ns = 0, cycle_ns = 0;
  Json ipu0, memory;
};

Run run(const std::string& fidelity) {
  register_sim_params();
  register_model_params();
  register_runtime_params();
  Json root = ConfigDoc::load_file(test::source_dir() + "/configs/systems/pod4.json").root();
  root["workload"] = workload();
  root["sim"] = {{"fidelity", fidelity}};
  ConfigDoc doc = ConfigDoc::from_json(root, "per_tile_mapping_test");
  auto system = build_system(doc);
  auto wl = make_workload(*system, ConfigNode(doc, "").child("workload"));
  sc_core::sc_start();
  REQUIRE(wl->failure().empty());
  REQUIRE(wl->finished());
  Run r;
  const Json results = wl->results();
  for (const Json& p : results["phases"]) {
    if (p["phase"] != 1) continue;
    for (const Json& op : p["ops"])
      if (op["kind"] == "io_tile_copy") r.copy_ns.push_back(op["duration_ns"].get<double>());
  }
  const ChipParams& chip = system->chip();
  r.cycle_ns = 1.0 / chip.clock_GHz;
  const double rate = chip.exchange_bytes_per_cycle_per_tile,
               fixed = static_cast<double>(chip.exchange_fixed_cycles);
  r.agg_copy_ns = (fixed + std::ceil(kBytes / (kIoTiles * rate))) * r.cycle_ns;
  r.pt_copy_ns = (fixed + std::ceil(kBusiestIoTileBytes / rate)) * r.cycle_ns;
  r.ipu0 = collect_stats_tree()["system"]["ild0"]["m0"]["ipu0"];
  r.memory = wl->memory();
  return r;
}

}  // namespace

TEST_CASE(
    "per_tile: an unevenly mapped IoTileCopy takes the busiest IO tile's bytes, 202 cycles over "
    "aggregated",
    "[training][per_tile]") {
  const Run r = run("per_tile");
  REQUIRE_FALSE(r.copy_ns.empty());
  CHECK(r.pt_copy_ns - r.agg_copy_ns ==
        Approx(202 * r.cycle_ns).margin(1e-6));  // the hand-worked gap (4 B/cycle)
  for (double d : r.copy_ns) CHECK(d == Approx(r.pt_copy_ns).margin(0.002));
  // The tile model saw the copies: per-tile bytes, the busiest IO tile sending 9000 B per copy.
  CHECK(r.ipu0["exchange_phases"].get<std::uint64_t>() >=
        2 * kSteps);  // stores in phase 0, loads in phase 1
  CHECK(r.ipu0["bytes_sent"].get<std::uint64_t>() % kBytes == 0);
  CHECK(r.ipu0["per_tile"]["bytes_sent"]["max"].get<std::uint64_t>() % kBusiestIoTileBytes == 0);
  CHECK(r.ipu0["compute_steps"].get<std::uint64_t>() >= kSteps);
  CHECK(r.ipu0["sram_max_per_tile_bytes"] == r.memory["max_tile_bytes"]);
  CHECK(r.ipu0["sram_fits"].get<bool>() == (r.memory["fits"] == 1));
}

TEST_CASE("aggregated: the same IoTileCopy spreads evenly over the smaller tile set",
          "[training][per_tile]") {
  const Run r = run("aggregated");
  REQUIRE_FALSE(r.copy_ns.empty());
  for (double d : r.copy_ns) CHECK(d == Approx(r.agg_copy_ns).margin(0.002));
  CHECK_FALSE(r.ipu0.contains("per_tile"));
  CHECK(r.ipu0["sram_max_per_tile_bytes"] == r.memory["max_tile_bytes"]);
}
