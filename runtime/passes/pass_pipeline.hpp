#pragma once
// Pipelined (and plain data-parallel) training as PopART builds it (plain C++).
//
// A replica's ops are grouped into forward pipeline stages (op.pipeline_stage, else its
// virtual graph); with S forward stages a training step has 2S-1 pipeline stages: forward
// stage s is pipeline stage s, its backward is pipeline stage 2S-2-s (the last forward stage
// runs forward and backward of a micro-batch in the same cycle). Micro-batch i runs pipeline
// stage p in cycle i + p, so N micro-batches take N + 2S - 2 cycles: 2S-2 ramp-up (fill)
// cycles, N - 2S + 2 main cycles, 2S-2 ramp-down (flush) cycles. Each cycle every IPU runs its
// active stages, then the IpuCopies move activations forward and gradients backward, then all
// IPUs sync. After the loop: gradient reduction per virtual graph over the replicas (merged,
// as GCL merges them), the optimizer (with RTS: ReduceScatter, sharded update, AllGather; with
// off-chip state: remote load and store of the shard). A model without pipelining whose ops all
// sit on one virtual graph runs the same program with S = 1 (the accumulation loop).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/ir/ir_model.hpp"
#include "runtime/ir/program.hpp"
#include "runtime/ir/training_session.hpp"

namespace ipusim::rt {

/// A collective inside a stage's forward or backward of one micro-batch (a model op of type
/// collective in that pass, e.g. distributed batch norm's all-reduce of the statistics between
/// replica pairs): it runs after the first `after_parts` compute parts of that pass, and the
/// parts after it wait for it.
struct StageCollective {
  std::size_t after_parts = 0;  ///< compute parts of the pass that run before it
  std::string name;             ///< the model op's name
  std::string op;               ///< allreduce | reduce_scatter | all_gather
  std::string comm_group;       ///< comm-group spelling (all | consecutive:K | orthogonal:K)
  std::uint64_t bytes = 0;      ///< per replica
  DType dtype = DType::Float32;
};

/// One forward pipeline stage of a replica and what it does per micro-batch.
struct PipelineStage {
  int stage = 0;                       ///< forward pipeline stage index
  int vg = 0;                          ///< virtual graph (IPU of the replica)
  std::vector<ComputePart> fwd, bwd;   ///< compute per micro-batch (bwd includes recomputation)
  std::vector<ComputePart> recompute;  ///< the part of `bwd` that recomputes the forward
  /// Collectives between the compute parts of `fwd` / `bwd` (in order). Recomputation repeats
  /// none of them: a recomputed forward reuses what its collectives produced (TensorFlow's
  /// DistributedBatchNormDecomposer checkpoints distributed batch-norm statistics instead of
  /// recomputing them), so `bwd`'s are shifted past the recomputed parts.
  std::vector<StageCollective> fwd_collectives, bwd_collectives;
  std::uint64_t host_bytes_per_mb = 0;  ///< host input streamed to this stage per micro-batch
  std::uint64_t host_out_bytes_per_mb =
      0;  ///< outputs streamed back to the host per micro-batch (forward host stores)
  std::uint64_t input_bytes_per_mb = 0;      ///< activations received from earlier stages
  std::uint64_t stash_bytes_per_mb = 0;      ///< activation stash per micro-batch in flight
  std::uint64_t recompute_buffer_bytes = 0;  ///< activations rebuilt for one micro-batch
  std::uint64_t temp_bytes = 0;              ///< largest working memory of one op
  int in_flight = 1;                         ///< micro-batches stashed at once
  std::vector<std::string> weights;          ///< weights read by this stage's forward
  std::string first_op, last_op;             ///< names, for reports
  double fwd_flops = 0, bwd_flops = 0, recompute_flops = 0;
};

/// An activation (or gradient) copied between stages once per micro-batch.
struct StageCopy {
  std::string tensor;
  int from_stage = 0, to_stage = 0;  ///< forward stages of producer and consumer
  bool backward = false;             ///< a gradient (sent when the producer's backward runs)
  std::uint64_t bytes = 0;           ///< per micro-batch
};

/// Weights of one virtual graph and their optimizer (after the loop).
struct StageOptimizer {
  int vg = 0;
  std::uint64_t weight_elements = 0;
  DType weight_dtype = DType::Float16;
  std::uint64_t weight_bytes = 0, accumulator_bytes = 0, state_bytes = 0;
  double update_flops = 0;
  std::uint64_t update_bytes = 0;
  /// The update of each weight: one op per model optimizer op, as the phased lowering runs
  /// them (each pays the per-op cost; `update_flops` / `update_bytes` are their sums).
  std::vector<ComputePart> updates;
  /// Elements of the weight of each entry of `updates`: PopART reduces, shards and gathers
  /// each weight with its own collective ops (RTS only from
  /// minElementsForReplicatedTensorSharding).
  std::vector<std::uint64_t> weight_sizes;
  /// Per entry of `weight_sizes`: the weight's norms that are all-reduced when its optimizer
  /// state is sharded (ModelOp::sharded_norms).
  std::vector<std::uint32_t> sharded_norms;
  /// Each micro-batch's addition of one weight's gradient into its accumulator: one op per
  /// weight that has an accumulator (accumulation_parts()), each paying the per-op cost.
  std::vector<ComputePart> accumulations;
  DType state_dtype = DType::Float32;
};

/// The analysed pipeline of one replica.
struct PipelinePlan {
  std::vector<PipelineStage> stages;  ///< forward stages in order
  std::vector<StageCopy> copies;
  std::vector<StageOptimizer> optimizers;  ///< one per virtual graph with weights
  std::map<int, std::uint64_t>
      inference_weight_bytes;  ///< inference: weight bytes per virtual graph (no optimizer)
  int virtual_graphs = 1;
  bool training = true;             ///< has backward ops
  bool pipelined = false;           ///< enablePipelining
  std::uint32_t micro_batches = 1;  ///< per step (accumulationFactor)
  /// Pipeline stages: 2S-1 for training, S for inference.
  int pipeline_stages() const;
  /// Cycles of the accumulation loop: N + pipeline_stages - 1.
  std::uint64_t cycles() const;
  /// Pipeline stage of forward stage s's backward: 2S-2-s.
  int backward_stage(int s) const { return 2 * static_cast<int>(stages.size()) - 2 - s; }
};

/// Groups the model's ops into stages and checks them (std::invalid_argument with PopART's
/// reason: a virtualGraph beyond ipusPerReplica, a stage with no ops, accumulationFactor
/// below the number of pipeline stages, an activation consumed before it is produced).
PipelinePlan plan_pipeline(const Model& model, const SessionOptions& session);

/// True if the training workload runs through the pipeline lowering: pipelining is on, or
/// the model is a plain replicated graph without execution phases (Model::phased false).
bool uses_pipeline_lowering(const Model& model, const SessionOptions& session);

/// Lowers the plan into a Program: per step, one LPhase per pipeline cycle (ops tagged with
/// role "pipeline"), then the gradient reduction and optimizer phase; `batchesPerStep`
/// steps. The main-cycle phase carries each virtual graph's memory items.
Program lower_pipeline(const PipelinePlan& plan, const SessionOptions& session);

}  // namespace ipusim::rt
