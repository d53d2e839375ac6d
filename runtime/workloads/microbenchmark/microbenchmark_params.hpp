#pragma once
// Parameter specs of the microbenchmark workload (`/workload/steps/...`): they belong with the
// workload that reads them (runtime/workloads/microbenchmark/), not with the hardware models.
#include <vector>

#include "sim/params.hpp"

namespace ipusim {

/// Specs for `/workload/steps/*/...` and the nested `/workload/steps/*/steps/*/...` of
/// `concurrent` steps.
std::vector<ParamSpec> microbenchmark_step_param_specs();

/// Adds microbenchmark_step_param_specs() to the registry (called by register_runtime_params()).
void register_microbenchmark_params();

}  // namespace ipusim
