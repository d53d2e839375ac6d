#pragma once
// Remote load/store placement (PopART StreamingMemoryOpInserter rules, popart_semantics.md
// §3.1): a remote tensor used in phase p is loaded in p-1 (Preload) or p (OnDemand) on the
// consumer's virtual graph, unless it is still live on that IPU from a use in the last
// `stages` phases (kept instead of reloaded); it is stored in the phase that last writes it
// before it goes cold.
#include <map>
#include <string>
#include <vector>

#include "runtime/ir/ir_model.hpp"
#include "runtime/passes/pass_locations.hpp"
#include "runtime/ir/training_session.hpp"

namespace ipusim::rt {

/// One use of a tensor by the ops of one phase on one virtual graph.
struct TensorUse {
  int phase = 0;
  int vg = 0;
  bool reads = false;
  bool writes = false;
};

/// Uses of every tensor, sorted by phase then virtual graph (ops must have phases).
std::map<std::string, std::vector<TensorUse>> tensor_uses(const Model& model);

/// Where one remote load or store lands.
struct IoPlacement {
  std::string tensor;
  bool store = false;
  int phase = 0;      ///< phase the transfer runs in (-1 = prologue)
  int vg = 0;
  int for_phase = 0;  ///< phase whose ops use (load) or produced (store) the data
  IOSchedule schedule = IOSchedule::OnDemand;
};

/// True if a use at `p` is served by the copy still live from the previous use `q` on the
/// same virtual graph (q in [p - stages, p)).
bool kept_live(int q, int p, int stages);

/// Loads and stores of the off-chip weights, optimizer states and accumulators (activations
/// are moved inside the batch loop by the lowering), in phase order.
std::vector<IoPlacement> place_remote_io(const Model& model, const std::map<std::string, ResolvedTensor>& resolved,
                                         const SessionOptions& session);

}  // namespace ipusim::rt
