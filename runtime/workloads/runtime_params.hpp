#pragma once
// Declares the runtime layer's parameters (workload kinds other than microbenchmark).
namespace ipusim {
/// Adds the runtime's ParamSpecs to the registry.
void register_runtime_params();
}  // namespace ipusim
