#pragma once
// The ONNX generator (plain C++): the user's own model as PopART takes it. Each ONNX node
// becomes a forward op of the compute model's class (matmul / convolution GEMMs on the AMP,
// norms, softmax, element-wise, data movement, loss; views and constants are free); training
// adds the backward PopART's autodiff builds (data and weight gradients, gradient sums where an
// activation has several consumers) and the optimizer of every trainable weight. Placement
// comes from PopART's node attributes (__ipu_number, __pipeline_stage, __execution_phase) or
// from virtualGraphMode auto.
#include <cstdint>
#include <string>

#include "runtime/generators/model_gen_optimizer.hpp"
#include "runtime/ir/ir_model.hpp"
#include "runtime/onnx/onnx_graph.hpp"

namespace ipusim::rt {

/// How to build the model of an imported graph.
struct OnnxSpec {
  std::string loss;      ///< training: the loss tensor id (PopART's `loss` argument)
  bool training = true;  ///< false: PopART's InferenceSession (forward only)
  std::string dtype =
      "model";  ///< "model" (as stored), or "float16" / "float32" for every float tensor
  OptimizerSpec optimizer;
  std::uint32_t ipus_per_replica = 1;
  bool auto_virtual_graph =
      false;  ///< virtualGraphMode auto: balance an un-annotated graph over the IPUs
  /// autoRecomputation pipeline: recomputation units run from checkpoint to checkpoint (a
  /// stage input, or an output of a node PopART marks Checkpoint), not per block.
  bool pipeline_recomputation = false;
};

/// Builds the model of `graph` (one micro-batch = the graph's batch). Throws ConfigError naming
/// the file and the node: an annotation beyond ipusPerReplica, a loss tensor that does not exist
/// or that no weight reaches, an un-annotated graph on several IPUs without virtualGraphMode auto.
Model generate_onnx(const onnx_import::Graph& graph, const OnnxSpec& spec);

}  // namespace ipusim::rt
