// `ipusim regress` end to end: an unchanged case passes, a perturbed link bandwidth fails
// with the difference shown, --update makes it pass again; JUnit output.
#include <catch2/catch.hpp>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

TEST_CASE("regress: unchanged passes, a perturbed bandwidth fails, --update passes",
          "[e2e][regress]") {
  Scratch s;
  const std::string case_file = s.write(
      "baseline/rail.json", R"({"config": ")" + rail_transfer_config() +
                                R"(", "set": ["workload.steps.0.bytes=4194304"], "expected": {}})");
  const std::string dir = s.path("baseline");

  // A case without golden values fails until --update records them.
  CHECK(run_cli(s, {"regress", dir, "--quiet"}).exit_code == 1);
  const CliResult created = run_cli(s, {"regress", dir, "--update", "--quiet"});
  INFO(created.out << created.err);
  REQUIRE(created.exit_code == 0);
  const Json golden = cli::read_json_file(case_file);
  REQUIRE(golden["expected"]["time_ns"].is_number());
  CHECK(golden["set"] == Json::array({"workload.steps.0.bytes=4194304"}));  // the rest is kept

  const CliResult same =
      run_cli(s, {"regress", dir, "--jobs", "2", "--quiet", "--junit", s.path("ok.xml")});
  INFO(same.out << same.err);
  CHECK(same.exit_code == 0);
  CHECK_THAT(same.out, Catch::Contains("PASS"));
  CHECK_THAT(read_text(s.path("ok.xml")), Catch::Contains("failures=\"0\" errors=\"0\""));

  const CliResult moved = run_cli(
      s, {"regress", dir, "--set", kLinkBandwidthSet, "--quiet", "--junit", s.path("bad.xml")});
  INFO(moved.out << moved.err);
  CHECK(moved.exit_code == 1);
  CHECK_THAT(moved.out, Catch::Contains("time_ns"));
  CHECK_THAT(moved.out, Catch::Contains("FAIL"));
  CHECK_THAT(moved.out, Catch::Contains("%"));
  const std::string xml = read_text(s.path("bad.xml"));
  CHECK_THAT(xml, Catch::Contains("failures=\"1\""));
  CHECK_THAT(xml, Catch::Contains("<failure message=\"values changed\">time_ns: expected"));

  // A generous tolerance accepts the change.
  CHECK(
      run_cli(s, {"regress", dir, "--set", kLinkBandwidthSet, "--tolerance-pct", "1000", "--quiet"})
          .exit_code == 0);

  const CliResult update =
      run_cli(s, {"regress", dir, "--set", kLinkBandwidthSet, "--update", "--quiet"});
  INFO(update.out << update.err);
  CHECK(update.exit_code == 0);
  // Quiet: no verdicts while updating, only what was rewritten, old -> new.
  CHECK(update.out.find("FAIL") == std::string::npos);
  CHECK(update.out.find("PASS") == std::string::npos);
  CHECK_THAT(update.out, Catch::Contains("updated " + case_file + ": time_ns "));
  CHECK_THAT(update.out, Catch::Contains(" -> "));
  CHECK_THAT(update.out, Catch::Contains("1 cases: 1 updated, 0 unchanged, 0 did not run"));
  CHECK(run_cli(s, {"regress", dir, "--set", kLinkBandwidthSet, "--quiet"}).exit_code == 0);
  CHECK(run_cli(s, {"regress", dir, "--quiet"}).exit_code ==
        1);  // the old timing is now the change
}

TEST_CASE("regress: a case that cannot run fails (exit 1) with its error", "[e2e][regress]") {
  Scratch s;
  s.write("baseline/broken.json",
          R"({"config": ")" + rail_transfer_config() +
              R"(", "set": ["workload.steps.0.bytes=-1"], "expected": {"time_ns": 1}})");
  const CliResult r = run_cli(s, {"regress", s.path("baseline"), "--quiet"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("ERROR"));
}

TEST_CASE("regress: bad case files are bad input (exit 2)", "[e2e][regress]") {
  Scratch s;
  s.write("baseline/bad.json", R"({"config": ")" + rail_transfer_config() + R"(", "expectd": {}})");
  const CliResult r = run_cli(s, {"regress", s.path("baseline")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("did you mean 'expected'"));
}

TEST_CASE("regress: the shipped collective baselines match exactly", "[e2e][regress][golden]") {
  Scratch s;
  const CliResult r =
      run_cli(s, {"regress", source_path("tests/regression/tools/baselines"), "--quiet"});
  INFO(r.out
       << r.err
       << "\nIf the change is intended: ipusim regress tests/regression/tools/baselines --update");
  CHECK(r.exit_code == 0);
}

TEST_CASE("regress: max_slowdown_pct passes a speed-up and fails a slowdown beyond it",
          "[e2e][regress]") {
  Scratch s;
  const std::string dir = s.path("baseline");
  s.write("baseline/rail.json", R"({"config": ")" + rail_transfer_config() +
                                    R"(", "set": ["workload.steps.0.bytes=4194304"]})");
  REQUIRE(run_cli(s, {"regress", dir, "--update", "--quiet"}).exit_code == 0);
  const char* faster =
      "ipu_link.bandwidth_GBps_per_link=25";  // above the preset's 17.18 GB/s: a speed-up
  CHECK(run_cli(s, {"regress", dir, "--set", faster, "--quiet"}).exit_code ==
        1);  // both ways by default
  CHECK(run_cli(s, {"regress", dir, "--set", faster, "--max-slowdown-pct", "0", "--quiet"})
            .exit_code == 0);
  const CliResult slower = run_cli(
      s, {"regress", dir, "--set", kLinkBandwidthSet, "--max-slowdown-pct", "0.5", "--quiet"});
  CHECK(slower.exit_code == 1);
  CHECK_THAT(slower.out, Catch::Contains("slower by more than 0.500%"));
  // The case's own limit wins over the flag's.
  Json doc = cli::read_json_file(s.path("baseline/rail.json"));
  doc["max_slowdown_pct"] = 1000;
  s.write("baseline/rail.json", doc.dump(2));
  CHECK(run_cli(
            s, {"regress", dir, "--set", kLinkBandwidthSet, "--max-slowdown-pct", "0.5", "--quiet"})
            .exit_code == 0);
}

TEST_CASE("regress: a case runs its config's workload on the system it names", "[e2e][regress]") {
  Scratch s;
  const std::string dir = s.path("baseline");
  s.write("baseline/on64.json", R"({"config": ")" +
                                    source_path("configs/workloads/allreduce_pod16.json") +
                                    R"(", "system": "pod64", "set": ["workload.bytes=4096"]})");
  s.write("baseline/own.json", R"({"config": ")" +
                                   source_path("configs/workloads/allreduce_pod16.json") +
                                   R"(", "set": ["workload.bytes=4096"]})");
  const CliResult r = run_cli(s, {"regress", dir, "--update", "--quiet", "--work", s.path("work")});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const Json on64 = cli::read_json_file(s.path("work/on64/report.json"));
  const Json own = cli::read_json_file(s.path("work/own/report.json"));
  CHECK(on64["system"] == "pod64");
  CHECK(on64["workload"]["group_size"] == 64);
  CHECK(own["workload"]["group_size"] == 16);
  CHECK(on64["workload"]["op"] == "allreduce");  // the config's workload, the preset's system
  const CliResult bad = run_cli(s, {"regress", dir, "--quiet"});
  CHECK(bad.exit_code == 0);
  s.write("baseline/typo.json", R"({"config": ")" +
                                    source_path("configs/workloads/allreduce_pod16.json") +
                                    R"(", "system": "pod65"})");
  const CliResult typo = run_cli(s, {"regress", dir, "--quiet"});
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::Contains("typo.json: /system"));
}
