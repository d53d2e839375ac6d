#pragma once
// Seeded random traffic patterns on a system's topology, and the fluid/packet comparison of
// them (tests and tools/bench/bench_network_models): where and by how much the fluid model
// deviates from the packet model.
#include <cstdint>
#include <string>
#include <vector>

#include "models/network/routing.hpp"
#include "tests/support/network/engine_driver.hpp"

namespace ipusim {

/// One random pattern: 1 to `max_flows` transfers between random IPUs (a fifth of them
/// remote loads/stores or host streams instead), 64 B to `max_bytes` each (log-uniform),
/// starting together or spread over 2 us. Deterministic for a seed (own integer mapping of
/// std::mt19937_64, whose output the standard fixes).
std::vector<TimedTransfer> random_pattern(const Topology& topo, std::uint64_t seed,
                                          std::uint32_t max_flows = 8,
                                          std::uint64_t max_bytes = 1u << 20);

/// Fluid and packet results of one pattern.
struct PatternComparison {
  std::uint64_t seed = 0;
  std::size_t flows = 0;
  std::uint64_t max_bytes = 0;         ///< largest transfer
  std::size_t max_hops = 0;            ///< longest route
  double fluid_ns = 0, packet_ns = 0;  ///< makespans
  /// Per transfer: fluid duration / packet duration (same order as the pattern).
  std::vector<double> flow_ratios;
  double ratio() const { return packet_ns > 0 ? fluid_ns / packet_ns : 1.0; }
};

/// Runs a pattern on both engines over `topo`'s resources.
PatternComparison compare_pattern(const std::vector<ResourceSpec>& resources, std::uint64_t seed,
                                  const std::vector<TimedTransfer>& pattern);

/// min / median / p90 / max of a sample (nearest rank); all 1 for an empty one.
struct RatioSummary {
  std::size_t n = 0;
  double min = 1, median = 1, p90 = 1, max = 1;
};
RatioSummary summarize(std::vector<double> values);

}  // namespace ipusim
