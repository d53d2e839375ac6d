// /sim/max_wall_s: a run far longer than the limit stops cleanly with exit 3 naming the
// limit and the simulated time reached; a generous limit (which runs the kernel in slices)
// gives a report identical to the unlimited run outside run_info.
#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

TEST_CASE("max_wall_s stops a long run cleanly with exit 3 naming where it was",
          "[reliability][wall]") {
  Scratch s;
  // 10^7 repeats of a transfer take several seconds; the limit is 0.2 s.
  const CliResult r =
      run_cli(s, {"run", rail_transfer_config(), "--set", "workload.steps.0.repeat=10000000",
                  "--set", "sim.max_wall_s=0.2", "--out", s.path("out"), "--quiet"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("/sim/max_wall_s limit of 0.2 s was reached at simulated time") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(s.path("out/report.json")));
}

TEST_CASE("max_wall_s: the sliced kernel run gives the same report as the plain one",
          "[reliability][wall]") {
  Scratch s;
  const std::vector<std::string> base = {"run", rail_transfer_config(), "--set",
                                         "workload.steps.0.repeat=2000", "--quiet"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  REQUIRE(run_cli(s, with({"--out", s.path("plain")})).exit_code == 0);
  REQUIRE(run_cli(s, with({"--set", "sim.max_wall_s=1000", "--out", s.path("sliced")})).exit_code ==
          0);
  Json plain = cli::read_json_file(s.path("plain/report.json"));
  Json sliced = cli::read_json_file(s.path("sliced/report.json"));
  plain.erase("run_info");
  sliced.erase("run_info");
  CHECK(plain == sliced);
  CHECK(plain["simulated"]["time_ns"].get<double>() > 0);
}
