#pragma once
// Reads an explicit model (`/workload/model/tensors` and `/workload/model/ops`) into the IR,
// and declares their ParamSpecs.
#include "runtime/ir/ir_model.hpp"
#include "sim/config.hpp"

namespace ipusim::rt {

/// Parses the explicit tensors and ops of `model_node` (ConfigError naming the JSON path).
Model read_explicit_model(ConfigNode& model_node);

/// Declares `/workload/model/tensors/*/...` and `/workload/model/ops/*/...`.
void register_ir_json_params();

}  // namespace ipusim::rt
