#pragma once
// Remote load/store placement (PopART StreamingMemoryOpInserter rules, popart_semantics.md
// §3.1): a remote tensor used in phase p is loaded in p-1 (Preload) or p (OnDemand) on the
// consumer's virtual graph, unless it is live on that IPU — produced, modified or loaded there
// in phase p-1 or p-2 — and so kept instead of reloaded; it is stored once after it was last
// produced or modified, in the last phase of the run of uses that copy serves.
#include <map>
#include <string>
#include <vector>

#include "runtime/ir/ir_model.hpp"
#include "runtime/ir/training_session.hpp"
#include "runtime/passes/pass_locations.hpp"

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
  int phase = 0;  ///< phase the transfer runs in (-1 = prologue)
  int vg = 0;
  int for_phase = 0;  ///< phase whose ops use (load) or produced (store) the data
  IOSchedule schedule = IOSchedule::OnDemand;
};

/// PopART's keep-live rule: a use in phase p is served by the copy on its IPU when that copy
/// was live in phase `anchor` = p-1 or p-2 (under ping-pong p-2 is the same IPU). Every phase
/// that produces, loads, reads or modifies the copy makes it live there
/// (StreamingMemoryOpInserter::getTensorStreamingConfig marks each consumer's phase live), so
/// E33's x3, produced in phase 2 and read in 3, 5 and 6, is never stored; the PopART tests
/// Test1x0S1ExecutionPhase ("N - 3" stored activations) and Test1x0S2ExecutionPhase (one
/// on-demand load per backward phase) count it so (popart_phase_conformance_test.cpp).
bool kept_live(int anchor, int p);

/// What stays live between phases.
/// Every phase that produces, loads, reads or modifies a copy renews it.
struct KeepLive {
  int window = 2;      ///< a copy serves uses up to this many phases after it was renewed
  bool never = false;  ///< nothing is kept: every phase loads what it reads
};

/// PopART's implicit program (kept_live) when io_mode is unset. A popxl program (io_mode set)
/// loads and stores explicitly; it keeps what the earlier ipusim lowering kept for it: a copy
/// used in the last `stages` phases on the IPU (and the batch-serialised activations of its
/// x/dx buffers never: see Lowerer::act_loads_needed).
KeepLive keep_live_rule(const SessionOptions& session);

/// For each use of one tensor (sorted as tensor_uses() gives them): true when it needs a load,
/// because no copy is kept live on its virtual graph under `rule`. `writes_produce`: a writing
/// use produces the tensor (activations) rather than updating a loaded value (weights,
/// optimizer state), so it needs no load. `loads_renew`: a load leaves a copy that later uses
/// can keep (false for the per-micro-batch step buffers of a batch-serialised loop).
std::vector<bool> loads_needed(const std::vector<TensorUse>& uses, const KeepLive& rule,
                               bool writes_produce, bool loads_renew);

/// True when the next use of uses[i]'s tensor on its virtual graph needs no load (the copy
/// stays live for it), so a store due after use i moves there, as PopART moves it.
bool served_later(const std::vector<TensorUse>& uses, const std::vector<bool>& need, std::size_t i);

/// Loads and stores of the off-chip weights, optimizer states and accumulators (activations
/// are moved inside the batch loop by the lowering), in phase order. A store goes to the
/// last phase of the run of uses its live copy serves after the last modification.
std::vector<IoPlacement> place_remote_io(const Model& model,
                                         const std::map<std::string, ResolvedTensor>& resolved,
                                         const SessionOptions& session);

}  // namespace ipusim::rt
