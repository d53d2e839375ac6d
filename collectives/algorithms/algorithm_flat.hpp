#pragma once
// Single-tier builders: one ring (or direct exchange) per group, whatever ILDs it spans.
#include "collectives/algorithms/algorithm.hpp"
#include "collectives/algorithms/algorithm_emit.hpp"
#include "collectives/algorithms/algorithm_groups.hpp"

namespace ipusim::coll::detail {

/// Fills the layout, buffer maps and steps of `schedule` for a non-hierarchical algorithm.
void build_flat(const CollectiveRequest& request, const GroupIndex& index, Algorithm algorithm,
                Schedule& schedule, StepEmitter& emitter);

}  // namespace ipusim::coll::detail
