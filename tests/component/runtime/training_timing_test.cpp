// Timing closed forms of the training executor on small phased cases (one SystemC
// elaboration per TEST_CASE): batch-serialised loops through IO tiles with and without
// overlap. L, C and the IO-tile copy are computed from the resolved parameters.
#include <catch2/catch.hpp>
#include <cmath>
#include <systemc>

#include "models/ipu/compute.hpp"
#include "models/params/model_params.hpp"
#include "models/system/system.hpp"
#include "runtime/workloads/runtime_params.hpp"
#include "runtime/workloads/workload.hpp"
#include "sim/output.hpp"
#include "tests/component/models/model_fixture.hpp"

using namespace ipusim;

namespace {

constexpr std::uint64_t kBytes = 1 << 20;  // activation per micro-batch
constexpr double kFlops = 2.28e10;         // ~100 us on the compute tiles
constexpr int kSteps = 8;
constexpr std::uint32_t kIoTiles = 128;

/// Phase 0 produces x (one copy per micro-batch), phase 1 consumes it: phase 1 loads each
/// micro-batch through the IO tiles and computes on it.
Json workload(const std::string& io_mode) {
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
                                      {"flops", kFlops},
                                      {"inputs", {"x"}}}})}}},
              {"session",
               {{"replicatedGraphCount", 1},
                {"numIOTiles", kIoTiles},
                {"io_mode", io_mode},
                {"executionPhaseSettings", {{"activationIOSchedule", "on_demand"}}},
                {"activationTensorLocationSettings", {{"location", {{"storage", "off_chip"}}}}},
                {"batchSerializationSettings", {{"factor", kSteps}}}}}};
}

struct Run {
  double phase1_ns = 0, L = 0, C = 0, copy = 0, sync = 0;
};

Run run(const std::string& io_mode) {
  register_sim_params();
  register_model_params();
  register_runtime_params();
  Json root = ConfigDoc::load_file(test::source_dir() + "/configs/systems/pod4.json").root();
  root["workload"] = workload(io_mode);
  ConfigDoc doc = ConfigDoc::from_json(root, "training_timing_test");
  auto system = build_system(doc);
  auto wl = make_workload(*system, ConfigNode(doc, "").child("workload"));
  sc_core::sc_start();
  REQUIRE(wl->failure().empty());
  REQUIRE(wl->finished());
  Run r;
  const Json results = wl->results();
  for (const Json& p : results["phases"])
    if (p["phase"] == 1) r.phase1_ns = p["time_ns"].get<double>();
  // Closed forms from the resolved parameters.
  const ChipParams& chip = system->chip();
  r.L = system->lone_transfer_ns(system->remote_load_route(0), kBytes);
  ComputeSpec c;
  c.flops = kFlops;
  c.dtype = ComputeDType::Float16;
  c.unit = ComputeUnit::Amp;
  c.tiles = chip.tiles - kIoTiles;
  r.C = system->clock().cycles_to_ns(static_cast<double>(compute_cycles(chip, c)));
  r.copy = system->clock().cycles_to_ns(
      static_cast<double>(chip.exchange_fixed_cycles) +
      std::ceil(kBytes / (kIoTiles * chip.exchange_bytes_per_cycle_per_tile)));
  r.sync = system->sync_cost({0}).ns;
  return r;
}

}  // namespace

TEST_CASE("io: a batch-serialised loop without overlap takes n (L + C)") {
  const Run r = run("io");
  const double want = kSteps * (r.L + r.copy + r.C) + r.sync;
  CHECK(r.phase1_ns == Approx(want).epsilon(0.01));
}

TEST_CASE("io_overlapped: loads of the next step hide behind compute: L + (n-1) max(L, C) + C") {
  const Run r = run("io_overlapped");
  REQUIRE(r.C > r.L);  // compute-bound case
  const double want = r.L + r.copy + (kSteps - 1) * std::max(r.L, r.C + r.copy) + r.C + r.sync;
  CHECK(r.phase1_ns == Approx(want).epsilon(0.01));
  CHECK(r.phase1_ns < kSteps * (r.L + r.C));
}
