#pragma once
// Optimizer state and update cost (plain C++): SGD (with momentum), Adam, LAMB and LARS, as
// per-element state tensors and update flops, plus the gradient accumulator when the
// step accumulates micro-batches.
#include <cstdint>
#include <string>

#include "runtime/ir/ir_model.hpp"

namespace ipusim::rt {

/// Optimizer choice and the dtype of its state.
struct OptimizerSpec {
  std::string type = "adam";  ///< sgd | adam | lamb | lars
  DType state_dtype = DType::Float32;
  bool accumulate = false;  ///< gradient accumulator per weight (micro-batches > 1)
  /// TensorFlow's optimizations.maximum_reduce_many_buffer_size (bytes): independent
  /// reductions whose outputs fit in this many bytes are combined into one popops ReduceMany
  /// (0: none combined). Read from /workload/model/optimizer/max_reduce_many_buffer_size.
  std::uint64_t max_reduce_many_buffer_bytes = 0;
  /// The update is built as Graphcore's TensorFlow 1 CNN code builds it (train.py's
  /// IPUOptimizer around the optimizer; XLA lowered by the IPU backend): one chain of separate
  /// ops per variable, counted by tf_update_ops. Set by the cnn generator; false = one op per
  /// weight (PopART and the other generators, unchanged).
  bool tf_ipu_optimizer = false;
  /// More than one replica: IPUOptimizer sums each gradient over the replicas and divides it
  /// by their number (cross_replica_sum, then ipu_replication_normalise per variable).
  bool replicated = false;
  /// The update is lowered by PopART (a PopART session: /workload/session/io_mode unset), whose
  /// AdamDecompose pattern splits an Adam or LAMB update into separate ops, counted by
  /// popart_update_ops and popart_update_reductions. false: one op per weight (popxl
  /// applications build their own optimizer graph; the cnn generator uses tf_ipu_optimizer).
  bool popart_decompose = false;
  /// PopART's gradient clipping by the global norm of every weight's gradient
  /// (Adam(..., clip_norm_settings=[ClipNormSettings.clipAllWeights(max_norm)]), MLPerf v1.1
  /// and v2.0 BERT's gradient_clipping_norm). Read from /workload/model/optimizer/clip_all_weights;
  /// counted by popart_update_ops and popart_update_reductions when popart_decompose.
  bool clip_all_weights = false;
};

/// State tensors per weight: sgd 1 (momentum), adam 2, lamb 2, lars 1 (momentum).
int optimizer_states(const std::string& type);
/// Update flops per weight element: sgd 4, adam 12, lamb 16, lars 10 (ASSUMPTION: counted
/// element-wise ops).
double optimizer_flops_per_element(const std::string& type);

/// Reductions to a scalar the update of `weight` runs first: LARS computes the norms of the
/// weight and of its gradient for its trust ratio (2), except for the weights Graphcore's
/// MLPerf ResNet-50 skips (names containing beta, gamma or bias: 0); other optimizers 0.
std::uint32_t lars_norms(const std::string& type, const std::string& weight);

/// Ops, each paying the op overhead once, that the update of one variable `weight` runs as
/// when spec.tf_ipu_optimizer (else 1). Graphcore's MLPerf v1.1 ResNet-50 code
/// (training_results_v1.1 Graphcore/benchmarks/resnet/implementations/tensorflow), pipelined,
/// per variable after the accumulation loop: ipu_replication_normalise when replicated (1);
/// IPUOptimizer's weight decay, grad + wd * var (1); for LARS the division by the loss scale,
/// grad / grad_scale (1; train.py sets grad_scale = loss_scaling for LARS only); LARS on a
/// scaled weight the square roots of its two norms (2), the trust ratio and scaled learning
/// rate (1) and (grad + wd * var) * scaled_lr (1), on a skipped one grad * lr (1); momentum's
/// accum = m * accum + grad and var -= lr * accum (2, in place). A batch norm's gamma also
/// carries the layer's moving mean and variance, trainable variables whose gradient is the
/// moving-average step (Models/batch_norm.py, BN_decay): 2 x (normalise when replicated +
/// var -= (1 - decay) * grad). The norms' reductions are lars_norms; the all-reduce is combined.
/// Other optimizer types (adam, lamb) are not built by that code: 1.
std::uint32_t tf_update_ops(const OptimizerSpec& spec, const std::string& weight);

/// Ops, each paying the op overhead once, that PopART's AdamDecompose pattern (SDK 2.1,
/// graphcore/popart sdk/popart/2.1.0 = a078f19f, willow/src/patterns/adamdecompose.cpp and
/// optimizerdecompose.cpp) builds for one Adam or LAMB weight when spec.popart_decompose (else
/// 1), outside the per-micro-batch AccumulateOp: the gradient cast to FP32 when the gradient is
/// FP16 and the state FP32 (gradCast, 1), the gradient unscaling (gradUnscale, a ScaleOp, 1),
/// the two moment updates (accl1 and accl2, AccumulateOps, 2), the accumulator reset after them
/// when micro-batches accumulate (accumUpdate, an AccumulatorUpdateOp, 1), the AdamUpdaterOp
/// (1) and the AdamVarUpdateOp (1). LAMB's two LambSquareOps are popops reductions to a scalar
/// (popx/op/lambx.cpp), counted by popart_update_reductions. With spec.clip_all_weights,
/// ClipWeightGradientsByNorm (transforms/clipweightgradientsbynorm.cpp, sdk/poplar/2.5.1
/// addClipByNorm) multiplies each gradient by the clip factor (a MulOp, 1). Other optimizer
/// types: 1.
std::uint32_t popart_update_ops(const OptimizerSpec& spec, DType weight_dtype);

/// Reductions to a scalar in PopART's decomposed update when spec.popart_decompose: LAMB's
/// LambSquareOps of the weight and of the Adam updater term (2), and with spec.clip_all_weights
/// the ReduceSumSquareOp of the gradient for the global norm (1, clipweightgradientsbynorm.cpp
/// addReduceSumSquare); 0 otherwise. LAMB's two read the weight's shard when its state is
/// sharded and are then all-reduced (ModelOp::sharded_norms); the clipping one is all-reduced
/// only from SDK 2.5 (ReduceSumSquareOp::configureForReplicatedTensorSharding), not modelled.
std::uint32_t popart_update_reductions(const OptimizerSpec& spec);

/// Combines the optimizer ops' reductions to a scalar as TensorFlow's reduce-many combiner
/// does: in op order, clusters of reductions whose outputs (one element of the weight's dtype
/// each) fit in `buffer_bytes`, each cluster one ReduceMany timed as one reduction and charged
/// to the op where it starts. 0 bytes (TensorFlow's default), or a buffer smaller than one
/// output, combines nothing.
void combine_scalar_reductions(Model& model, std::uint64_t buffer_bytes);

/// Adds the state tensors, the gradient (and accumulator) tensors and the optimizer op for
/// `weight`, whose forward op runs in forward phase `forward_phase`.
void add_optimizer(Model& model, const std::string& weight, int forward_phase,
                   const OptimizerSpec& spec);

}  // namespace ipusim::rt
