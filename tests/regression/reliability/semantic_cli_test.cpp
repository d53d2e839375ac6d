// Semantic validation through the CLI (issue 15): each bad input is exit 2 before anything
// runs, naming the flag, file or JSON path and the values.
#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim::test;

namespace {

void expect_bad_input(const CliResult& r, const std::vector<std::string>& needles) {
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  for (const auto& n : needles) CHECK(r.err.find(n) != std::string::npos);
}

}  // namespace

TEST_CASE("semantic cli: validate and regress check overrides and expectations before running",
          "[reliability][semantic]") {
  Scratch s;
  expect_bad_input(run_cli(s, {"validate", "--set", "chip.tiles=abc"}),
                   {"--set chip.tiles", "expected an integer", "\"abc\""});
  const std::string dir = s.path("cases");
  s.write("cases/fast.json",
          R"({"config": ")" + rail_transfer_config() + R"(", "expected": {"time_ns": "fast"}})");
  expect_bad_input(run_cli(s, {"regress", dir}),
                   {"fast.json", "/expected/time_ns", "expected a number of nanoseconds"});
}

TEST_CASE("semantic cli: tiles_per_supertile must divide the tiles", "[reliability][semantic]") {
  Scratch s;
  expect_bad_input(run_cli(s, {"run", rail_transfer_config(), "--set", "chip.tiles_per_supertile=3",
                               "--out", s.path("o")}),
                   {"/chip/tiles_per_supertile", "3 does not divide /chip/tiles (1472)"});
}

TEST_CASE("semantic cli: --input and --tile-mapping errors name the flag and the file",
          "[reliability][semantic]") {
  Scratch s;
  expect_bad_input(run_cli(s, {"collective", "--system", "pod4", "--elements", "2", "--input",
                               s.path("missing.json")}),
                   {"--input " + s.path("missing.json"), "cannot open"});
  const std::string bad = s.write("short.json", "[[1,2],[3]]");
  expect_bad_input(
      run_cli(s, {"collective", "--system", "pod4", "--elements", "2", "--input", bad}),
      {"--input " + bad + ": /workload/input", "4 arrays of 2 numbers"});
  expect_bad_input(run_cli(s, {"collective", "--system", "pod4", "--elements", "8",
                               "--shard-domain", "consecutive:4", "--tile-mapping", s.path("")}),
                   {"--tile-mapping", "is a directory"});
}

TEST_CASE("semantic cli: extra positional arguments, declared lists in --set, divisibility values",
          "[reliability][semantic]") {
  Scratch s;
  expect_bad_input(
      run_cli(s, {"run", rail_transfer_config(), "extra1", "extra2"}),
      {"unexpected argument 'extra1', 'extra2'", "takes 1 positional argument (config)"});
  const CliResult ops = run_cli(s, {"run", source_path("configs/workloads/mnist_phased.json"),
                                    "--set", "workload.model.ops=[]", "--out", s.path("o")});
  expect_bad_input(ops, {"/workload/model/ops is a list or object", "write it in the config file"});
  CHECK(ops.err.find("did you mean") == std::string::npos);
  expect_bad_input(run_cli(s, {"groups", "--replicas", "10", "--comm-group", "consecutive:4"}),
                   {"must be divisible by the product", "numReplicas=10, stride=1, groupSize=4"});
}

TEST_CASE("semantic cli: calibrate -j 0 is bad input, as in sweep and validate",
          "[reliability][semantic]") {
  Scratch s;
  expect_bad_input(
      run_cli(s, {"calibrate", source_path("configs/validation/cases"), "--params",
                  "/machine/host_link/efficiency", "-j", "0", "--out", s.path("fit.json")}),
      {"--jobs 0", "expected 1 to"});
}
