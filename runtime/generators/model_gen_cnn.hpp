#pragma once
// CNN model generator (plain C++): ResNet-50 v1.5 as per-layer forward, backward (input and
// weight gradient GEMMs), optional recomputation and optimizer ops, in one forward phase.
#include <cstdint>
#include <string>

#include "models/params/hw_params.hpp"
#include "runtime/generators/model_gen_optimizer.hpp"
#include "runtime/ir/ir_model.hpp"
#include "sim/config.hpp"

namespace ipusim::rt {

/// A convolutional network for image classification. Only ResNet-50 v1.5 (MLPerf's
/// reference: stride 2 on the 3x3 conv of a stage's first bottleneck) for now.
struct CnnSpec {
  std::string architecture = "resnet50";  ///< only "resnet50"
  std::int64_t micro_batch = 20;          ///< images per micro-batch
  std::int64_t image_size = 224;          ///< square input side in pixels (multiple of 32)
  std::int64_t classes = 1000;            ///< outputs of the final fully connected layer
  DType dtype = DType::Float16;           ///< weights and activations
  /// The backward pass recomputes the forward ops of the stem and of every bottleneck block
  /// (MLPerf ResNet-50 on IPUs used recomputation); the copies are named ".../recompute".
  bool recompute = true;
  /// Distributed batch norm: replicas (consecutive groups) whose micro-batches share batch-norm
  /// statistics (TensorFlow IPUConfig norms.experimental.distributed_batch_norm_replica_group_size,
  /// Graphcore's CNN option BN_span); 1 = each replica alone, no collective.
  std::int64_t distributed_batch_norm_replica_group_size = 1;
  /// The run's Poplar SDK (`/software/poplar_sdk_version`, the chip's `poplar_sdk`): whose
  /// poplibs estimates cost the element-wise ops (the CNN's are the same in every release today;
  /// docs/sdk_versions.md).
  PoplarSdk poplar_sdk{};
  OptimizerSpec optimizer;  ///< sgd or lars in practice; any type add_optimizer knows
};

/// Builds the model: every op a Compute op (or a HostLoad for images and labels; with
/// distributed batch norm a Collective per batch-norm layer in the forward and one in the
/// backward) in forward phase 0 on virtual graph 0, `forward_phases = 1`. Throws
/// std::invalid_argument with the reason for an unknown architecture or bad sizes (image_size < 32
/// or not a multiple of 32, micro_batch or classes < 1).
Model generate_cnn(const CnnSpec& spec);

/// Declares the parameters under /workload/model/cnn/ (architecture, micro_batch,
/// image_size, classes, dtype, recompute, distributed_batch_norm_replica_group_size) with units,
/// ranges and descriptions.
void register_cnn_params();

/// Reads /workload/model/cnn (`node` is that object) and calls node.finish(). The optimizer
/// is left at its default: the caller sets it from /workload/model/optimizer. Bad sizes
/// raise a ConfigError naming the key.
CnnSpec read_cnn_spec(ConfigNode& node);

}  // namespace ipusim::rt
