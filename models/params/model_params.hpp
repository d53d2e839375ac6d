#pragma once
// Declaration of every configuration parameter read by the hardware models and by the
// microbenchmark workload, with units, defaults, ranges and sources.

namespace ipusim {

/// Adds the `/chip`, `/ipu_link`, `/machine`, `/system`, `/software`, `/sim/fidelity` and
/// microbenchmark `/workload/steps/...` parameters to ParamRegistry::instance().
/// Idempotent: a second call replaces the same declarations.
void register_model_params();

}  // namespace ipusim
