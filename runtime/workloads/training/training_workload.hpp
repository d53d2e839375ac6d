#pragma once
// The "training" workload kind: a replicated, phased training step (model IR or generator,
// PopART-style session options) lowered by the runtime passes and played by the executor.
#include <memory>

#include "runtime/workloads/workload.hpp"

namespace ipusim {

/// Declares every `/workload/...` parameter of the training kind.
void register_training_params();

/// Factory used by make_workload() for `"kind": "training"` (ConfigError on bad input).
std::unique_ptr<Workload> make_training_workload(System& system, ConfigNode workload);

}  // namespace ipusim
