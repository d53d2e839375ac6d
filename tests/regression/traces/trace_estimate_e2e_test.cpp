// The trace estimate made before the run (recorded in trace.json's otherData) against the
// size of the file actually written, and the warning printed before a run whose trace is
// estimated above 1 GiB (on stderr even with --quiet).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/json.hpp"
#include "tests/regression/tools/cli_harness.hpp"

namespace ipusim::test {
namespace {

/// Runs the CLI with `args` + --trace --out DIR --quiet and checks the estimate is within 2x.
void check_estimate(const std::vector<std::string>& args) {
  Scratch s;
  std::vector<std::string> a = args;
  a.insert(a.end(), {"--trace", "--out", s.path("t"), "--quiet"});
  const CliResult r = run_cli(s, a);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json trace = Json::parse(read_text(s.path("t/trace.json")));
  REQUIRE(trace.contains("otherData"));
  const double estimate = trace["otherData"]["ipusim_estimated_bytes"].get<double>();
  const double real = static_cast<double>(fs::file_size(s.path("t/trace.json")));
  INFO("estimated " << estimate << " B, written " << real << " B");
  CHECK(estimate <= 2 * real);
  CHECK(estimate >= real / 2);
  CHECK(r.err.find("trace will be about") == std::string::npos);  // far below 1 GiB
}

}  // namespace

TEST_CASE("trace estimate within 2x: mnist_phased", "[trace][trace_estimate]") {
  check_estimate({"run", source_path("configs/workloads/mnist_phased.json")});
}

TEST_CASE("trace estimate within 2x: mlperf_v1.0_bert_pod16", "[trace][trace_estimate]") {
  check_estimate({"run", source_path("configs/workloads/mlperf_v1.0_bert_pod16.json")});
}

TEST_CASE("trace estimate within 2x: allreduce_pod16", "[trace][trace_estimate]") {
  check_estimate({"run", source_path("configs/workloads/allreduce_pod16.json")});
}

TEST_CASE("trace estimate within 2x: a bidirectional ring traced on 4 IPUs",
          "[trace][trace_estimate]") {
  check_estimate({"collective", "--system", source_path("configs/systems/pod16.json"), "--bytes",
                  "1MiB", "--algorithm", "bidirectional_pair", "--trace-ipus", "0-3"});
}

TEST_CASE("trace estimate above 1 GiB: warned before the run, even with --quiet",
          "[trace][trace_estimate]") {
  // A flat clockwise ring over 256 IPUs, 20 times: 20 x 510 supersteps x 256 IPUs of slices,
  // about 1.2 GB. The run is stopped after 2 us of simulated time (exit 3): the warning
  // came before any of it.
  Scratch s;
  const std::vector<std::string> args = {"collective",
                                         "--system",
                                         source_path("configs/systems/pod256.json"),
                                         "--bytes",
                                         "64MiB",
                                         "--algorithm",
                                         "clockwise",
                                         "--set",
                                         "workload.repeat=20",
                                         "--set",
                                         "sim.max_time_ns=2000",
                                         "--trace",
                                         "--out",
                                         s.path("t"),
                                         "--quiet"};
  const CliResult r = run_cli(s, args);
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("trace will be about 1.") != std::string::npos);
  CHECK(r.err.find("estimated before the run") != std::string::npos);
  CHECK(r.err.find("--trace-ipus") != std::string::npos);
  CHECK(r.err.find("warning") < r.err.find("simulation error"));

  // With a cap under 1 GiB the file stays small: no warning.
  std::vector<std::string> capped = args;
  capped.insert(capped.end(), {"--trace-max-bytes", "1000000"});
  const CliResult c = run_cli(s, capped);
  INFO(c.err);
  CHECK(c.err.find("trace will be about") == std::string::npos);
}

}  // namespace ipusim::test
