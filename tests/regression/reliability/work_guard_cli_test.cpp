// Guards before work, end to end (issue 15): runs that would need days or more memory than
// the machine has are refused with exit 2 before simulating, naming the JSON path, the
// estimate and the limit; /sim/max_memory_bytes is set explicitly so that the result does not
// depend on the test machine's memory.
#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim::test;

namespace {

void expect_refused(const CliResult& r, const std::vector<std::string>& needles) {
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  for (const auto& n : needles) CHECK(r.err.find(n) != std::string::npos);
}

/// An explicit training model on a POD4 with `ops` (JSON list) and tensor a.
std::string explicit_model(const Scratch& s, const std::string& name, const std::string& tensors,
                           const std::string& ops) {
  return s.write(
      name,
      R"({"$include": [")" + source_path("configs/systems/pod4.json") +
          R"("], "workload": {"kind": "training", "model": {"generator": "explicit", "tensors": )" +
          tensors + R"(, "ops": )" + ops + R"(}, "session": {"replicatedGraphCount": 1}}})");
}

const char* kTensorA = R"([{"name": "a", "shape": [4], "dtype": "float32", "kind": "activation"}])";
const char* kOneGiB = "sim.max_memory_bytes=1073741824";

}  // namespace

TEST_CASE("work guard: repeat 10^12 on a transfer step is refused by /sim/max_events",
          "[reliability][guards]") {
  Scratch s;
  // 10^12 transfers x 2 events (start, end) = 2e12 > the default 1e10.
  expect_refused(run_cli(s, {"run", rail_transfer_config(), "--set",
                             "workload.steps.0.repeat=1000000000000", "--out", s.path("o")}),
                 {"/workload/steps/0/repeat", "2e+12 kernel events", "/sim/max_events = 1e+10",
                  "repeat 1000000000000"});
  // The same step with repeat 10 runs, and a raised limit is honoured.
  CHECK(run_cli(s, {"run", rail_transfer_config(), "--set", "workload.steps.0.repeat=10", "--out",
                    s.path("o2"), "-q"})
            .exit_code == 0);
  CHECK(run_cli(s, {"run", rail_transfer_config(), "--set", "workload.steps.0.repeat=10", "--set",
                    "sim.max_events=19", "--out", s.path("o3"), "-q"})
            .exit_code == 2);
}

TEST_CASE("work guard: a transformer with 99,999 layers is refused before it is generated",
          "[reliability][guards]") {
  Scratch s;
  const std::string bert = source_path("configs/workloads/bert_large_phased_pod64.json");
  expect_refused(run_cli(s, {"run", bert, "--set", "workload.model.transformer.layers=99999",
                             "--set", kOneGiB, "--out", s.path("o")}),
                 {"/workload/model/transformer/layers", "model ops", "lowered ops",
                  "/sim/max_memory_bytes = 1.00 GiB", "fewer layers (99999 now)"});
}

TEST_CASE("work guard: batch serialisation 65,536 x accumulation 2^20 is refused before lowering",
          "[reliability][guards]") {
  Scratch s;
  const std::string bert = source_path("configs/workloads/bert_large_phased_pod64.json");
  expect_refused(
      // micro_batch 4 x 65,536: the factor must divide PopART's micro-batch.
      run_cli(s, {"run", bert, "--set", "workload.session.batchSerializationSettings.factor=65536",
                  "--set", "workload.model.transformer.micro_batch=262144", "--set",
                  "workload.session.accumulationFactor=1048576", "--out", s.path("o")}),
      {"/workload/session", "accumulationFactor (1048576)",
       "batchSerializationSettings.factor (65536)", "PiB"});
}

TEST_CASE("work guard: an op in phase 10^6 is refused (2,000,001 phases)",
          "[reliability][guards]") {
  Scratch s;
  const std::string cfg =
      explicit_model(s, "phase.json", kTensorA,
                     R"([{"name": "A", "forward_phase": 1000000, "outputs": ["a"], "flops": 1}])");
  // 2 x 10^6 + 1 phases (forward, backward, the prologue) x 2000 B each > 1 GiB.
  expect_refused(run_cli(s, {"run", cfg, "--set", kOneGiB, "--out", s.path("o")}),
                 {"/workload/model", "2e+06 phases x 1 IPUs", "fewer execution phases"});
}

TEST_CASE("work guard: remote buffers over the streaming memory are refused before generating",
          "[reliability][guards]") {
  Scratch s;
  const std::string bert = source_path("configs/workloads/bert_large_phased_pod64.json");
  // BERT-Large on a Pod64 keeps 128,139,264 B of remote buffers per machine at 3 layers and
  // 47,005,696 B more per 3 layers (measured: 3, 6, 9 and 66 layers all on this line; each
  // bias and LayerNorm its own weight), so 66 layers need 128,139,264 + 21 x 47,005,696 =
  // 1,115,258,880 B: 41,517,056 B over 1 GiB. The guard (above 64 layers) refuses that
  // before generating the model ...
  expect_refused(run_cli(s, {"run", bert, "--set", "workload.model.transformer.layers=66", "--set",
                             "machine.gateway.capacity_GiB=1", "--out", s.path("o")}),
                 {"/workload/model/transformer/layers", "remote buffers in streaming memory",
                  "1.00 GiB free of 1.00 GiB in machine 0", "fewer layers (66 now)",
                  "/machine/gateway/capacity_GiB"});
  // ... and accepts a capacity of exactly 1,115,258,880 B (1 + 10,136 / 2^18 GiB, exact in
  // binary),
  // which the gateway's own check after lowering accepts too.
  const CliResult fits =
      run_cli(s, {"run", bert, "--set", "workload.model.transformer.layers=66", "--set",
                  "machine.gateway.capacity_GiB=1.038665771484375", "--out", s.path("o2"), "-q"});
  INFO(fits.err);
  REQUIRE(fits.exit_code == 0);
  CHECK(ipusim::cli::read_json_file(s.path(
            "o2/report.json"))["memory"]["streaming_memory_per_machine_bytes"] == 1115258880);
  // 10,002 layers (146 GiB on a 128 GiB gateway) with host memory not limiting: refused at
  // once (it used to generate and lower the whole model first, about 2 minutes of CPU).
  expect_refused(run_cli(s, {"run", bert, "--set", "workload.model.transformer.layers=10002",
                             "--set", "sim.max_memory_bytes=1e15", "--out", s.path("o3")}),
                 {"/workload/model/transformer/layers", "146.03 GiB per machine",
                  "128.00 GiB free of 128.00 GiB", "fewer layers (10002 now)"});
}

TEST_CASE("semantic checks: explicit graphs with a cycle or a load of an activation never stored",
          "[reliability][semantic]") {
  Scratch s;
  const std::string two = R"([{"name": "a", "shape": [4], "dtype": "float32", "kind": "activation"},
                              {"name": "b", "shape": [4], "dtype": "float32", "kind": "activation"}])";
  const std::string cycle = explicit_model(s, "cycle.json", two, R"([
      {"name": "A", "forward_phase": 0, "inputs": ["b"], "outputs": ["a"], "flops": 1},
      {"name": "B", "forward_phase": 0, "inputs": ["a"], "outputs": ["b"], "flops": 1}])");
  expect_refused(run_cli(s, {"run", cycle, "--out", s.path("o")}),
                 {"cycle.json", "/workload/model/ops", "'A' -> 'B' -> 'A'"});
  // The same ops in phases 0 and 1 are no cycle (A reads b from the previous step's B).
  const std::string chain = explicit_model(s, "chain.json", two, R"([
      {"name": "A", "forward_phase": 0, "inputs": ["b"], "outputs": ["a"], "flops": 1},
      {"name": "B", "forward_phase": 1, "inputs": ["a"], "outputs": ["b"], "flops": 1}])");
  CHECK(run_cli(s, {"run", chain, "--out", s.path("o2"), "-q"}).exit_code == 0);
  const std::string load = explicit_model(s, "load.json", kTensorA, R"([
      {"name": "L", "type": "remote_load", "forward_phase": 0, "outputs": ["a"]},
      {"name": "C", "forward_phase": 0, "inputs": ["a"], "flops": 1}])");
  expect_refused(
      run_cli(s, {"run", load, "--out", s.path("o3")}),
      {"/workload/model/ops/0", "remote_load 'L' loads activation 'a'", "no earlier remote_store"});
}

TEST_CASE("semantic checks: microbenchmark root tile, sync IPUs, exchange and remote buffers",
          "[reliability][semantic]") {
  Scratch s;
  auto mb = [&](const std::string& name, const std::string& steps) {
    return s.write(name, R"({"$include": [")" + source_path("configs/systems/pod4.json") +
                             R"("], "workload": {"kind": "microbenchmark", "steps": )" + steps +
                             "}}");
  };
  expect_refused(
      run_cli(s,
              {"run",
               mb("root.json",
                  R"([{"kind": "exchange", "ipu": 0, "pattern": "one_to_all", "bytes_per_tile": 64,
                                                        "root_tile": 5000}])"),
               "--out", s.path("o")}),
      {"/workload/steps/0/root_tile", "tile 5000", "1472 active tiles"});
  expect_refused(run_cli(s, {"run", mb("sync.json", R"([{"kind": "sync", "ipus": [0, 0, 1]}])"),
                             "--out", s.path("o")}),
                 {"/workload/steps/0/ipus", "IPU 0 is listed twice in [0,0,1]"});
  expect_refused(
      run_cli(
          s,
          {"run",
           mb("x.json",
              R"([{"kind": "exchange", "ipu": 0, "pattern": "explicit", "per_tile_bytes": [[100, 0]]}])"),
           "--out", s.path("o")}),
      {"/workload/steps/0/per_tile_bytes", "send 100 B but no tile receives"});
  expect_refused(
      run_cli(s,
              {"run",
               mb("big.json", R"([{"kind": "remote_store", "ipu": 0, "bytes": 1024, "buffer": "x"},
                                                       {"kind": "remote_load", "ipu": 0, "bytes": 4096, "buffer": "x"}])"),
               "--out", s.path("o")}),
      {"/workload/steps/1/bytes", "4096 B from buffer 'x'", "only 1024 B were stored",
       "/workload/steps/0"});
  // A load of what was stored, or of a buffer the host filled (never stored), runs.
  CHECK(run_cli(s,
                {"run",
                 mb("ok.json", R"([{"kind": "remote_store", "ipu": 0, "bytes": 1024, "buffer": "x"},
                                           {"kind": "remote_load", "ipu": 0, "bytes": 1024, "buffer": "x"},
                                           {"kind": "remote_load", "ipu": 0, "bytes": 64, "buffer": "w"}])"),
                 "--out", s.path("o4"), "-q"})
            .exit_code == 0);
}

TEST_CASE("semantic checks: head_tokens beyond the sequence, heads not dividing hidden",
          "[reliability][semantic]") {
  Scratch s;
  const std::string bert = source_path("configs/workloads/bert_large_phased_pod64.json");
  expect_refused(
      run_cli(s, {"run", bert, "--set", "workload.model.transformer.head_tokens=100000", "--out",
                  s.path("o")}),
      {"/workload/model/transformer/head_tokens", "head_tokens (100000)", "sequence_length (128)"});
  expect_refused(run_cli(s, {"run", bert, "--set", "workload.model.transformer.heads=7", "--out",
                             s.path("o")}),
                 {"/workload/model/transformer/heads", "heads (7) must divide hidden (1024)"});
}
