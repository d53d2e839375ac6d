// Ping-pong (stages 2) with an off-chip activation and activationIOSchedule preload
// (popart_semantics.md §3.1): phase 0 computes x on IPU 0 and stores it; IPU 1 preloads it
// in the same phase for phase 1. The preload must wait for the store (it reads what the
// store wrote), so phase 0 costs C0 + S + L, not max(C0 + S, L). S, L and C0 come from the
// resolved parameters (DDR and IPU-gateway link bandwidth and latency; compute cycles); the
// store and the load run one after the other, so each is a lone transfer. Tolerance 1 %:
// rounding to the SystemC time resolution.
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
    "ping-pong with an off-chip activation: the other IPU's preload waits for the store: C0 + S + "
    "L") {
  const TrainingRun r = TrainingRun::make("pod4", workload());
  const std::uint32_t tiles = r.system->chip().tiles;
  const double C0 = r.compute_ns(kFlops0, tiles), C1 = r.compute_ns(kFlops1, tiles);
  const double S = r.store_ns(kBytes, 0), L = r.load_ns(kBytes, 1);
  const double sync = r.system->sync_cost({0, 1}).ns;
  REQUIRE(C0 > L);  // an unordered preload would be hidden behind the compute
  // Phases 0, 1 and 2 (P = 2: 2P - 1 phases; nothing runs in 2 and nothing is preloaded in -1).
  const std::vector<double> got = r.phase_times();
  REQUIRE(got.size() == 3);
  CHECK(got[0] == Approx(C0 + S + L + sync).epsilon(0.01));
  CHECK(got[1] == Approx(C1 + sync).epsilon(0.01));
  // The load starts when the store ends, on the other IPU.
  double store_end = -1, load_start = -1;
  for (const Json& op : r.results["phases"][0]["ops"]) {
    if (op["kind"] != "remote_exchange") continue;
    const bool store = op["transfers"][0]["direction"] == "store";
    CHECK(op["vgraph"].get<int>() == (store ? 0 : 1));
    if (store)
      store_end = op["start_ns"].get<double>() + op["duration_ns"].get<double>();
    else
      load_start = op["start_ns"].get<double>();
  }
  REQUIRE(store_end > 0);
  CHECK(load_start == Approx(store_end).epsilon(1e-9));
}
