#pragma once
// Progress watchdog of the executor (issue 15). The simulation is event-driven, so a program
// that cannot progress (an op waiting for a dependency that never completes) ends sc_start()
// with work outstanding instead of hanging; this names what is stuck so that the run ends
// with exit 3 saying which op, on which IPU and lane, waits for what.
#include <cstddef>
#include <string>
#include <vector>

#include "runtime/ir/program.hpp"

namespace ipusim::rt {

/// What blocks phase `phase` of `program` given the ops done so far (`done`, one flag per op
/// of the phase): per lane of every virtual graph, the first op not done (lanes run their ops
/// in program order) and its dependencies not done, e.g. "phase 3: op 7 'load x' (virtual
/// graph 0, lane io) waits for op 9 'copy y' (not done)". At most `max_lanes` lanes are
/// listed. Empty when every op of the phase is done.
std::string describe_stall(const Program& program, std::size_t phase, const std::vector<char>& done,
                           std::size_t max_lanes = 8);

}  // namespace ipusim::rt
