#pragma once
// Single-tier builders: one ring (or direct exchange) per group, whatever ILDs it spans.
#include "collectives/algorithms/algorithm.hpp"
#include "collectives/algorithms/algorithm_emit.hpp"
#include "collectives/algorithms/algorithm_groups.hpp"

namespace ipusim::coll::detail {

/// The working-buffer layout build_flat uses for `algorithm` over groups of `group_size`, and
/// its cells' logical elements in `cell_elems`.
Layout flat_layout(const CollectiveRequest& request, std::uint32_t group_size, Algorithm algorithm,
                   std::uint64_t& cell_elems);

/// Fills the layout, buffer maps and steps of `schedule` for a non-hierarchical algorithm.
void build_flat(const CollectiveRequest& request, const GroupIndex& index, Algorithm algorithm,
                Schedule& schedule, StepEmitter& emitter);

}  // namespace ipusim::coll::detail
