// /sim/max_wall_s bounds the forked trials of algorithm "best" too: a trial still running at
// the run's deadline stops and the run ends with exit 3 naming the candidate and where it was;
// a generous limit (trials then run their kernel in slices) changes nothing in the report.
#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

TEST_CASE("best: a trial past /sim/max_wall_s stops the run with exit 3 naming the candidate",
          "[reliability][wall]") {
  Scratch s;
  // A trial of a 256 MiB AllReduce on the packet model simulates 17.3 ms; on the 2-core CI
  // machine it reaches about 0.29 ms of that in 0.5 s of wall time, so a machine would have to
  // be about 60x faster to finish it within the limit, and a slower one stops it all the same.
  const CliResult r =
      run_cli(s, {"collective", "--system", source_path("configs/systems/pod16.json"), "--bytes",
                  "268435456", "--set", "sim.network_model=packet", "--algorithm", "best", "--set",
                  "sim.max_wall_s=0.5", "--out", s.path("out"), "--quiet"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 3);
  // The first candidate (clockwise) is the one stopped (or, on a very slow machine, not
  // started because building the system already took the time).
  CHECK(r.err.find("algorithm best: the trial of candidate 'clockwise'") != std::string::npos);
  CHECK(r.err.find("the /sim/max_wall_s limit of 0.5 s was reached") != std::string::npos);
  CHECK_FALSE(fs::exists(s.path("out/report.json")));
}

TEST_CASE("best: a generous /sim/max_wall_s gives the same report as none", "[reliability][wall]") {
  Scratch s;
  const std::vector<std::string> base = {
      "collective", "--system", source_path("configs/systems/pod16.json"),
      "--bytes",    "1048576",  "--algorithm",
      "best",       "--quiet"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  REQUIRE(run_cli(s, with({"--out", s.path("plain")})).exit_code == 0);
  REQUIRE(
      run_cli(s, with({"--set", "sim.max_wall_s=1000", "--out", s.path("limited")})).exit_code ==
      0);
  Json plain = cli::read_json_file(s.path("plain/report.json"));
  Json limited = cli::read_json_file(s.path("limited/report.json"));
  plain.erase("run_info");
  limited.erase("run_info");
  CHECK(plain == limited);
  CHECK(plain["workload"]["best"]["candidates"].size() >= 3);
}
