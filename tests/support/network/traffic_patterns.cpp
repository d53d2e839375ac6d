// Random traffic patterns and the fluid/packet comparison.
#include "tests/support/network/traffic_patterns.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace ipusim {
namespace {

/// Uniform integer in [0, n) from the raw generator output (no library distributions, whose
/// algorithms differ between standard libraries).
std::uint64_t below(std::mt19937_64& g, std::uint64_t n) { return g() % n; }
double unit(std::mt19937_64& g) {
  return static_cast<double>(g() >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace

std::vector<TimedTransfer> random_pattern(const Topology& topo, std::uint64_t seed,
                                          std::uint32_t max_flows, std::uint64_t max_bytes) {
  std::mt19937_64 g(seed);
  const std::uint32_t n_ipus = topo.num_ipus();
  const std::uint64_t flows = 1 + below(g, max_flows);
  const bool staggered = below(g, 2) == 1;
  std::vector<TimedTransfer> out;
  for (std::uint64_t i = 0; i < flows; ++i) {
    TimedTransfer t;
    const auto src = static_cast<std::uint32_t>(below(g, n_ipus));
    const std::uint64_t kind = below(g, 10);
    if (kind == 0) {
      t.route = topo.remote_load_route(src);
    } else if (kind == 1) {
      t.route = topo.remote_store_route(src);
    } else {
      const auto dst = static_cast<std::uint32_t>((src + 1 + below(g, n_ipus - 1)) % n_ipus);
      t.route = topo.route(src, dst);
    }
    // Log-uniform between 64 B and max_bytes.
    const double lo = std::log(64.0),
                 hi = std::log(static_cast<double>(std::max<std::uint64_t>(max_bytes, 64)));
    t.bytes = static_cast<std::uint64_t>(std::exp(lo + (hi - lo) * unit(g)));
    t.start_ns = staggered ? std::floor(unit(g) * 2000.0) : 0.0;
    out.push_back(std::move(t));
  }
  return out;
}

PatternComparison compare_pattern(const std::vector<ResourceSpec>& resources, std::uint64_t seed,
                                  const std::vector<TimedTransfer>& pattern) {
  PatternComparison c;
  c.seed = seed;
  c.flows = pattern.size();
  for (const TimedTransfer& t : pattern) {
    c.max_bytes = std::max(c.max_bytes, t.bytes);
    c.max_hops = std::max(c.max_hops, t.route.size());
  }
  const PatternResult f = run_pattern(NetworkModel::Fluid, resources, FlowEngineParams{}, pattern);
  const PatternResult p = run_pattern(NetworkModel::Packet, resources, FlowEngineParams{}, pattern);
  c.fluid_ns = f.makespan_ns;
  c.packet_ns = p.makespan_ns;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const double df = f.end_ns[i] - pattern[i].start_ns, dp = p.end_ns[i] - pattern[i].start_ns;
    c.flow_ratios.push_back(dp > 0 ? df / dp : 1.0);
  }
  return c;
}

RatioSummary summarize(std::vector<double> v) {
  RatioSummary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto rank = [&](double q) {
    return v[std::min(v.size() - 1,
                      static_cast<std::size_t>(std::ceil(q * v.size())) - (q > 0 ? 1 : 0))];
  };
  s.min = v.front();
  s.median = rank(0.5);
  s.p90 = rank(0.9);
  s.max = v.back();
  return s;
}

}  // namespace ipusim
