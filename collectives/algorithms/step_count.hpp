#pragma once
// Size of a collective's schedule without generating it: the number of supersteps and of
// transfers that generate_schedule would emit, in closed form from the group structure.
// Used where the work must be known before playing (progress totals, trace-size and work
// estimates); cost O(replicas) instead of O(transfers) (33.5 M for a flat ring over 4096).
#include <cstdint>

#include "collectives/algorithms/algorithm.hpp"

namespace ipusim::coll {

/// Supersteps and transfers of one collective schedule.
struct StepCount {
  std::uint64_t steps = 0;      ///< supersteps (== Schedule::num_steps)
  std::uint64_t transfers = 0;  ///< transfers over all steps (== Schedule::num_transfers)
};

/// Exactly what generate_schedule(request) reports in num_steps / num_transfers, for every
/// algorithm (AUTO resolved as build_schedule does). Throws RequestError on an inconsistent
/// request (as validate_request); does not check the 2^32-element working-buffer limit that
/// build_schedule enforces with std::length_error.
StepCount count_steps(const CollectiveRequest& request);

}  // namespace ipusim::coll
