#pragma once
// The plan's analytic estimates, made for every configuration before anything is simulated:
// a lower bound of the busiest tile's SRAM (so that pruning on it never drops a configuration
// the simulator would fit), a lower bound of the step time (so that pruning on it never drops
// a configuration that could enter the top K) and an estimate of the step time (a ranking aid
// shown beside them).
#include <cstdint>
#include <string>

#include "tools/plan/plan_space.hpp"

namespace ipusim::cli {

/// The estimates of one configuration.
struct PlanEstimate {
  /// Lower bound of the busiest tile's bytes: the code reserve plus what must be resident on
  /// the fullest IPU spread evenly over all its tiles. Always the weights, optimizer state
  /// and accumulators on chip (sharded where RTS applies); pipelined, also each stage's
  /// activation stash for the micro-batches in flight (what the recomputation mode keeps),
  /// its recomputation buffer, working memory and stage-copy buffer. What the bound leaves
  /// out (biases, norms, exchange buffers, the heads' stash) only makes it lower.
  double sram_bytes_per_tile_lower_bound = 0;
  /// Lower bound of the step time: the busiest IPU's GEMMs and vector ops of every
  /// micro-batch at the compute model's cycle counts (calibrated AMP efficiency, operand
  /// exchange, per-op overhead; no inner-dimension loss, no ramp, no collectives, no
  /// streaming). 0 where the plan has no bound (none is made for the CNN's ops).
  double step_time_ns_lower_bound = 0;
  double samples_per_s_upper_bound = 0;  ///< global batch / the step-time bound (0: none)
  double step_time_ns = 0;               ///< estimated time of one weight update
  double samples_per_s = 0;              ///< global batch / step time
};

/// Estimates `c` (valid candidates only: accumulation > 0).
PlanEstimate estimate_candidate(const PlanCandidate& c, const ModelFacts& facts);

}  // namespace ipusim::cli
