// `ipusim calibrate` end to end: it recovers parameter values that generated synthetic
// "measurements", leaves a parameter the cases do not depend on alone, and refuses
// parameters that are not assumptions.
#include <catch2/catch.hpp>

#include "tests/regression/calibration/toy_cases.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// Two calibration cases (a small, latency-bound and a large, bandwidth-bound write)
/// measured by simulating with the given overrides.
void write_measured_cases(const Scratch& s, const std::string& config,
                          const std::vector<std::string>& truth) {
  for (long bytes : {4096L, 67108864L}) {
    const std::vector<std::string> sets = {"workload.steps.0.bytes=" + std::to_string(bytes)};
    std::vector<std::string> with_truth = sets;
    with_truth.insert(with_truth.end(), truth.begin(), truth.end());
    const double measured = simulate(s, config, with_truth);
    write_case(
        s, "cases",
        case_doc("host_write_" + std::to_string(bytes), "calibration", config, sets, measured));
  }
}

}  // namespace

TEST_CASE("calibrate recovers the latency and efficiency that generated the measurements",
          "[e2e][calibrate]") {
  Scratch s;
  const std::string config = write_host_setup(s);
  write_measured_cases(s, config,
                       {std::string(kEfficiency) + "=0.8", std::string(kHostLatency) + "=8000"});
  const CliResult r = run_cli(
      s, {"calibrate", s.path("cases"), "--params", std::string(kEfficiency) + "," + kHostLatency,
          "--out", s.path("fit/fitted.json"), "--quiet", "--jobs", "2"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const Json fitted = cli::read_json_file(s.path("fit/fitted.json"));
  CHECK(fitted["machine"]["gateway"]["ipu_gateway_link_efficiency"].get<double>() ==
        Approx(0.8).epsilon(0.01));
  CHECK(fitted["machine"]["host_link"]["latency_ns"].get<double>() == Approx(8000).epsilon(0.01));
  const Json meta = cli::read_json_file(s.path("fit/fitted.meta.json"));
  CHECK(meta["parameters"][kHostLatency]["status"] == "fitted");
  CHECK(meta["parameters"][kHostLatency]["unit"] == "ns");
  CHECK(meta["parameters"][kHostLatency]["cases"] ==
        Json::array({"host_write_4096", "host_write_67108864"}));
  CHECK_THAT(
      meta["parameters"][kHostLatency]["description"].get<std::string>(),
      Catch::StartsWith("One-way host link latency (RoCE)") &&
          Catch::Contains("fitted by ipusim calibrate on host_write_4096, host_write_67108864 ("));
  CHECK_THAT(r.out, Catch::Contains("sens. start"));

  // The parameter file is a config fragment: including it reproduces the measurement.
  const std::string with_fit = s.write(
      "with_fit.json", Json{{"$include", Json::array({config, s.path("fit/fitted.json")})}}.dump());
  const double measured =
      cli::read_json_file(s.path("cases/host_write_4096.json"))["measured"]["value"].get<double>();
  CHECK(simulate(s, with_fit, {}) == Approx(measured).epsilon(0.01));

  // --print-descriptions gives the text to paste into the registry.
  const CliResult d = run_cli(s, {"calibrate", "--print-descriptions", s.path("fit/fitted.json")});
  CHECK(d.exit_code == 0);
  CHECK_THAT(d.out, Catch::Contains(std::string(kEfficiency) +
                                    "\n  \"Usable fraction of the IPU <-> gateway link. "
                                    "fitted by ipusim calibrate on host_write_4096"));
}

TEST_CASE("calibrate reports a parameter the cases do not depend on as undetermined and leaves it",
          "[e2e][calibrate]") {
  Scratch s;
  const std::string config = write_host_setup(s);
  write_measured_cases(s, config, {std::string(kHostLatency) + "=7000"});
  const CliResult r = run_cli(
      s, {"calibrate", s.path("cases"), "--params", std::string(kHostLatency) + "," + kUnrelated,
          "--out", s.path("fitted.json"), "--quiet"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains(std::string(kUnrelated) + " is not determined by these cases"));
  CHECK_THAT(r.out, Catch::Contains("UNDETERMINED"));
  const Json meta = cli::read_json_file(s.path("fitted.meta.json"));
  CHECK(meta["parameters"][kUnrelated]["status"] == "undetermined");
  CHECK(meta["parameters"][kUnrelated]["value"].get<double>() == 100.0);
  CHECK(meta["parameters"][kUnrelated]["sensitivity_start"].get<double>() == 0.0);
  const Json fitted = cli::read_json_file(s.path("fitted.json"));
  CHECK_FALSE(fitted.contains("ipu_link"));
  CHECK(fitted["machine"]["host_link"]["latency_ns"].get<double>() == Approx(7000).epsilon(0.01));
}

TEST_CASE("calibrate refuses parameters that are sourced or unknown, naming them",
          "[e2e][calibrate]") {
  Scratch s;
  const std::string config = write_host_setup(s);
  write_case(s, "cases", case_doc("one", "calibration", config, {}, 1000.0));
  const CliResult sourced =
      run_cli(s, {"calibrate", s.path("cases"), "--params", "/ipu_link/efficiency", "--quiet"});
  CHECK(sourced.exit_code == 2);
  CHECK_THAT(sourced.err, Catch::Contains("/ipu_link/efficiency is not an assumption"));
  const CliResult unknown =
      run_cli(s, {"calibrate", s.path("cases"), "--params", "/ipu_link/latency_nss", "--quiet"});
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("/ipu_link/latency_nss is not a parameter"));
}

TEST_CASE("calibrate --resume reuses the cached evaluations", "[e2e][calibrate]") {
  Scratch s;
  const std::string config = write_host_setup(s);
  write_measured_cases(s, config, {std::string(kHostLatency) + "=6000"});
  const std::vector<std::string> args = {"calibrate",  s.path("cases"), "--params",
                                         kHostLatency, "--out",         s.path("fitted.json"),
                                         "--quiet"};
  const CliResult first = run_cli(s, args);
  REQUIRE(first.exit_code == 0);
  const Json fitted_first = cli::read_json_file(s.path("fitted.json"));
  std::vector<std::string> resume = args;
  resume.push_back("--resume");
  const CliResult again = run_cli(s, resume);
  INFO(again.out << again.err);
  REQUIRE(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("; 0 simulations,"));
  CHECK(cli::read_json_file(s.path("fitted.json")) == fitted_first);
}

TEST_CASE("calibrate --json prints the cases before/after and the fitted parameters",
          "[e2e][calibrate]") {
  Scratch s;
  const std::string config = write_host_setup(s);
  write_measured_cases(s, config, {std::string(kHostLatency) + "=8000"});
  const CliResult r = run_cli(s, {"calibrate", s.path("cases"), "--params", kHostLatency, "--out",
                                  s.path("fit/fitted.json"), "--json", "--jobs", "2"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const Json j = Json::parse(r.out);  // stdout is the JSON document alone
  REQUIRE(j["cases"].size() == 2);
  CHECK(j["cases"][0]["measured"].get<double>() > 0);
  CHECK(j["parameters"][kHostLatency]["value"].get<double>() == Approx(8000).epsilon(0.01));
  CHECK(j["objective_fitted"].get<double>() <= j["objective_start"].get<double>());
}
