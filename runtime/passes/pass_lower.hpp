#pragma once
// Lowering (plain C++): turns the phased model, its resolved tensor locations and the
// session into the per-phase program the executor plays — remote loads and stores (Preload
// / OnDemand, IO-tile copies), RTS AllGathers, batch-serialisation loops, gradient
// reduction (ReduceScatter + complementary AllReduce, or data-parallel AllReduce), the
// optimizer step (Interleaving or Batch order), ping-pong copies, accumulation repeats —
// plus the per-phase memory items.
#include <map>
#include <string>

#include "runtime/ir/ir_model.hpp"
#include "runtime/ir/program.hpp"
#include "runtime/ir/training_session.hpp"
#include "runtime/passes/pass_locations.hpp"
#include "runtime/passes/pass_phases.hpp"

namespace ipusim::rt {

/// Lowers a model whose ops have phases (assign_phases) into a Program.
Program lower_program(const Model& model, const PhaseLayout& layout,
                      const std::map<std::string, ResolvedTensor>& resolved,
                      const SessionOptions& session);

}  // namespace ipusim::rt
