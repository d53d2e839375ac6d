// The executor's collective cache replays a collective only when provably equivalent (it and
// the original each had the inter-IPU links to themselves) and credits the original's link
// traffic: with the cache on and off every preset gives the same report, byte for byte apart
// from run_info. One TEST_CASE per preset so CTest runs them in parallel.
#include <catch2/catch.hpp>
#include <regex>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// Runs `preset` with the cache on and off; returns both reports without run_info and the
/// number of collectives the cached run replayed (from its summary line).
struct Pair {
  std::string on, off;
  long replayed = -1;
};

Pair run_both(const std::string& preset) {
  Scratch s;
  Pair p;
  for (const bool cache : {true, false}) {
    const std::string out = s.path(cache ? "on" : "off");
    const CliResult r = run_cli(
        s, {"run", source_path(preset), "--out", out, "--set",
            std::string("workload.executor.collective_cache=") + (cache ? "true" : "false")});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    Json report = Json::parse(read_text(out + "/report.json"));
    report.erase("run_info");
    (cache ? p.on : p.off) = report.dump(1);
    std::smatch m;
    if (cache && std::regex_search(
                     r.out, m, std::regex("collectives +([0-9]+) simulated, ([0-9]+) replayed"))) {
      p.replayed = std::stol(m[2]);
    }
  }
  return p;
}

void check_identical(const std::string& preset, long min_replayed) {
  const Pair p = run_both(preset);
  CHECK(p.replayed >= min_replayed);
  // The whole report (stats, utilisation, breakdown, per-op times) must match.
  CHECK(p.on.size() == p.off.size());
  CHECK(p.on == p.off);
}

}  // namespace

TEST_CASE("collective cache on/off: identical reports: default.json (replays most collectives)",
          "[cli][cache]") {
  check_identical("configs/default.json", 100);
}
TEST_CASE("collective cache on/off: identical reports: bert_large_phased_pod64", "[cli][cache]") {
  check_identical("configs/workloads/bert_large_phased_pod64.json", 100);
}
TEST_CASE("collective cache on/off: identical reports: gpt3_2p7b_pod64", "[cli][cache]") {
  check_identical("configs/workloads/gpt3_2p7b_pod64.json", 1);
}
TEST_CASE("collective cache on/off: identical reports: gpt3_2p7b_pod128", "[cli][cache]") {
  check_identical("configs/workloads/gpt3_2p7b_pod128.json", 1);
}
TEST_CASE("collective cache on/off: identical reports: gpt3_2p7b_pod256", "[cli][cache]") {
  check_identical("configs/workloads/gpt3_2p7b_pod256.json", 1);
}
TEST_CASE("collective cache on/off: identical reports: gpt3_175b_pod256", "[cli][cache]") {
  check_identical("configs/workloads/gpt3_175b_pod256.json", 1000);
}
TEST_CASE("collective cache on/off: identical reports: mlperf_v1.0_bert_pod16", "[cli][cache]") {
  check_identical("configs/workloads/mlperf_v1.0_bert_pod16.json", 0);
}
TEST_CASE("collective cache on/off: identical reports: mlperf_v1.0_bert_pod64", "[cli][cache]") {
  check_identical("configs/workloads/mlperf_v1.0_bert_pod64.json", 0);
}
TEST_CASE("collective cache on/off: identical reports: mlperf_v1.1_resnet50_pod16",
          "[cli][cache]") {
  check_identical("configs/workloads/mlperf_v1.1_resnet50_pod16.json", 0);
}
TEST_CASE("collective cache on/off: identical reports: mlperf_v1.1_resnet50_pod64",
          "[cli][cache]") {
  check_identical("configs/workloads/mlperf_v1.1_resnet50_pod64.json", 0);
}
TEST_CASE("collective cache on/off: identical reports: mnist_phased", "[cli][cache]") {
  check_identical("configs/workloads/mnist_phased.json", 0);
}
