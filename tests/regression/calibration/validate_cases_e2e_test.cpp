// `ipusim validate` on case files: the headline error counts prediction cases only, bad
// case files exit 2 naming the file and key, and --cross-validate gives the leave-one-out
// errors computed by hand.
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/regression/calibration/toy_cases.hpp"

using namespace ipusim;
using namespace ipusim::test;

TEST_CASE("validate never counts a calibration case in the prediction error", "[e2e][validate]") {
  Scratch s;
  const std::string config = write_host_setup(s);
  const double exact = simulate(s, config, {});
  write_case(s, "cases", case_doc("predicted_exactly", "prediction", config, {}, exact));
  write_case(s, "cases", case_doc("fitted_badly", "calibration", config, {}, exact / 2));
  write_case(s, "cases", case_doc("datasheet_echo", "consistency", config, {}, exact));
  const CliResult r =
      run_cli(s, {"validate", s.path("cases"), "--json", "--quiet", "--junit", s.path("v.xml")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);  // the calibration case is outside its tolerance
  const Json doc = Json::parse(r.out);
  CHECK(doc["prediction"]["count"] == 1);
  CHECK(doc["prediction"]["geomean_abs_error"].get<double>() == 0.0);
  CHECK(doc["calibration"]["count"] == 1);
  CHECK(doc["calibration"]["geomean_abs_error"].get<double>() == Approx(1.0));
  CHECK(doc["consistency"]["failed"] == 0);
  CHECK_THAT(read_text(s.path("v.xml")),
             Catch::Contains("classname=\"ipusim.validate.calibration\" name=\"fitted_badly\""));

  const CliResult text = run_cli(s, {"validate", s.path("cases"), "--quiet"});
  CHECK_THAT(
      text.out,
      Catch::Contains("PREDICTION ERROR: geometric-mean |error| 0.00 % over 1 prediction cases"));
}

TEST_CASE("validate: bad case files exit 2 naming the file and the key", "[e2e][validate]") {
  Scratch s;
  const std::string config = write_host_setup(s);
  const auto check_bad = [&](const std::string& folder, const Json& extra, const std::string& key,
                             const std::string& what) {
    const std::string file =
        write_case(s, folder, case_doc("bad", "prediction", config, {}, 1000.0, extra));
    const CliResult r = run_cli(s, {"validate", file, "--quiet"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(file) && Catch::Contains(key) && Catch::Contains(what));
  };
  check_bad("role", {{"role", "predicton"}}, "/role",
            "expected \"calibration\", \"prediction\" or \"consistency\"");
  check_bad("source", {{"source", nullptr}}, "/source", "missing required key");
  check_bad("empty_source", {{"source", ""}}, "/source", "expected the document");
  check_bad("pointer", {{"report_path", "/workload/steps/0/no_such_value"}}, "/report_path",
            "is not in the report");
  check_bad("unknown", {{"tolerance", 5}}, "/tolerance", "unknown key 'tolerance'");
}

TEST_CASE("validate --cross-validate gives the leave-one-out errors computed by hand",
          "[e2e][validate]") {
  Scratch s;
  const std::string config = write_host_setup(s);
  // Without latencies and store-and-forward, a write of b bytes takes b / (15.75 GB/s x eff):
  // simulated = d_j / eff. Case j (its own set-up: another size) is "measured" as d_j / r_j, so
  // fitting eff on the others gives ln eff = mean of their ln r (the geometric mean), and the
  // left-out prediction errs by r_i / eff - 1.
  const std::vector<double> r = {0.5, 0.6, 0.8};
  write_bandwidth_cases(s, config, r);
  const CliResult out = run_cli(s, {"validate", s.path("cases"), "--cross-validate", "--params",
                                    kEfficiency, "--json", "--quiet"});
  INFO(out.out << out.err);
  CHECK(out.exit_code == 1);  // at eff = 1 every toy case is off by 20 % or more
  const Json doc = Json::parse(out.out);
  const Json& rows = doc["cross_validation"]["cases"];
  REQUIRE(rows.size() == 3);
  double log_sum = 0.0;
  for (std::size_t i = 0; i < 3; ++i) {
    const double eff = std::sqrt(r[(i + 1) % 3] * r[(i + 2) % 3]);
    const double error = r[i] / eff - 1.0;
    log_sum += std::log1p(std::fabs(error));
    INFO("left out " << i);
    CHECK(rows[i]["name"] == "toy_" + std::to_string(i));
    CHECK(rows[i]["fitted"][kEfficiency]["value"].get<double>() == Approx(eff).epsilon(1e-5));
    CHECK(rows[i]["error"].get<double>() == Approx(error).margin(1e-5));
  }
  // To the rows' own 1e-5: the folds start from the registry's default, where the fit's
  // tolerance leaves a few 1e-6 of the exact optimum.
  CHECK(doc["cross_validation"]["geomean_abs_error"].get<double>() ==
        Approx(std::expm1(log_sum / 3)).margin(1e-5));
}

TEST_CASE("a leave-one-out fold fits a parameter the one remaining set-up moves",
          "[e2e][validate]") {
  Scratch s;
  const std::string config = write_host_setup(s);
  // Two cases of two set-ups (sizes), each simulated = d_j / eff and measured as d_j / r_j (see
  // the test above). Each fold keeps one case: the efficiency, moved by that one set-up, is
  // fitted on it (eff = r_other: the fold reproduces it exactly) and the left-out case errs by
  // r_i / r_other - 1: -37.5 % and +60 %. Held at its start (eff = 1) the errors would be
  // r_i - 1, -50 % and -20 %. The IPU-Link latency moves neither case: it keeps its start, the
  // 100 ns of configs/machines/m2000.json.
  const std::vector<double> r = {0.5, 0.8};
  write_bandwidth_cases(s, config, r);
  const CliResult out =
      run_cli(s, {"validate", s.path("cases"), "--cross-validate", "--params",
                  std::string(kEfficiency) + "," + kUnrelated, "--json", "--quiet"});
  INFO(out.out << out.err);
  CHECK(out.exit_code == 1);  // at eff = 1 both toy cases are off by 20 % or more
  const Json doc = Json::parse(out.out);
  const Json& rows = doc["cross_validation"]["cases"];
  REQUIRE(rows.size() == 2);
  const double expected[] = {0.5 / 0.8 - 1.0, 0.8 / 0.5 - 1.0};
  for (std::size_t i = 0; i < 2; ++i) {
    INFO("left out " << i);
    CHECK(rows[i]["fitted"][kEfficiency]["value"].get<double>() == Approx(r[1 - i]).epsilon(1e-5));
    CHECK(rows[i]["fitted"][kUnrelated]["value"].get<double>() == 100.0);
    CHECK(rows[i]["error"].get<double>() == Approx(expected[i]).margin(1e-5));
  }
}
