// Training throughput and parameter counts through the CLI, against hand-worked values:
// samples/s = global batch (data-parallel replicas x micro-batch x accumulationFactor, times
// batchesPerStep) / run time, tokens/s = samples/s x sequence length, and the parameters of a
// tensor-parallel transformer per replica (one shard) and for the whole model.
#include <catch2/catch.hpp>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

// A small GPT-like transformer: 2 layers, hidden 64, 4 heads, sequence 32, vocabulary 1000.
constexpr std::uint64_t kLayers = 2, kHidden = 64, kSeq = 32, kVocab = 1000;

/// Weights of the transformer generator (lm head) with tensor-parallel degree `tp`, counted
/// by hand from its shapes: word embedding (vocab/tp x h, split), position embedding (seq x h),
/// per layer qkv (h x 3h/tp), attention output (h/tp x h), ff1 (h x 4h/tp), ff2 (4h/tp x h)
/// and biases + norms ((4 + 9) h, whole), head dense (h x h/tp) and decoder (h x vocab/tp).
/// `whole` counts every split weight tp times.
std::uint64_t transformer_parameters(std::uint64_t tp, bool whole) {
  const std::uint64_t h = kHidden, copies = whole ? tp : 1;
  const std::uint64_t split =
      (kVocab / tp) * h +
      kLayers * (h * 3 * h / tp + h / tp * h + h * 4 * h / tp + 4 * h / tp * h) + h * h / tp +
      h * (kVocab / tp);
  const std::uint64_t unsplit = kSeq * h + kLayers * 13 * h;
  return split * copies + unsplit;
}

std::string phased_transformer(const Scratch& s, int tensor_parallel) {
  const Json cfg = {{"$include", {source_path("configs/systems/pod4.json")}},
                    {"workload",
                     {{"kind", "training"},
                      {"model",
                       {{"generator", "transformer"},
                        {"transformer",
                         {{"layers", kLayers},
                          {"hidden", kHidden},
                          {"heads", 4},
                          {"sequence_length", kSeq},
                          {"vocab", kVocab},
                          {"micro_batch", 4},
                          {"tensor_parallel", tensor_parallel}}}}},
                      {"session",
                       {{"replicatedGraphCount", 4},
                        {"accumulationFactor", 3},
                        {"batchSerializationSettings", {{"factor", 2}}}}}}}};
  return s.write("tp" + std::to_string(tensor_parallel) + ".json", cfg.dump(1));
}

}  // namespace

TEST_CASE(
    "throughput: a phased tensor-parallel transformer reports samples/s, tokens/s and both "
    "parameter counts",
    "[cli][training][throughput]") {
  Scratch s;
  const CliResult r = run_cli(s, {"run", phased_transformer(s, 2), "--out", s.path("o")});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const Json report = Json::parse(read_text(s.path("o/report.json")));
  const Json& w = report["workload"];
  const double step_ns = report["simulated"]["time_ns"].get<double>();
  REQUIRE(step_ns > 0);
  // 4 replicas in tensor-parallel pairs: 2 model copies, each 4 samples x 3 accumulated
  // micro-batches.
  CHECK(w["data_parallel_replicas"] == 2);
  CHECK(w["samples_per_step"] == 2 * 4 * 3);
  CHECK(w["samples_per_s"].get<double>() == Approx(24.0 / (step_ns * 1e-9)).epsilon(1e-12));
  CHECK(w["tokens_per_sample"] == kSeq);
  CHECK(w["tokens_per_s"].get<double>() == Approx(24.0 * kSeq / (step_ns * 1e-9)).epsilon(1e-12));
  CHECK_FALSE(w.contains("sequences_per_s"));  // not packed
  CHECK(w["model"]["tensor_parallel"] == 2);
  CHECK(w["model"]["parameters_per_replica"] == transformer_parameters(2, false));
  CHECK(w["model"]["parameters_per_model"] == transformer_parameters(2, true));
  // The summary says what the count covers.
  CHECK_THAT(r.out, Catch::Contains("parameters per replica (a 1/2 tensor-parallel shard of the"));
  CHECK_THAT(r.out, Catch::Contains("samples/s (global batch 24 samples)"));
  CHECK_THAT(r.out, Catch::Contains("tokens/s"));
}

TEST_CASE("throughput: without tensor parallelism a replica holds the whole model",
          "[cli][training][throughput]") {
  Scratch s;
  const CliResult r = run_cli(s, {"run", phased_transformer(s, 1), "--out", s.path("o")});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const Json w = Json::parse(read_text(s.path("o/report.json")))["workload"];
  CHECK(w["data_parallel_replicas"] == 4);
  CHECK(w["samples_per_step"] == 4 * 4 * 3);
  CHECK(w["model"]["parameters_per_replica"] == transformer_parameters(1, false));
  CHECK(w["model"]["parameters_per_model"] == transformer_parameters(1, false));
  CHECK_THAT(r.out, Catch::Contains("parameters per replica (the whole model)"));
}

TEST_CASE("throughput: the MNIST MLP preset reports samples/s and no tokens",
          "[cli][training][throughput]") {
  Scratch s;
  const CliResult r = run_cli(s, {"run", source_path("configs/workloads/mnist_phased.json"),
                                  "--out", s.path("o"), "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json report = Json::parse(read_text(s.path("o/report.json")));
  const Json& w = report["workload"];
  // 2 replicas x micro-batch 32 (configs/workloads/mnist_phased.json), accumulationFactor 1.
  CHECK(w["samples_per_step"] == 64);
  CHECK(w["samples_per_s"].get<double>() ==
        Approx(64.0 / (report["simulated"]["time_ns"].get<double>() * 1e-9)).epsilon(1e-12));
  CHECK_FALSE(w.contains("tokens_per_s"));
  // 784-512-512-512-10 with biases.
  const std::uint64_t params = 784 * 512 + 512 + 512 * 512 + 512 + 512 * 512 + 512 + 512 * 10 + 10;
  CHECK(w["model"]["parameters_per_replica"] == params);
  CHECK(w["model"]["parameters_per_model"] == params);
}
