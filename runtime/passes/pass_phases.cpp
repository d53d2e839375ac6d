#include "runtime/passes/pass_phases.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ipusim::rt {

PhaseLayout assign_phases(Model& model, int stages, int phases_setting, int ipus_per_replica) {
  int max_fwd = -1;
  for (const ModelOp& op : model.ops)
    max_fwd =
        std::max(max_fwd, op.pass == Pass::Forward && op.phase >= 0 ? op.phase : op.forward_phase);
  PhaseLayout L;
  L.forward_phases =
      phases_setting > 0 ? phases_setting : std::max(model.forward_phases, max_fwd + 1);
  if (L.forward_phases < 1) L.forward_phases = 1;
  if (max_fwd >= L.forward_phases) {
    // Say which settings decide this: the phase count is PopART's option, the ops' phases
    // come from the model (the transformer generator puts layers_per_phase layers in each).
    throw std::invalid_argument(
        "a forward op uses phase " + std::to_string(max_fwd) +
        " but executionPhaseSettings.phases is " + std::to_string(L.forward_phases) +
        ": set /workload/session/executionPhaseSettings/phases to at least " +
        std::to_string(max_fwd + 1) +
        " (0 derives it from the model), or put more layers in each phase "
        "(transformer generator: /workload/model/transformer/layers_per_phase)");
  }
  const int P = L.forward_phases;
  L.total_phases = 2 * P - 1;
  for (ModelOp& op : model.ops) {
    if (op.phase < 0) {
      const int f = std::max(0, op.forward_phase);
      op.phase = op.pass == Pass::Forward ? f : 2 * P - 2 - f;
    }
    if (op.phase >= L.total_phases) {
      throw std::invalid_argument("op '" + op.name + "' has phase " + std::to_string(op.phase) +
                                  " beyond the last phase " + std::to_string(L.total_phases - 1));
    }
    if (op.vgraph < 0) op.vgraph = op.phase % stages;
    if (op.vgraph % stages != op.phase % stages) {
      throw std::invalid_argument("Op " + op.name + " inconsistent execution phase " +
                                  std::to_string(op.phase) + " and virtual graph ID " +
                                  std::to_string(op.vgraph));
    }
    if (op.vgraph >= ipus_per_replica) {
      throw std::invalid_argument("op '" + op.name + "' uses virtual graph " +
                                  std::to_string(op.vgraph) + " but ipusPerReplica is " +
                                  std::to_string(ipus_per_replica));
    }
  }
  return L;
}

}  // namespace ipusim::rt
