// Sizes and rates with units in config values and flags, the warning on an implausible
// bandwidth, the renamed IPU-Link key, system presets on `run --system` and `describe`, the
// system named as it ran, and README commands run from another folder.
#include <catch2/catch.hpp>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

Json read_json(const std::string& path) { return Json::parse(read_text(path)); }

/// The lone IPU-Link transfer (IPU 0 -> 2 on a Pod16) with `sets`; its report.
Json rail_report(const Scratch& s, const std::string& out, const std::vector<std::string>& sets,
                 const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"run", rail_transfer_config(), "--out", s.path(out), "-q"};
  for (const auto& set : sets) args.insert(args.end(), {"--set", set});
  args.insert(args.end(), extra.begin(), extra.end());
  const CliResult r = run_cli(s, args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return read_json(s.path(out + "/report.json"));
}

/// Runs `ipusim ARGS` with `dir` as the working directory (coreutils env -C).
CliResult run_cli_in(const Scratch& s, const std::string& dir,
                     const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/env", "-C", dir, cli_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  const cli::ProcessResult r = cli::run_process({argv, s.path("in_dir.out"), s.path("in_dir.err")});
  return {r.exit_code, read_text(s.path("in_dir.out")), read_text(s.path("in_dir.err"))};
}

}  // namespace

TEST_CASE("byte sizes with units in --set and in JSON config values equal the plain counts",
          "[cli][units]") {
  Scratch s;
  const Json plain = rail_report(s, "plain", {"workload.steps.0.bytes=1048576"});
  const Json text = rail_report(s, "text", {"workload.steps.0.bytes=1MiB"});
  CHECK(text["simulated"] == plain["simulated"]);
  // The resolved config records the number the text stands for (2^20).
  CHECK(read_json(s.path("text/resolved_config.json"))["workload"]["steps"][0]["bytes"] == 1048576);
  // The same as a string in a config file (decimal MB: 10^6 bytes).
  const std::string config = s.write(
      "mb.json",
      R"({"$include": [")" + rail_transfer_config() +
          R"("], "workload": {"kind": "microbenchmark", "steps": [{"kind": "transfer", "src_ipu": 0, "dst_ipu": 2, "bytes": "1MB"}]}})");
  const CliResult r = run_cli(s, {"run", config, "--out", s.path("mb"), "-q"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(read_json(s.path("mb/resolved_config.json"))["workload"]["steps"][0]["bytes"] == 1000000);
  const Json decimal = rail_report(s, "decimal", {"workload.steps.0.bytes=1000000"});
  CHECK(read_json(s.path("mb/report.json"))["simulated"] == decimal["simulated"]);
  // Bad text is bad input naming the path and what is expected.
  const CliResult bad = run_cli(s, {"run", rail_transfer_config(), "--set",
                                    "workload.steps.0.bytes=1 MiBB", "--out", s.path("bad")});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err,
             Catch::Contains("/workload/steps/0/bytes") && Catch::Contains("a size with its unit"));
}

TEST_CASE("trace-max-bytes takes a size with a unit", "[cli][units]") {
  Scratch s;
  const CliResult r = run_cli(s, {"run", rail_transfer_config(), "--out", s.path("t"), "--trace",
                                  "--trace-max-bytes", "0.5KB"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("trace stopped at --trace-max-bytes 500 ") != std::string::npos);
  const CliResult bad = run_cli(s, {"run", rail_transfer_config(), "--out", s.path("b"), "--trace",
                                    "--trace-max-bytes", "5 apples"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--trace-max-bytes: expected a byte count"));
}

TEST_CASE(
    "bandwidth keys are GB/s: rate text converts, a Gbit/s number warns, the old Gbit/s key is an "
    "error",
    "[cli][units]") {
  Scratch s;
  // 128 Gbit/s = 16 GB/s: the same link, the same time.
  const Json bits = rail_report(s, "bits", {"ipu_link.bandwidth_GBps_per_link=128Gbit/s"});
  const Json bytes = rail_report(s, "bytes", {"ipu_link.bandwidth_GBps_per_link=16"});
  CHECK(bits["simulated"] == bytes["simulated"]);
  // The datasheet's Gbit/s number typed into the GB/s key runs (8x faster) with a warning.
  const CliResult loud = run_cli(s, {"run", rail_transfer_config(), "--out", s.path("w"), "--set",
                                     "ipu_link.bandwidth_GBps_per_link=128"});
  INFO(loud.err);
  REQUIRE(loud.exit_code == 0);
  CHECK_THAT(loud.err, Catch::Contains("/ipu_link/bandwidth_GBps_per_link = 128 GB/s is outside "
                                       "the plausible range [1, 64] GB/s") &&
                           Catch::Contains("Gbit/s / 8"));
  // Presets stay quiet.
  const CliResult quiet = run_cli(s, {"run", rail_transfer_config(), "--out", s.path("d")});
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.err.find("plausible") == std::string::npos);
  // The Gbit/s key of old: an error saying what to write instead, from a file and from --set.
  const std::string old =
      s.write("old.json", R"({"$include": [")" + rail_transfer_config() +
                              R"("], "ipu_link": {"bandwidth_Gbps_per_link": 137.438953472}})");
  for (const CliResult& e :
       {run_cli(s, {"run", old, "--out", s.path("o1")}),
        run_cli(s, {"run", rail_transfer_config(), "--set", "ipu_link.bandwidth_Gbps_per_link=100",
                    "--out", s.path("o2")})}) {
    CHECK(e.exit_code == 2);
    CHECK_THAT(e.err, Catch::Contains("/ipu_link/bandwidth_Gbps_per_link") &&
                          Catch::Contains("did you mean 'bandwidth_GBps_per_link'") &&
                          Catch::Contains("divide the Gbit/s number by 8"));
  }
}

TEST_CASE("describe and run --system take preset names", "[cli][systems]") {
  Scratch s;
  const CliResult by_name = run_cli(s, {"describe", "pod64", "--json"});
  const CliResult by_path =
      run_cli(s, {"describe", source_path("configs/systems/pod64.json"), "--json"});
  INFO(by_name.err);
  REQUIRE(by_name.exit_code == 0);
  CHECK(by_name.out == by_path.out);
  CHECK(Json::parse(by_name.out)["ipus"] == 64);
  const CliResult typo = run_cli(s, {"describe", "pod65"});
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::Contains("did you mean 'pod64'"));
  // The Pod16 transfer config run on the pod64 preset: a Pod64 (16 machines of 4 IPUs) named so.
  const Json on64 = rail_report(s, "on64", {}, {"--system", "pod64"});
  CHECK(on64["system"] == "pod64");
  CHECK(read_json(s.path("on64/resolved_config.json"))["system"]["machines_per_ild"] == 16);
  // --set applies after --system.
  const Json on64_slow =
      rail_report(s, "on64_slow", {"ipu_link.latency_ns=1000"}, {"--system", "pod64"});
  CHECK(on64_slow["simulated"]["time_ns"].get<double>() >
        on64["simulated"]["time_ns"].get<double>());
}

TEST_CASE("the report and the summary name the system as it ran", "[cli][systems]") {
  Scratch s;
  // pod16 with 2 machines per IPU-Link domain instead of 4: 8 IPUs, a Pod8.
  const Json pod8 = rail_report(s, "pod8", {"system.machines_per_ild=2"});
  CHECK(pod8["system"] == "pod8");
  const CliResult summary = run_cli(s, {"run", rail_transfer_config(), "--set",
                                        "system.machines_per_ild=2", "--out", s.path("p")});
  CHECK(summary.out.find("on pod8") != std::string::npos);
  // pod64 with 2 domains joined by a GW-Link ring is a Pod128; Bow names keep their prefix.
  const CliResult pod128 = run_cli(s, {"describe", "pod64", "--set", "system.num_ilds=2", "--set",
                                       "system.gw_topology=ring", "--json"});
  REQUIRE(pod128.exit_code == 0);
  CHECK(Json::parse(pod128.out)["system"] == "pod128");
  CHECK(Json::parse(pod128.out)["ipus"] == 128);
  const CliResult bow = run_cli(s, {"describe", "bow_pod64", "--set", "system.num_ilds=2", "--set",
                                    "system.gw_topology=ring", "--json"});
  CHECK(Json::parse(bow.out)["system"] == "bow_pod128");
  // A name that is not a Pod size is kept.
  const CliResult multipod =
      run_cli(s, {"describe", "multipod", "--set", "system.num_ilds=2", "--json"});
  CHECK(Json::parse(multipod.out)["system"] == "multipod");
}

TEST_CASE("README commands work from another folder: checkout paths resolve", "[cli][systems]") {
  Scratch s;
  const CliResult run = run_cli_in(
      s, s.dir.string(),
      {"run", "configs/validation/setups/ipulink_rail_transfer_pod16.json", "--out", "o", "-q"});
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK(read_json(s.path("o/report.json"))["system"] == "pod16");
  const CliResult describe =
      run_cli_in(s, s.dir.string(), {"describe", "configs/systems/pod16.json"});
  CHECK(describe.exit_code == 0);
  const CliResult collective = run_cli_in(
      s, s.dir.string(),
      {"collective", "--system", "configs/systems/pod16.json", "--bytes", "1MiB", "--json"});
  CHECK(collective.exit_code == 0);
  // docs/onnx.md's import command, whose model path is in the checkout.
  const CliResult import = run_cli_in(s, s.dir.string(),
                                      {"import", "tests/onnx/models/mlp.onnx", "--input-shape",
                                       "x=8,784", "--input-shape", "labels=8", "--json"});
  INFO(import.err);
  CHECK(import.exit_code == 0);
  // A path that exists nowhere is still named as given.
  const CliResult missing = run_cli_in(s, s.dir.string(), {"run", "configs/no_such.json"});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("configs/no_such.json"));
}

TEST_CASE("a run on a partition of the system says so in the summary", "[cli][systems]") {
  Scratch s;
  // mnist_phased: 2 replicas x 1 IPU on a pod4, i.e. 2 of its 4 IPUs; on a pod16 through
  // --system still 2 replicas, and the summary must not read as a whole-system figure.
  const std::string cfg = source_path("configs/workloads/mnist_phased.json");
  const CliResult own = run_cli(s, {"run", cfg, "--out", s.path("own")});
  REQUIRE(own.exit_code == 0);
  CHECK_THAT(own.out, Catch::Contains("2 replicas x 1 IPU(s) (2 of the system's 4 IPUs: "
                                      "/workload/session/replicatedGraphCount)"));
  const CliResult big = run_cli(s, {"run", cfg, "--system", "pod16", "--out", s.path("big")});
  REQUIRE(big.exit_code == 0);
  CHECK_THAT(big.out, Catch::Contains("(2 of the system's 16 IPUs"));
  // Replicas that fill the system: no note.
  const CliResult all = run_cli(
      s, {"run", cfg, "--set", "workload.session.replicatedGraphCount=4", "--out", s.path("all")});
  REQUIRE(all.exit_code == 0);
  CHECK_THAT(all.out, Catch::Contains("4 replicas x 1 IPU(s)\n") ||
                          Catch::Contains("4 replicas x 1 IPU(s),"));
  CHECK_THAT(all.out, !Catch::Contains("of the system's"));
}
