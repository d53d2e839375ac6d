// `--algorithm best` (simulate every algorithm that can run, take the fastest, report auto's
// choice beside it), and requests that cannot run on the system being bad input (exit 2
// naming the key), end to end.
#include <algorithm>
#include <catch2/catch.hpp>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// `ipusim collective --system pod16 --op allreduce --bytes 1MiB` plus `extra`.
CliResult pod16_allreduce(const Scratch& s, std::vector<std::string> extra) {
  std::vector<std::string> args = {"collective", "--system", "pod16", "--op",
                                   "allreduce",  "--bytes",  "1MiB"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli(s, args);
}

/// report.json without what legitimately differs between a "best" run and a plain run of
/// its choice: run_info and the record of how the algorithm was chosen.
Json comparable_report(const std::string& path) {
  Json r = Json::parse(read_text(path));
  r.erase("run_info");
  r["workload"].erase("best");
  r["workload"].erase("auto_vs_best");  // how it was chosen, like best
  r["workload"].erase("requested_algorithm");
  return r;
}

}  // namespace

TEST_CASE("an algorithm the system cannot run is bad input at /workload/algorithm",
          "[cli][errors][collective]") {
  Scratch s;
  const CliResult r = pod16_allreduce(s, {"--algorithm", "quad_directional", "-q"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/workload/algorithm") && Catch::Contains("barley_twist"));
  // The barley-twist configuration itself needs one IPU per replica: named at link_config.
  const CliResult bt =
      pod16_allreduce(s, {"--link-config", "barley_twist", "--ipus-per-replica", "2", "-q"});
  CHECK(bt.exit_code == 2);
  CHECK_THAT(bt.err,
             Catch::Contains("/workload/link_config") && Catch::Contains("1 IPU per replica"));
  CHECK(
      pod16_allreduce(s, {"--link-config", "barley_twist", "--algorithm", "quad_directional", "-q"})
          .exit_code == 0);
}

TEST_CASE("ipus-per-replica that does not divide the IPU-Link domain is bad input",
          "[cli][errors][collective]") {
  Scratch s;
  const CliResult r = pod16_allreduce(s, {"--ipus-per-replica", "3", "-q"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/workload/ipus_per_replica") &&
                        Catch::Contains("multiple of ipus_per_replica (3)"));
  CHECK(pod16_allreduce(s, {"--ipus-per-replica", "4", "-q"}).exit_code == 0);
  // The same for an RTS-sharded tensor's collectives.
  const CliResult sharded =
      pod16_allreduce(s, {"--shard-domain", "all", "--ipus-per-replica", "3", "-q"});
  CHECK(sharded.exit_code == 2);
  CHECK_THAT(sharded.err, Catch::Contains("/workload/ipus_per_replica"));
}

TEST_CASE("groups: the stride of a size-1 group must divide the replica count as given",
          "[cli][errors][groups]") {
  Scratch s;
  const CliResult bad =
      run_cli(s, {"groups", "--replicas", "4", "--stride", "3", "--group-size", "1"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err,
             Catch::Contains("--stride") && Catch::Contains("must be divisible by the product"));
  const CliResult ok =
      run_cli(s, {"groups", "--replicas", "6", "--stride", "3", "--group-size", "1", "--json"});
  REQUIRE(ok.exit_code == 0);
  CHECK(Json::parse(ok.out)["replica_grouping"] ==
        "ReplicaGrouping(numReplicas=6, stride=1, groupSize=1)");
}

TEST_CASE(
    "algorithm best simulates each runnable algorithm, takes the fastest and reports auto's choice",
    "[cli][collective][best]") {
  Scratch s;
  const CliResult best =
      pod16_allreduce(s, {"--algorithm", "best", "--json", "--out", s.path("best")});
  REQUIRE(best.exit_code == 0);
  const Json w = Json::parse(best.out);
  CHECK(w["requested_algorithm"] == "best");
  const Json& b = w["best"];
  // Pod16 is one IPU-Link domain without the barley twist: no hierarchical, no quad-directional.
  std::vector<std::string> names;
  double fastest = 1e300;
  std::string fastest_name;
  for (const Json& c : b["candidates"]) {
    names.push_back(c["algorithm"]);
    if (c["time_ns"].get<double>() < fastest) {
      fastest = c["time_ns"].get<double>();
      fastest_name = c["algorithm"];
    }
  }
  CHECK(names == std::vector<std::string>{"clockwise", "anticlockwise", "bidirectional_pair",
                                          "meet_in_the_middle", "direct"});
  CHECK(b["not_applicable"].size() == 2);
  CHECK(b["chosen"] == fastest_name);
  CHECK(w["algorithm"] == fastest_name);
  CHECK(b["chosen_time_ns"].get<double>() == fastest);
  // The reported run is the chosen algorithm's own simulation: its time is the trial's.
  CHECK(w["time_ns"].get<double>() == fastest);

  // Each candidate's time is what a run with that algorithm reports (two checked), and auto's
  // choice and time are those of --algorithm auto.
  for (const std::string a : {"clockwise", "direct"}) {
    const CliResult one = pod16_allreduce(s, {"--algorithm", a, "--json"});
    REQUIRE(one.exit_code == 0);
    const auto it = std::find_if(b["candidates"].begin(), b["candidates"].end(),
                                 [&](const Json& c) { return c["algorithm"] == a; });
    REQUIRE(it != b["candidates"].end());
    CHECK((*it)["time_ns"] == Json::parse(one.out)["time_ns"]);
  }
  const CliResult autorun = pod16_allreduce(s, {"--algorithm", "auto", "--json"});
  REQUIRE(autorun.exit_code == 0);
  const Json a = Json::parse(autorun.out);
  CHECK(b["auto_choice"] == a["algorithm"]);
  CHECK(b["auto_time_ns"] == a["time_ns"]);
  CHECK(b["auto_agrees"].get<bool>() == (a["algorithm"] == b["chosen"]));
  CHECK(b["auto_slowdown_pct"].get<double>() ==
        Approx(100.0 * (a["time_ns"].get<double>() - fastest) / fastest).margin(1e-9));

  // The trials leave nothing in the reported run: its report equals a plain run of the
  // chosen algorithm (stats, utilisation, breakdown), apart from how it was chosen.
  const CliResult plain =
      pod16_allreduce(s, {"--algorithm", fastest_name, "-q", "--out", s.path("plain")});
  REQUIRE(plain.exit_code == 0);
  CHECK(comparable_report(s.path("best/report.json")) ==
        comparable_report(s.path("plain/report.json")));
}
