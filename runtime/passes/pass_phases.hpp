#pragma once
// Phase assignment (PopART StreamingMemory pass 1, popart_semantics.md §3.1): forward ops
// keep their phase f, backward and optimizer ops get 2P-2-f, and ops without a virtual
// graph get phase % stages.
#include "runtime/ir/ir_model.hpp"

namespace ipusim::rt {

/// Result of phase assignment: P forward phases, 2P-1 phases in all.
struct PhaseLayout {
  int forward_phases = 0;
  int total_phases = 0;
};

/// Sets `phase` and `vgraph` of every op. `phases_setting` > 0 overrides P (PopART's
/// executionPhaseSettings.phases). Throws std::invalid_argument naming the op when its
/// phase is out of range or its virtual graph is inconsistent with its phase.
PhaseLayout assign_phases(Model& model, int stages, int phases_setting, int ipus_per_replica);

}  // namespace ipusim::rt
