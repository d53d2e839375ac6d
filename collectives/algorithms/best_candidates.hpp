#pragma once
// The candidates of algorithm "best" (the runtime simulates each and takes the fastest):
// every concrete algorithm that can run a request, as build_schedule would accept it.
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"

namespace ipusim::coll {

/// The algorithms "best" tries, in tie-break order (simplest schedule first).
const std::vector<Algorithm>& best_candidates();

/// Why `request` (with a concrete algorithm) is not a candidate: "" when it is; otherwise
/// the reason build_schedule would refuse it (e.g. hierarchical when no group spans more than
/// one IPU-Link domain).
std::string why_not_candidate(const CollectiveRequest& request);

}  // namespace ipusim::coll
