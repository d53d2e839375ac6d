#pragma once
// Runs a fixed list of transfers through the fluid or the packet engine without SystemC:
// the fluid/packet comparison (tests, tools/bench/bench_network_models) and engine oracles.
#include <cstdint>
#include <vector>

#include "models/network/flow_engine.hpp"
#include "models/params/hw_params.hpp"

namespace ipusim {

/// One transfer of a traffic pattern.
struct TimedTransfer {
  double start_ns = 0;
  Route route;
  std::uint64_t bytes = 0;
};

/// Arrival time of every transfer (same order as given) in one engine.
struct PatternResult {
  std::vector<double> end_ns;
  double makespan_ns = 0;    ///< last arrival
  std::uint64_t events = 0;  ///< engine wake-ups (fluid) or chunk hops (packet)
};

/// Plays `transfers` (starting at their start times) on a fresh engine of the `model` kind
/// over `resources` (ids in order, with their tiers' flow control) until all have arrived.
PatternResult run_pattern(NetworkModel model, const std::vector<ResourceSpec>& resources,
                          const FlowEngineParams& params,
                          const std::vector<TimedTransfer>& transfers);

}  // namespace ipusim
