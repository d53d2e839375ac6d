// Replicated tensor sharding through the executor (popart_semantics.md §1.6): the phased
// chain with an optimizer on an IPU-POD16 (16 replicas of one IPU, stages 1), weights and
// optimizer state off chip, RTS over all 16 replicas vs off. The report's memory figures
// are checked against sizes worked by hand from n = 767 x 1025 elements (not a multiple of
// 16, so the shard is padded to ceil(n / 16)).
//
// Per phase, the compute tiles of an IPU hold (stages 1, Preload weights, OnDemand state):
//   -1      : the prefetched w0                                      -> Wl
//   0..2    : w_p gathered to its full size + the prefetch of w_{p+1} -> Wf + Wl
//   3       : w3, its full gradient, its state (a shard when sharded), and w2, kept live
//             (gathered) from phase 2 for its backward in phase 4 (PopART: p-2)
//             instead of a prefetch                                 -> 2 Wf + G + Ms
//   4..5    : w, its gradient, its state + the prefetch of the next backward weight
//                                                                   -> Wf + G + Ms + Wl
//   6       : as 4..5 without a prefetch                            -> Wf + G + Ms
// with Wl / Ms the loaded weight / used state (the shard under RTS, else the full tensor).
// Streaming memory per IM2000: 4 IPUs x 4 layers x (weight + state buffer).
#include <map>

#include "tests/component/runtime/phased_chain.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

constexpr int kP = 4;
constexpr std::uint64_t kN = 767 * 1025;              // 786175 elements
constexpr std::uint32_t kK = 16;                      // replicas = sharding factor (domain all)
constexpr std::uint64_t kShard = (kN + kK - 1) / kK;  // 49136 (49135.9375 rounded up)

Json workload(bool rts) {
  const Json loc = {{"storage", "off_chip"},
                    {"replicatedTensorSharding", rts ? "on" : "off"},
                    {"shardingDomain", "all"}};
  return {{"kind", "training"},
          {"model", phased_chain(kP, {767, 1025}, 1e9, 2e9, true)},
          {"session",
           {{"replicatedGraphCount", kK},
            {"executionPhaseSettings",
             {{"weightIOSchedule", "preload"}, {"optimizerStateIOSchedule", "on_demand"}}},
            {"weightTensorLocationSettings", {{"location", loc}}},
            {"optimizerStateTensorLocationSettings", {{"location", loc}}}}}};
}

/// The hand-worked per-phase compute-tile bytes and the report's, by phase.
void check_memory(const TrainingRun& r, bool rts) {
  const std::uint64_t Wf = kN * 2, G = kN * 2;
  const std::uint64_t Wl = rts ? kShard * 2 : Wf;
  const std::uint64_t Ms = rts ? kShard * 4 : kN * 4;
  const std::map<int, std::uint64_t> want = {{-1, Wl},
                                             {0, Wf + Wl},
                                             {1, Wf + Wl},
                                             {2, Wf + Wl},
                                             {3, 2 * Wf + G + Ms},
                                             {4, Wf + G + Ms + Wl},
                                             {5, Wf + G + Ms + Wl},
                                             {6, Wf + G + Ms}};
  std::map<int, std::uint64_t> got;
  for (const Json& p : r.results["memory"]["phases"]) {
    CHECK(p["vgraph"] == 0);
    CHECK(p["io_tiles_bytes"] == 0);
    got[p["phase"].get<int>()] = p["compute_tiles_bytes"].get<std::uint64_t>();
  }
  CHECK(got == want);
  const std::uint64_t peak = 2 * Wf + G + Ms;  // phase 3 (Wl <= Wf)
  const std::uint32_t tiles = r.system->chip().tiles;
  CHECK(r.memory["per_ipu_bytes"].get<std::uint64_t>() == peak);
  CHECK(r.memory["max_tile_bytes"].get<std::uint64_t>() == (peak + tiles - 1) / tiles);
  CHECK(r.memory["streaming_memory_per_machine_bytes"].get<std::uint64_t>() == 4 * kP * (Wl + Ms));
  // Every weight load moves the loaded size (the shard under RTS).
  for (const Json& p : r.results["phases"])
    for (const Json& op : p["ops"])
      if (op["kind"] == "remote_exchange")
        for (const Json& t : op["transfers"]) {
          const bool weight = t["tensor"].get<std::string>().find("/m") == std::string::npos;
          CHECK(t["bytes"].get<std::uint64_t>() == (weight ? Wl : Ms));
        }
}

}  // namespace

TEST_CASE(
    "RTS over 16 replicas: loaded weights, optimizer state and remote buffers shrink to "
    "ceil(n/16)") {
  const TrainingRun r = TrainingRun::make("pod16", workload(true));
  CHECK(kShard * kK - kN < kK);  // the padding is less than one element per replica
  CHECK(r.results["rts"]["sharded_tensors"] == 2 * kP);
  CHECK(r.results["rts"]["by_kind"]["weight"] == kP);
  CHECK(r.results["rts"]["by_kind"]["optimizer_state"] == kP);
  check_memory(r, true);
  // Sharded weights are gathered over all 16 replicas; gradients reduce-scattered.
  int gathers = 0, scatters = 0;
  for (const Json& p : r.results["phases"])
    for (const Json& op : p["ops"]) {
      if (op["kind"] != "collective") continue;
      CHECK(op["group_size"] == kK);
      gathers += op["op"] == "all_gather";
      scatters += op["op"] == "reduce_scatter";
    }
  CHECK(gathers == 6);    // one per weight load (w1, w0 reload for the backward; w2 is kept live)
  CHECK(scatters == kP);  // one per gradient
}

TEST_CASE("RTS off on the same 16 replicas: full-size loads and buffers, gradients all-reduced") {
  const TrainingRun r = TrainingRun::make("pod16", workload(false));
  CHECK(r.results["rts"]["sharded_tensors"] == 0);
  check_memory(r, false);
  int allreduces = 0;
  for (const Json& p : r.results["phases"])
    for (const Json& op : p["ops"])
      if (op["kind"] == "collective") {
        CHECK(op["op"] == "allreduce");
        ++allreduces;
      }
  CHECK(allreduces == kP);
}
