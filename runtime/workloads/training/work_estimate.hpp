#pragma once
// Estimates of what a training run will need (issue 15, guards before work), made before
// the expensive step they guard: the transformer generator's model before generating it, the
// lowered program before lowering it. Each is a lower bound: counts of the items the program
// will hold (model ops, lowered ops, phases) times bytes per item measured on the presets
// (see work_estimate.cpp), so a refusal never turns away a run that would have fitted.
#include <cstdint>

#include "runtime/generators/model_gen.hpp"
#include "runtime/ir/training_session.hpp"
#include "runtime/passes/pass_pipeline.hpp"
#include "sim/resource_guard.hpp"

namespace ipusim::rt {

/// Counts behind an estimate (exposed for tests).
struct ProgramCounts {
  double model_ops = 0;    ///< ops of the model (generated or explicit)
  double lowered_ops = 0;  ///< ops of the lowered program (lower bound)
  double phases = 0;  ///< phases of the lowered program (each: a sync and per-IPU memory lists)
  /// Peak bytes of remote buffers in the fullest machine's streaming memory (what the
  /// training workload allocates in each gateway after lowering); 0 = not estimated.
  double streaming_bytes_per_machine = 0;
};

/// Lower bounds of a phased program's size: every phase runs accumulationFactor times (the
/// optimizer once), each per-micro-batch op batchSerializationFactor times per repetition.
ProgramCounts phased_program_counts(const Model& model, const SessionOptions& session,
                                    int total_phases);

/// Lower bounds of a pipelined program's size: batchesPerStep x (cycles + 1) phases, each with
/// at least one op.
ProgramCounts pipelined_program_counts(const Model& model, const SessionOptions& session,
                                       const PipelinePlan& plan);

/// Program size of the transformer `spec` before generating it, extrapolated linearly in the
/// layers from two small phased generations (1x and 2x layers_per_phase layers): model ops,
/// and for phased sessions the lowered ops and phases of phased_program_counts(). With
/// `ipus_per_machine` > 0, a phased session without executionPhaseSettings.phases also gets
/// streaming_bytes_per_machine: the two probes are lowered (accumulationFactor 1, which does
/// not change the remote buffers) and their streaming memory extrapolated (every layer adds
/// the same buffers, so this is exact; skipped when a probe's lowering would be large). All
/// zero when a probe fails (the real generation then reports the error).
ProgramCounts transformer_program_counts(const TransformerSpec& spec, const SessionOptions& session,
                                         std::uint32_t ipus_per_machine = 0);

/// The estimate of `counts` for check_work_estimate(): memory of the model, the lowered ops
/// and phases (times the IPUs of a replica for the per-phase memory lists) and events;
/// `key` is the config key (relative to the node passed to check_work_estimate) to blame.
WorkEstimate training_work_estimate(const ProgramCounts& counts, const SessionOptions& session,
                                    const std::string& key, const std::string& advice);

}  // namespace ipusim::rt
