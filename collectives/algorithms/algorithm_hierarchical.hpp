#pragma once
// Two-tier collectives for groups spanning several IPU-Link domains (reference §4.7):
// the IPU-Link tier runs rings inside each ILD, the GW-Link tier runs rings between the
// members that share a local index (position inside their ILD) in different ILDs.
#include "collectives/algorithms/algorithm.hpp"
#include "collectives/algorithms/algorithm_emit.hpp"
#include "collectives/algorithms/algorithm_groups.hpp"

namespace ipusim::coll::detail {

/// Sets schedule.ild_algorithm / gw_algorithm: overrides win; otherwise the ILD tier follows
/// GCL's AUTO rules with its own ranks (members per ILD) and bytes, and the GW tier
/// pick_gw_method. Broadcast is direct on both tiers.
void choose_tier_methods(const CollectiveRequest& request, const IldStructure& structure,
                         Schedule& schedule);

/// Fills the layout, maps and steps of `schedule` for the hierarchical algorithm, using the
/// tier methods already in schedule.ild_algorithm / gw_algorithm.
void build_hierarchical(const CollectiveRequest& request, const GroupIndex& index,
                        const IldStructure& structure, Schedule& schedule, StepEmitter& emitter);

}  // namespace ipusim::coll::detail
