// `ipusim validate` end to end: a case within tolerance passes, a wrong expected value
// exits 1; the shipped reference cases (configs/validation) pass.
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

const char* kMetric = "/workload/steps/0/bandwidth_GBps";

/// The metric as the simulator computes it today (so the test checks the tool, not the model).
double simulated_metric(const Scratch& s) {
  const CliResult r =
      run_cli(s, {"run", rail_transfer_config(), "--out", s.path("run"), "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json report = cli::read_json_file(s.path("run/report.json"));
  const Json* v = cli::find_pointer(report, kMetric);
  REQUIRE(v);
  return v->get<double>();
}

std::string reference(const Scratch& s, const std::string& name, double value) {
  Json doc = {{"cases", Json::array({Json{{"name", "rail"},
                                          {"quantity", "IPU-Link bandwidth"},
                                          {"value", value},
                                          {"unit", "GB/s"},
                                          {"source", "test"},
                                          {"config", rail_transfer_config()},
                                          {"metric", kMetric},
                                          {"tolerance_pct", 1.0}}})}};
  return s.write(name, doc.dump(2));
}

}  // namespace

TEST_CASE("validate: within tolerance passes, a wrong value exits 1", "[e2e][validate]") {
  Scratch s;
  const double bw = simulated_metric(s);
  const CliResult ok = run_cli(s, {"validate", reference(s, "ok.json", bw * 1.005), "--quiet"});
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, Catch::Contains("PASS"));
  CHECK_THAT(ok.out, Catch::Contains("geometric-mean error"));

  const CliResult wrong = run_cli(s, {"validate", reference(s, "wrong.json", bw * 2), "--quiet"});
  INFO(wrong.out << wrong.err);
  CHECK(wrong.exit_code == 1);
  CHECK_THAT(wrong.out, Catch::Contains("FAIL"));
  CHECK_THAT(wrong.out, Catch::Contains("-50.00"));
}

TEST_CASE(
    "validate: the shipped cases all run, the consistency checks pass, the headline is the "
    "prediction error",
    "[e2e][validate]") {
  Scratch s;
  const CliResult r = run_cli(s, {"validate", "--json", "--quiet"});
  INFO(r.out << r.err);
  // Measured cases may miss their tolerance (exit 1: that is what validate reports); none
  // may fail to run, and the datasheet/formula echoes must hold.
  CHECK((r.exit_code == 0 || r.exit_code == 1));
  const Json doc = Json::parse(r.out);
  for (const char* section : {"prediction", "calibration", "consistency"}) {
    INFO(section);
    CHECK(doc[section]["simulated"] == doc[section]["count"]);
  }
  CHECK(doc["prediction"]["count"].get<int>() > 0);
  CHECK(doc["consistency"]["failed"] == 0);
}
