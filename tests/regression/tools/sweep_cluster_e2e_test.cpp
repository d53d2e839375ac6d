// `ipusim sweep` beyond one machine, end to end: shards run by hand then --collect equal a
// local sweep; --slurm-script-only; bad shard / axis / Slurm flags are exit 2 naming the flag.
#include <catch2/catch.hpp>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// A 6-point sweep over the lone-transfer config.
std::string write_six_point_sweep(const Scratch& s) {
  return s.write(
      "sweep.json",
      R"({"base": ")" + rail_transfer_config() +
          R"(", "axes": [{"path": "workload.steps.0.bytes", "values": [1048576, 2097152, 4194304]},
                                                  {"path": "workload.steps.0.dst_ipu", "values": [1, 2]}]})");
}

}  // namespace

TEST_CASE("three shards run by hand, then --collect, equal the local sweep byte for byte",
          "[e2e][sweep][shard]") {
  Scratch s;
  const std::string sweep = write_six_point_sweep(s);
  REQUIRE(run_cli(s, {"sweep", sweep, "--out", s.path("local"), "--quiet"}).exit_code == 0);

  // Before any shard ran, everything is missing (exit 1, the missing points listed).
  const CliResult none =
      run_cli(s, {"sweep", sweep, "--out", s.path("sharded"), "--collect", "--quiet"});
  CHECK(none.exit_code == 1);
  CHECK_THAT(none.err, Catch::Contains("missing points: 0-5"));

  const CliResult first =
      run_cli(s, {"sweep", sweep, "--out", s.path("sharded"), "--shard", "0/3", "--quiet"});
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.out, Catch::Contains("2 of 6 points (2 run, 0 reused)"));  // points 0 and 3
  CHECK(fs::is_regular_file(s.path("sharded/points/0000/done.json")));
  CHECK(fs::is_regular_file(s.path("sharded/points/0003/done.json")));
  CHECK_FALSE(fs::exists(s.path("sharded/points/0001")));

  const CliResult partial =
      run_cli(s, {"sweep", sweep, "--out", s.path("sharded"), "--collect", "--quiet"});
  CHECK(partial.exit_code == 1);
  CHECK_THAT(partial.err, Catch::Contains("missing points: 1-2, 4-5"));
  CHECK_THAT(partial.out, Catch::Contains("6 points: 2 ok, 0 failed, 4 missing"));

  for (const char* shard : {"1/3", "2/3"}) {
    REQUIRE(run_cli(s, {"sweep", sweep, "--out", s.path("sharded"), "--shard", shard, "--quiet"})
                .exit_code == 0);
  }
  const CliResult all =
      run_cli(s, {"sweep", sweep, "--out", s.path("sharded"), "--collect", "--quiet"});
  INFO(all.out << all.err);
  CHECK(all.exit_code == 0);
  CHECK_THAT(all.out, Catch::Contains("6 points: 6 ok, 0 failed, 0 missing"));
  CHECK(read_text(s.path("sharded/results.csv")) == read_text(s.path("local/results.csv")));

  // A shard rerun with --resume reuses its finished points.
  const CliResult again = run_cli(
      s, {"sweep", sweep, "--out", s.path("sharded"), "--shard", "1/3", "--resume", "--quiet"});
  CHECK_THAT(again.out, Catch::Contains("(0 run, 2 reused)"));
}

TEST_CASE("sweep --slurm-script-only writes the job array and --json describes it",
          "[e2e][sweep][slurm]") {
  Scratch s;
  const std::string sweep = write_six_point_sweep(s);
  const CliResult r =
      run_cli(s, {"sweep", sweep, "--out", s.path("o"), "--slurm-script-only", "--array-size", "4",
                  "--partition", "batch", "--time", "0:30:00", "--jobs", "2", "--json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const Json doc = Json::parse(r.out);
  CHECK(doc["array_size"] == 4);
  CHECK(doc["points"] == 6);
  const std::string script = read_text(doc["script"].get<std::string>());
  CHECK_THAT(script, Catch::Contains("#SBATCH --array=0-3\n"));
  CHECK_THAT(script, Catch::Contains("#SBATCH --partition=batch\n"));
  CHECK_THAT(script, Catch::Contains("#SBATCH --time=0:30:00\n"));
  CHECK_THAT(script,
             Catch::Contains("--shard \"${SLURM_ARRAY_TASK_ID}/4\" --jobs 2 --resume --quiet"));
  CHECK_FALSE(fs::exists(s.path("o/points")));  // nothing ran
}

TEST_CASE("bad shard, Slurm flags and axis keys are bad input naming the flag or axis",
          "[e2e][sweep][shard]") {
  Scratch s;
  const std::string sweep = write_six_point_sweep(s);
  const CliResult shard = run_cli(s, {"sweep", sweep, "--out", s.path("o"), "--shard", "3/3"});
  CHECK(shard.exit_code == 2);
  CHECK_THAT(shard.err, Catch::Contains("--shard"));
  const CliResult time =
      run_cli(s, {"sweep", sweep, "--out", s.path("o"), "--slurm-script-only", "--time", "1h"});
  CHECK(time.exit_code == 2);
  CHECK_THAT(time.err, Catch::Contains("--time"));
  const CliResult lone = run_cli(s, {"sweep", sweep, "--out", s.path("o"), "--partition", "x"});
  CHECK(lone.exit_code == 2);
  CHECK_THAT(lone.err, Catch::Contains("--partition only applies with --slurm"));

  // A misspelt axis key fails up front: exit 2 naming the axis, and no point runs.
  const std::string bad = s.write(
      "bad.json", R"({"base": ")" + rail_transfer_config() +
                      R"(", "axes": [{"path": "workload.steps.0.bites", "values": [1, 2]}]})");
  const CliResult axis = run_cli(s, {"sweep", bad, "--out", s.path("bad")});
  CHECK(axis.exit_code == 2);
  CHECK_THAT(axis.err, Catch::Contains("/axes/0/path") && Catch::Contains("did you mean 'bytes'"));
  CHECK_FALSE(fs::exists(s.path("bad/points")));
}

TEST_CASE("sweep --json prints the results document", "[e2e][sweep]") {
  Scratch s;
  const std::string sweep = s.write(
      "sweep.json",
      R"({"base": ")" + rail_transfer_config() +
          R"(", "axes": [{"path": "workload.steps.0.bytes", "values": [1048576, 2097152]}]})");
  const CliResult r = run_cli(s, {"sweep", sweep, "--out", s.path("o"), "--json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const Json doc = Json::parse(r.out);
  REQUIRE(doc["rows"].size() == 2);
  CHECK(doc["rows"][1]["workload.steps.0.bytes"] == 2097152);
  CHECK(doc == cli::read_json_file(s.path("o/results.json")));
}
