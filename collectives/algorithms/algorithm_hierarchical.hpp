#pragma once
// Two-tier collectives for groups spanning several IPU-Link domains (reference §4.7):
// the IPU-Link tier runs rings inside each ILD, the GW-Link tier runs rings between the
// members that share a local index (position inside their ILD) in different ILDs. On a
// leaf/spine GW-Link fabric the GW-Link tier splits in two, as GCL tiers by link class: a
// leaf tier (rings over the group's domains under one leaf switch) and a spine tier (rings
// over the same position in every leaf).
#include "collectives/algorithms/algorithm.hpp"
#include "collectives/algorithms/algorithm_emit.hpp"
#include "collectives/algorithms/algorithm_groups.hpp"

namespace ipusim::coll::detail {

/// Sets schedule.ild_algorithm / gw_algorithm: overrides win; otherwise the ILD tier follows
/// GCL's AUTO rules with its own ranks (members per ILD) and bytes, and the GW tier
/// pick_gw_method. Broadcast is direct on both tiers.
void choose_tier_methods(const CollectiveRequest& request, const IldStructure& structure,
                         Schedule& schedule);

/// Domains of a group under one leaf switch (D) when every group spans at least two leaves
/// in blocks of D >= 2 consecutive domains of one leaf each; 0 otherwise (two tiers).
std::uint32_t leaf_block(const CollectiveRequest& request, const IldStructure& structure);

/// The working-buffer layout build_hierarchical uses with tier methods `ild_algorithm` and
/// `gw_algorithm` over groups of `group_size`, and its cells' logical elements in `cell_elems`.
Layout hierarchical_layout(const CollectiveRequest& request, std::uint32_t group_size,
                           Algorithm ild_algorithm, Algorithm gw_algorithm,
                           std::uint64_t& cell_elems);

/// Fills the layout, maps and steps of `schedule` for the hierarchical algorithm, using the
/// tier methods already in schedule.ild_algorithm / gw_algorithm.
void build_hierarchical(const CollectiveRequest& request, const GroupIndex& index,
                        const IldStructure& structure, Schedule& schedule, StepEmitter& emitter);

}  // namespace ipusim::coll::detail
