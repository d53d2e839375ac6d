#pragma once
// Parameter specs of the microbenchmark workload (`/workload/steps/...`). They live here so
// that register_model_params() declares them; the workload itself is runtime/microbenchmark.
#include <vector>

#include "sim/params.hpp"

namespace ipusim {

/// Specs for `/workload/steps/*/...` and the nested `/workload/steps/*/steps/*/...` of
/// `concurrent` steps.
std::vector<ParamSpec> microbenchmark_param_specs();

}  // namespace ipusim
