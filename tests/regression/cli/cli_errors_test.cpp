// Errors that guide: the option that decides the phase count, PopART's CommGroup object
// accepted (and its forms listed when wrong), the transformer key at fault.
#include <catch2/catch.hpp>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

const char* kBert = "configs/workloads/bert_large_phased_pod64.json";

CliResult run_bert(const Scratch& s, const std::string& set, const std::string& out) {
  return run_cli(s, {"run", source_path(kBert), "--set", set, "--out", s.path(out), "-q"});
}

Json report_without_run_info(const std::string& path) {
  Json r = Json::parse(read_text(path));
  r.erase("run_info");
  return r;
}

}  // namespace

TEST_CASE("too few execution phases names the options that set them and the minimum",
          "[cli][errors]") {
  Scratch s;
  const CliResult r = run_bert(s, "workload.session.executionPhaseSettings.phases=4", "a");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err,
             Catch::Contains("/workload/session/executionPhaseSettings/phases to at least 10") &&
                 Catch::Contains("layers_per_phase"));
  // The minimum it names is exact: one phase fewer fails, that many runs.
  CHECK(run_bert(s, "workload.session.executionPhaseSettings.phases=9", "b").exit_code == 2);
  CHECK(run_bert(s, "workload.session.executionPhaseSettings.phases=10", "c").exit_code == 0);
}

TEST_CASE("shardingDomain takes PopART's CommGroup object, and lists the forms when wrong",
          "[cli][errors]") {
  Scratch s;
  const std::string key = "workload.session.weightTensorLocationSettings.location.shardingDomain=";
  REQUIRE(
      run_bert(s, key + R"({"type": "Consecutive", "replicaGroupSize": 16})", "object").exit_code ==
      0);
  REQUIRE(run_bert(s, key + R"("consecutive:16")", "text").exit_code == 0);
  CHECK(report_without_run_info(s.path("object/report.json")) ==
        report_without_run_info(s.path("text/report.json")));
  const CliResult bad = run_bert(s, key + R"({"type": "Consecutive"})", "bad");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("/location/shardingDomain") &&
                          Catch::Contains("consecutive:K") && Catch::Contains("replicaGroupSize"));
}

TEST_CASE("heads that do not divide hidden are reported at heads", "[cli][errors]") {
  Scratch s;
  const CliResult r = run_bert(s, "workload.model.transformer.heads=7", "h");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(
                        "/workload/model/transformer/heads: heads (7) must divide hidden (1024)"));
}

TEST_CASE("a dropout key that is not true or false exits 2 naming its JSON path",
          "[cli][errors][dropout]") {
  Scratch s;
  const CliResult r = run_bert(s, "workload.model.transformer.no_dropout=\"yes\"", "d");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/workload/model/transformer/no_dropout: expected true or "
                                    "false, got \"yes\""));
  const CliResult a = run_bert(s, "workload.model.transformer.no_attn_dropout=2", "a");
  CHECK(a.exit_code == 2);
  CHECK_THAT(a.err, Catch::Contains("/workload/model/transformer/no_attn_dropout"));
  // Both false runs (the phased BERT with every dropout).
  CHECK(run_bert(s, "workload.model.transformer.no_dropout=false", "ok").exit_code == 0);
}

TEST_CASE("PopART's enum spellings are accepted in configs and mean the same", "[cli][errors]") {
  Scratch s;
  const std::string loc = "workload.session.weightTensorLocationSettings.location.";
  const CliResult popart = run_cli(
      s, {"run", source_path(kBert), "--set", loc + "storage=\"OffChip\"", "--set",
          loc + "loadTileSet=\"TileSet.IO\"", "--set", loc + "replicatedTensorSharding=\"On\"",
          "--set", "workload.session.batchSerializationSettings.batchSchedule=\"OverlapOnCompute\"",
          "--out", s.path("popart"), "-q"});
  INFO(popart.err);
  REQUIRE(popart.exit_code == 0);
  const CliResult own = run_cli(
      s, {"run", source_path(kBert), "--set", loc + "storage=\"off_chip\"", "--set",
          loc + "loadTileSet=\"io\"", "--set", loc + "replicatedTensorSharding=\"on\"", "--set",
          "workload.session.batchSerializationSettings.batchSchedule=\"overlap_on_compute\"",
          "--out", s.path("own"), "-q"});
  REQUIRE(own.exit_code == 0);
  CHECK(report_without_run_info(s.path("popart/report.json")) ==
        report_without_run_info(s.path("own/report.json")));
  const CliResult bad = run_bert(s, loc + "storage=\"Offchipp\"", "bad");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("/location/storage") &&
                          Catch::Contains("on_chip, off_chip") && Catch::Contains("OffChip"));
}

TEST_CASE("an unknown host attachment exits 2 naming its path and the choices", "[cli][errors]") {
  Scratch s;
  const std::string setup = source_path("configs/validation/setups/citadel_gc2_ladder16.json");
  const CliResult bad = run_cli(
      s, {"run", setup, "--set", "machine.host_attachment=pci", "--out", s.path("a"), "-q"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("/machine/host_attachment") && Catch::Contains("gateway") &&
                          Catch::Contains("pcie_card"));
  const CliResult ok = run_cli(s, {"run", setup, "--out", s.path("b"), "-q"});
  CHECK(ok.exit_code == 0);
}

TEST_CASE("the SDK key of old on the chip exits 2 naming /software/poplar_sdk_version",
          "[cli][errors]") {
  Scratch s;
  // In a file: the chip preset's key before the SDK became the run's.
  const std::string file =
      s.write("old.json", R"({"$include": [")" + source_path("configs/chips/gc2.json") +
                              R"("], "chip": {"amp_vertex_sdk_major": 1}, "workload": {"kind": )"
                              R"("microbenchmark", "steps": [{"kind": "sync", "ipus": 1}]}})");
  const CliResult bad = run_cli(s, {"run", file, "--out", s.path("a"), "-q"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("/chip/amp_vertex_sdk_major") &&
                          Catch::Contains("moved to /software/poplar_sdk_version"));
  // As an override: the same message.
  const std::string setup = source_path("configs/validation/setups/citadel_gc2_ladder16.json");
  const CliResult set = run_cli(
      s, {"run", setup, "--set", "chip.amp_vertex_sdk_major=2", "--out", s.path("b"), "-q"});
  CHECK(set.exit_code == 2);
  CHECK_THAT(set.err, Catch::Contains("moved to /software/poplar_sdk_version"));
  // A release the model has no estimates of: exit 2 with the choices.
  const CliResult other = run_cli(
      s, {"run", setup, "--set", "software.poplar_sdk_version=2.2.0", "--out", s.path("c"), "-q"});
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.err, Catch::Contains("/software/poplar_sdk_version") &&
                            Catch::Contains("1.0.49, 2.1.0, 2.3.0, 2.4.0, 2.5.1"));
  // "2.1" reads as a JSON number: exit 2, a string expected.
  const CliResult number = run_cli(
      s, {"run", setup, "--set", "software.poplar_sdk_version=2.1", "--out", s.path("d"), "-q"});
  CHECK(number.exit_code == 2);
  CHECK_THAT(number.err, Catch::Contains("/software/poplar_sdk_version: expected a string"));
}

TEST_CASE("rts_domain beside explicit sharding settings is refused, not silently overridden",
          "[cli][errors][rts]") {
  Scratch s;
  // The phased BERT sets replicatedTensorSharding and shardingDomain explicitly: the shorthand
  // used to be ignored, so a sweep over it gave one time for every value.
  const CliResult r = run_bert(s, "workload.session.rts_domain=pod", "r");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/workload/session/rts_domain: 'pod' is a shorthand") &&
                        Catch::Contains("/workload/session/weightTensorLocationSettings/location/"
                                        "replicatedTensorSharding"));
  // plan writes the settings explicitly for every candidate and the config as given, so it
  // refuses a config written with the shorthand before simulating anything.
  const CliResult p = run_cli(s, {"plan", source_path("configs/workloads/gpt3_2p7b_pod128.json"),
                                  "--out", s.path("p"), "--slurm-script-only", "-q"});
  CHECK(p.exit_code == 2);
  CHECK_THAT(p.err, Catch::Contains("/workload/session/rts_domain: plan searches"));
}

TEST_CASE("plan refuses an ONNX model instead of searching a transformer's keys",
          "[cli][errors][plan]") {
  Scratch s;
  // The ONNX ResNet-50 config has no generator key: plan used to take the registry's default,
  // transformer, and vary workload.model.transformer.micro_batch, which the model never reads.
  const CliResult p = run_cli(s, {"plan", source_path("configs/workloads/onnx_resnet50_pod16.json"),
                                  "--out", s.path("p"), "--slurm-script-only", "-q"});
  CHECK(p.exit_code == 2);
  CHECK_THAT(p.err, Catch::Contains("/workload/model/generator: plan searches the transformer "
                                    "and cnn generators, got 'onnx'"));
}
