#pragma once
// The `collective` workload kind: one collective (optionally repeated) over replica groups
// of a system, timed on the models and, with data, checked on real per-replica buffers.
#include <memory>

#include "runtime/workloads/workload.hpp"

namespace ipusim {

/// Builds a collective workload from `/workload` (kind == "collective").
std::unique_ptr<Workload> make_collective_workload(System& system, ConfigNode node);

/// Declares the `/workload/...` parameters of the collective kind.
void register_collective_params();

}  // namespace ipusim
