#pragma once
// How many ops of each class every op of a phase holds back: the ops that cannot start before
// it ends (its dependents and its lane's later ops, transitively, and itself). Plain C++; the
// executor asks it once per phase instead of searching the phase's graph for every collective
// (Executor::network_alone()).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ipusim::rt {

/// Per op of a phase: how many ops of class 1 and of class 2 are reachable from it.
struct PhaseReach {
  std::vector<std::uint32_t> first;   ///< class-1 ops reachable from each op (itself included)
  std::vector<std::uint32_t> second;  ///< class-2 ops reachable from each op (itself included)
};

/// Counts, for every op, the ops of class 1 and 2 (`cls[j]`: 0 = neither) reachable from it
/// through `waiters` (`waiters[j]`: the ops that wait for op j; acyclic). Empty when the
/// reachable sets would take more than `max_bytes` (one bit per classed op per op).
PhaseReach phase_reach(const std::vector<std::vector<std::size_t>>& waiters,
                       const std::vector<std::uint8_t>& cls, std::size_t max_bytes);

}  // namespace ipusim::rt
