#pragma once
// The plan's analytic estimates, made for every configuration before anything is simulated:
// a lower bound of the busiest tile's SRAM (so that pruning on it never drops a configuration
// the simulator would fit) and an estimate of the step time (to rank the configurations and
// drop those far slower than the best estimate).
#include <cstdint>
#include <string>

#include "tools/plan/plan_space.hpp"

namespace ipusim::cli {

/// The estimates of one configuration.
struct PlanEstimate {
  /// Lower bound of the busiest tile's bytes: the code reserve plus the tensors that must be
  /// resident on the fullest IPU (on-chip weights, optimizer state and accumulators, sharded
  /// where RTS applies) spread evenly over all its tiles. Activations, temporaries and
  /// exchange buffers are left out, so the simulator's figure is never below it.
  double sram_bytes_per_tile_lower_bound = 0;
  double step_time_ns = 0;   ///< estimated time of one weight update
  double samples_per_s = 0;  ///< global batch / step time
};

/// Estimates `c` (valid candidates only: accumulation > 0).
PlanEstimate estimate_candidate(const PlanCandidate& c, const ModelFacts& facts);

}  // namespace ipusim::cli
