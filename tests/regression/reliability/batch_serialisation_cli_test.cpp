// micro_batch is PopART's micro-batch (issue 15): batchSerializationSettings.factor must
// divide it (PopART reshapes the batch axis [M] to [factor, M / factor]) and one serialised
// step processes M / factor samples. Worked by hand on the MNIST preset (MLP 784-512-512-512-10,
// float32, micro_batch 32, factor 4).
#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

const char* kMnist = "configs/workloads/mnist_phased.json";

}  // namespace

TEST_CASE("batch serialisation: a factor that does not divide micro_batch is exit 2 naming both",
          "[reliability][semantic]") {
  Scratch s;
  const CliResult r = run_cli(s, {"run", source_path(kMnist), "--set",
                                  "workload.model.mlp.micro_batch=5", "--out", s.path("o")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/workload/model/mlp/micro_batch: 5 is not divisible by "
                   "/workload/session/batchSerializationSettings/factor (4)") != std::string::npos);
  CHECK(r.err.find("Batch axis") != std::string::npos);  // PopART's rule is quoted
  CHECK_FALSE(fs::exists(s.path("o/report.json")));
}

TEST_CASE("batch serialisation: micro_batch 32 with factor 4 plays 4 steps of 8 samples",
          "[reliability][semantic]") {
  Scratch s;
  const CliResult r =
      run_cli(s, {"run", source_path(kMnist), "--set", "workload.report.list_micro_batches=4",
                  "--out", s.path("o"), "-q"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json report = cli::read_json_file(s.path("o/report.json"));
  // Phase 0 per step: the host input of 8 x 784 float32 = 25,088 B and fc1/fwd of
  // 2 x 8 x 784 x 512 = 6,422,528 flops, once per step (micro_batch index 0..3).
  int inputs = 0, fc1 = 0;
  for (const Json& ph : report["workload"]["phases"]) {
    if (ph["phase"] != 0) continue;
    for (const Json& op : ph["ops"]) {
      if (op["label"] == "input") {
        CHECK(op["bytes"] == 25088);
        CHECK(op["micro_batch"] == inputs++);
      }
      if (op["label"] == "fc1/fwd") {
        CHECK(op["flops"].get<double>() == 6422528.0);
        CHECK(op["micro_batch"] == fc1++);
      }
    }
  }
  CHECK(inputs == 4);
  CHECK(fc1 == 4);
  // The same step as before micro_batch meant one serialised step (micro_batch 8): the golden
  // recorded then.
  const Json golden =
      cli::read_json_file(source_path("tests/regression/workloads/mnist_phased.json"));
  CHECK(report["simulated"]["time_ns"] == golden["expected"]["time_ns"]);
  CHECK(report["memory"]["max_tile_bytes"] == golden["expected"]["max_tile_bytes"]);
}

TEST_CASE("batch serialisation: the pipelined lowering refuses a factor it would ignore",
          "[reliability][semantic]") {
  Scratch s;
  const CliResult r =
      run_cli(s, {"run", source_path("configs/workloads/mlperf_v1.0_bert_pod16.json"), "--set",
                  "workload.session.batchSerializationSettings.factor=2", "--out", s.path("o")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/workload/session/batchSerializationSettings/factor: 2") != std::string::npos);
  CHECK(r.err.find("phased execution only") != std::string::npos);
}
