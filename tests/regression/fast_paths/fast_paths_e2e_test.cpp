// The network's fast paths (/sim/fast_paths) must not change a single byte of a report: each
// test runs one set of shipped cases with the fast paths on and off and compares the reports
// without run_info (wall time, RSS), as parsed JSON and as dumped text.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/json.hpp"
#include "tests/regression/tools/cli_harness.hpp"

namespace ipusim::test {
namespace {

/// SystemC delta cycles of the last run_both() with fast paths on and off (from run_info).
std::pair<std::uint64_t, std::uint64_t> last_delta_cycles;
/// Flows the network folded (run_info.network_folded_flows) in the last run_both(), on and off.
std::pair<std::uint64_t, std::uint64_t> last_folded;
/// Folded flows unfolded (run_info.network_unfolded_flows) in the last run_both(), on and off.
std::pair<std::uint64_t, std::uint64_t> last_unfolded;
/// Batches handed to the network already folded (run_info.network_prefolded_batches: collective
/// plans and remote exchanges played before), on and off.
std::pair<std::uint64_t, std::uint64_t> last_prefolded;

/// Runs `ipusim run config --set ...` with fast paths on and off; returns both reports
/// without run_info.
std::pair<Json, Json> run_both(const std::string& config, const std::vector<std::string>& sets) {
  Scratch scratch;
  std::pair<Json, Json> out;
  for (const bool fast : {true, false}) {
    std::vector<std::string> args = {"run", config, "--quiet", "--out",
                                     scratch.path(fast ? "on" : "off")};
    for (const auto& s : sets) {
      args.push_back("--set");
      args.push_back(s);
    }
    args.push_back("--set");
    args.push_back(std::string("sim.fast_paths=") + (fast ? "true" : "false"));
    const CliResult r = run_cli(scratch, args);
    INFO(config << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    Json report = Json::parse(read_text(scratch.path(fast ? "on/report.json" : "off/report.json")));
    REQUIRE(report.contains("run_info"));
    const auto deltas = report.at("run_info").at("systemc_delta_cycles").get<std::uint64_t>();
    (fast ? last_delta_cycles.first : last_delta_cycles.second) = deltas;
    (fast ? last_folded.first : last_folded.second) =
        report.at("run_info").value("network_folded_flows", std::uint64_t{0});
    (fast ? last_unfolded.first : last_unfolded.second) =
        report.at("run_info").value("network_unfolded_flows", std::uint64_t{0});
    (fast ? last_prefolded.first : last_prefolded.second) =
        report.at("run_info").value("network_prefolded_batches", std::uint64_t{0});
    report.erase("run_info");
    (fast ? out.first : out.second) = std::move(report);
  }
  return out;
}

void check_same(const std::string& config, const std::vector<std::string>& sets = {}) {
  const auto [on, off] = run_both(config, sets);
  INFO(config);
  CHECK(on.dump() == off.dump());
  // The network really ran (the comparison is not between two empty reports).
  CHECK(on.at("simulated").at("time_ns").get<double>() > 0);
}

/// Every case file of tests/regression/collectives whose name contains `system`.
void check_collective_cases(const std::string& system) {
  const fs::path dir = source_path("tests/regression/collectives");
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".json" ||
        name.find("_" + system + ".json") == std::string::npos)
      continue;
    const Json c = Json::parse(read_text(entry.path().string()));
    const std::string config =
        (dir / c.at("config").get<std::string>()).lexically_normal().string();
    std::vector<std::string> sets;
    for (const auto& s : c.value("set", Json::array())) sets.push_back(s.get<std::string>());
    check_same(config, sets);
    ++cases;
  }
  CHECK(cases == 9);  // 3 ops x 3 sizes
}

}  // namespace

TEST_CASE("fast paths: collective cases on pod16 are byte-identical", "[fast_paths]") {
  check_collective_cases("pod16");
}
TEST_CASE("fast paths: collective cases on pod64 are byte-identical", "[fast_paths]") {
  check_collective_cases("pod64");
}
TEST_CASE("fast paths: collective cases on pod256 are byte-identical", "[fast_paths]") {
  check_collective_cases("pod256");
}
TEST_CASE("fast paths: flat clockwise ring over pod256 is byte-identical", "[fast_paths]") {
  check_same(source_path("configs/workloads/allreduce_pod256.json"),
             {"workload.algorithm=clockwise", "workload.bytes=1048576"});
}
// Collective workloads own the network: with fast paths, every ring step after the first of
// a phase replays the recorded outcome of the previous one (runtime/exec/step_memo.hpp), and
// the first step of the all-gather replays the reduce-scatter's (same traffic). Without fast
// paths every step is simulated flow by flow.
TEST_CASE("fast paths: replayed steps of a multi-Pod flat ring (pod128, 4 KiB) are byte-identical",
          "[fast_paths]") {
  check_same(source_path("configs/workloads/allreduce_pod128.json"),
             {"workload.algorithm=clockwise", "workload.bytes=4096"});
  // Steps were replayed: a replayed step wakes neither the network nor a batch event (measured
  // 897 vs 2668 delta cycles for these 254 steps).
  CHECK(last_delta_cycles.first * 2 < last_delta_cycles.second);
}
TEST_CASE("fast paths: replayed steps of multi-Pod rings of several lanes are byte-identical",
          "[fast_paths]") {
  check_same(source_path("configs/workloads/allreduce_pod256.json"),
             {"workload.algorithm=meet_in_the_middle", "workload.bytes=65536",
              "workload.ipus_per_replica=2"});
  check_same(source_path("configs/workloads/allreduce_pod128.json"),
             {"workload.op=reduce_scatter", "workload.algorithm=bidirectional_pair",
              "workload.bytes=1000000"});
}
TEST_CASE("fast paths: mnist_phased is byte-identical", "[fast_paths]") {
  check_same(source_path("configs/workloads/mnist_phased.json"));
}
TEST_CASE("fast paths: bert_large_phased_pod64 is byte-identical", "[fast_paths]") {
  check_same(source_path("configs/workloads/bert_large_phased_pod64.json"));
}
TEST_CASE("fast paths: sharded_weight_pod128 is byte-identical", "[fast_paths]") {
  check_same(source_path("configs/workloads/sharded_weight_pod128.json"));
}
TEST_CASE("fast paths: sharded_weight_pod256 is byte-identical", "[fast_paths]") {
  check_same(source_path("configs/workloads/sharded_weight_pod256.json"));
}
TEST_CASE("fast paths: gpt3_2p7b_pod64 is byte-identical", "[fast_paths]") {
  check_same(source_path("configs/workloads/gpt3_2p7b_pod64.json"));
}
TEST_CASE("fast paths: mlperf_v1.0_bert_pod16 is byte-identical", "[fast_paths]") {
  check_same(source_path("configs/workloads/mlperf_v1.0_bert_pod16.json"));
}
TEST_CASE("fast paths: mlperf_v1.0_bert_pod64 is byte-identical", "[fast_paths]") {
  check_same(source_path("configs/workloads/mlperf_v1.0_bert_pod64.json"));
}
TEST_CASE("fast paths: mlperf_v1.1_resnet50_pod16 is byte-identical", "[fast_paths]") {
  check_same(source_path("configs/workloads/mlperf_v1.1_resnet50_pod16.json"));
}
TEST_CASE("fast paths: mlperf_v1.1_resnet50_pod64 is byte-identical", "[fast_paths]") {
  check_same(source_path("configs/workloads/mlperf_v1.1_resnet50_pod64.json"));
}

// Symmetry folding (models/network/flow_fold.hpp): a training step whose replicas fill identical
// IPU-Link domains is played folded, byte for byte the general path's report.
TEST_CASE("fast paths: a symmetric 4-domain training step is folded and byte-identical",
          "[fast_paths][fold]") {
  // GPT-3 175B's session on a Pod256 (4 Pod64 domains, TP 64, data-parallel groups of 4
  // replicas across the GW-Links), 2 layers: its remote loads, TP collectives inside the
  // domains and RTS collectives across them all fold.
  const std::string config = source_path("configs/workloads/gpt3_175b_pod256.json");
  const std::vector<std::string> sets = {"workload.model.transformer.layers=2"};
  check_same(config, sets);
  CHECK(last_folded.first > 0);
  CHECK(last_folded.second == 0);  // fast paths off: the general path
  // The collectives and remote exchanges played before were handed over folded
  // (runtime/exec/collective_plan.hpp): their schedules were not generated again.
  CHECK(last_prefolded.first > 0);
  CHECK(last_prefolded.second == 0);
}

TEST_CASE("fast paths: a batch that breaks the symmetry while folded flows drain unfolds them",
          "[fast_paths][fold]") {
  // Pod256 on a GW-Link ring: the remote loads of every replica fold, an all-reduce in groups
  // of 128 consecutive replicas (two domains each) does not, and it starts while the loads
  // drain (the config's description says how). Measured: 16,384 flows folded, then the 256
  // folded load flows still draining unfolded; the report equals the general path's.
  check_same(source_path("tests/regression/fast_paths/configs/unfold_pod256_ring.json"));
  CHECK(last_folded.first > 0);
  CHECK(last_unfolded.first > 0);
  CHECK(last_unfolded.second == 0);
}

TEST_CASE("fast paths: remote IO on the first machine only is not folded", "[fast_paths][fold]") {
  // Only machine 0's IPUs load and store: the traffic is not the same in every domain, so the
  // executor does not fold (the general path, as with fast paths off).
  check_same(
      source_path("configs/workloads/gpt3_175b_pod256.json"),
      {"workload.model.transformer.layers=2", "workload.executor.simulate_replicas=first_machine"});
  CHECK(last_folded.first == 0);
  CHECK(last_prefolded.first == 0);  // no plans either: every step through the general path
}

}  // namespace ipusim::test
