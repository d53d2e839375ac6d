#pragma once
// What building a system will take in memory, estimated before it is built, so that a
// system too large for this machine in the chosen fidelity (65,536 IPUs with per-tile
// state) is refused with exit 2 naming /sim/fidelity instead of being killed by the OOM
// killer half-way through elaboration.
#include "models/params/hw_params.hpp"
#include "sim/resource_guard.hpp"

namespace ipusim {

/// Lower bound of the memory the System of `params` takes once elaborated: its IPU models
/// (per-tile counters in `per_tile` fidelity) and its network resources.
WorkEstimate system_work_estimate(const HwParams& params);

}  // namespace ipusim
