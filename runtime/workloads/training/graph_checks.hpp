#pragma once
// Semantic checks of an explicit training graph (`/workload/model/tensors` and `ops`) that
// the lowering would otherwise accept silently (issue 15): data-dependency cycles and remote
// loads of activations that nothing stored.
#include <string>

#include "runtime/ir/ir_model.hpp"

namespace ipusim::rt {

/// A problem found by check_explicit_graph().
struct GraphProblem {
  std::string key;   ///< "ops" or "ops/<index>", relative to /workload/model
  std::string what;  ///< the sentence, naming the ops and tensors
};

/// Returns the first problem (empty `what` if none), naming the ops and the tensors:
/// - a cycle of data dependencies among ops of the same pass and phase ("A -> B -> A"): an op
///   reading a tensor that an op of an earlier or the same (pass, phase) writes depends on it,
///   so the optimizer writing a weight that the next step's forward reads is no cycle;
/// - a remote_load of a tensor that is not a weight, optimizer state or accumulator (those
///   start in streaming memory) when no remote_store of it comes earlier.
GraphProblem check_explicit_graph(const Model& model);

}  // namespace ipusim::rt
