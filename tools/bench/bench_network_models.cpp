// Fluid vs packet network model on seeded random traffic (not a test; the test with bounds is
// tests/unit/models/network/network_models_compare_test.cpp):
//   bench_network_models [patterns] [max_bytes] [credits_bytes]
//   (defaults: 300 patterns per system, 1 MiB, the configured credits; credits_bytes > 0 gives
//   every tier that receiver buffer per flow: the "full buffers" case)
// For pod4 and pod16 it runs `patterns` random patterns (seeds 1..patterns) through both
// engines and prints one JSON object: per system, the distribution (min / median / p90 /
// max) of fluid/packet makespan ratios, overall and by class (one flow; small: every
// transfer <= 16 KiB; large: some transfer >= 256 KiB; many hops: a route of >= 4), of the
// per-transfer duration ratios, and the wall time.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "models/params/model_params.hpp"
#include "sim/config.hpp"
#include "sim/json.hpp"
#include "tests/support/network/traffic_patterns.hpp"

namespace {

ipusim::Json summary_json(const std::vector<double>& v) {
  const ipusim::RatioSummary s = ipusim::summarize(v);
  return {{"n", s.n}, {"min", s.min}, {"median", s.median}, {"p90", s.p90}, {"max", s.max}};
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t patterns = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 300;
  const std::uint64_t max_bytes = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (1u << 20);
  const std::uint64_t credits = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 0;
  ipusim::register_model_params();
  ipusim::Json out = ipusim::Json::object();
  for (const char* system : {"pod4", "pod16"}) {
    const auto t0 = std::chrono::steady_clock::now();
    ipusim::ConfigDoc doc = ipusim::ConfigDoc::load_file(std::string(IPUSIM_SOURCE_DIR) +
                                                         "/configs/systems/" + system + ".json");
    const ipusim::Topology topo(ipusim::read_hw_params(doc));
    std::vector<ipusim::ResourceSpec> resources = topo.resource_specs();
    if (credits > 0) {
      for (auto& r : resources) r.credits_bytes = credits;
    }
    std::vector<double> all, single, small, large, hops, flows;
    for (std::uint64_t seed = 1; seed <= patterns; ++seed) {
      const auto pattern = ipusim::random_pattern(topo, seed, 8, max_bytes);
      const ipusim::PatternComparison c = ipusim::compare_pattern(resources, seed, pattern);
      all.push_back(c.ratio());
      if (c.flows == 1) single.push_back(c.ratio());
      if (c.max_bytes <= 16384) small.push_back(c.ratio());
      if (c.max_bytes >= 262144) large.push_back(c.ratio());
      if (c.max_hops >= 4) hops.push_back(c.ratio());
      flows.insert(flows.end(), c.flow_ratios.begin(), c.flow_ratios.end());
    }
    out[system] = {
        {"makespan_ratio", summary_json(all)},
        {"one_flow", summary_json(single)},
        {"small_messages", summary_json(small)},
        {"large_messages", summary_json(large)},
        {"many_hops", summary_json(hops)},
        {"per_transfer_ratio", summary_json(flows)},
        {"wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}};
  }
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}
