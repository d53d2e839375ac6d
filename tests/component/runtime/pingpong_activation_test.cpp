// Ping-pong (stages 2) with an off-chip activation and activationIOSchedule preload
// (popart_semantics.md §3.1): phase 0 computes x on IPU 0; IPU 1 reads it in phase 1. PopART
// moves it by an inter-phase IpuCopy at the end of phase 0 (Test2x2S1ExecutionPhase; the
// copy's output counts as produced in phase 1, so nothing goes through streaming memory), so
// phase 0 costs C0 + the copy X over the IPU-Link, not C0 + a store S + a preload L. X, C0
// and C1 come from the resolved parameters (IPU-Link bandwidth and latency; compute cycles);
// the copy runs alone, so it is a lone transfer. Tolerance 1 %: rounding to the SystemC time
// resolution.
#include "tests/component/runtime/phased_chain.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

constexpr std::uint64_t kBytes = 1024 * 1024 * 2;  // x: 1024 x 1024 float16
constexpr double kFlops0 = 3.75e10;                // ~150 us: longer than the load,
constexpr double kFlops1 = 1.5e10;                 // so without the dependency the load would hide

Json workload() {
  return {
      {"kind", "training"},
      {"model",
       {{"generator", "explicit"},
        {"tensors", Json::array({{{"name", "x"},
                                  {"shape", {1024, 1024}},
                                  {"dtype", "float16"},
                                  {"kind", "activation"}}})},
        {"ops",
         Json::array(
             {{{"name", "produce"}, {"forward_phase", 0}, {"flops", kFlops0}, {"outputs", {"x"}}},
              {{"name", "consume"},
               {"forward_phase", 1},
               {"flops", kFlops1},
               {"inputs", {"x"}}}})}}},
      {"session",
       {{"replicatedGraphCount", 1},
        {"ipusPerReplica", 2},
        {"executionPhaseSettings", {{"stages", 2}, {"activationIOSchedule", "preload"}}},
        {"activationTensorLocationSettings", {{"location", {{"storage", "off_chip"}}}}}}}};
}

}  // namespace

TEST_CASE(
    "ping-pong with an off-chip activation read on the other IPU: an IpuCopy at the end of the "
    "producing phase, no store and preload: C0 + X") {
  const TrainingRun r = TrainingRun::make("pod4", workload());
  const std::uint32_t tiles = r.system->chip().tiles;
  const double C0 = r.compute_ns(kFlops0, tiles), C1 = r.compute_ns(kFlops1, tiles);
  const double X = r.system->lone_transfer_ns(r.system->route(0, 1), kBytes);
  const double sync = r.system->sync_cost({0, 1}).ns;
  // Phases 0, 1 and 2 (P = 2: 2P - 1 phases; nothing runs in 2 and nothing is preloaded in -1).
  const std::vector<double> got = r.phase_times();
  REQUIRE(got.size() == 3);
  CHECK(got[0] == Approx(C0 + X + sync).epsilon(0.01));
  CHECK(got[1] == Approx(C1 + sync).epsilon(0.01));
  // Phase 0: the compute on IPU 0, then the copy to IPU 1 when it ends; no remote exchange.
  double compute_end = -1, copy_start = -1;
  int copies = 0;
  for (const Json& op : r.results["phases"][0]["ops"]) {
    CHECK(op["kind"] != "remote_exchange");
    if (op["kind"] == "compute")
      compute_end = op["start_ns"].get<double>() + op["duration_ns"].get<double>();
    if (op["kind"] == "ipu_copy") {
      ++copies;
      copy_start = op["start_ns"].get<double>();
    }
  }
  CHECK(copies == 1);
  REQUIRE(compute_end > 0);
  CHECK(copy_start == Approx(compute_end).epsilon(1e-9));
}
