#pragma once
// The cost of one ONNX node (plain C++): which class of the compute model runs it (matmul and
// convolution on the AMP as GEMMs, normalisation, softmax, element-wise, data movement, loss,
// embedding lookups, or free: a view or a constant), its forward flops (a multiply-add = 2),
// the bytes it reads and writes, and how much work its backward does. One table of op types.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "runtime/onnx/onnx_graph.hpp"

namespace ipusim::onnx_import {

/// What runs a node. `Free` nodes cost nothing: their output is a view of their first input
/// (Reshape, Squeeze, Transpose, Slice, Split: Poplar tensor views, no copy) or a constant
/// (Constant, Shape, ...; see is_view).
enum class CostClass {
  Free,
  DataMovement,
  Elementwise,
  Norm,
  Softmax,
  Matmul,
  Convolution,
  Embedding,
  Loss
};
/// "free", "data_movement", "elementwise", "norm", "softmax", "matmul", "convolution", ...
std::string to_string(CostClass c);

/// out[m x n] = in[m x k] * w[k x n], `groups` independent products.
struct GemmDims {
  std::int64_t m = 0, k = 0, n = 0, groups = 1;
  /// A convolution's kernel (height x width; the height the product of the other spatial
  /// dimensions), folded into k, or into n when `kernel_in_n` (the data gradient); 0 = none.
  std::int64_t kernel_h = 0, kernel_w = 0;
  bool kernel_in_n = false;
  double flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n) *
           static_cast<double>(groups);
  }
};

/// The forward cost of a node and the shape of its backward.
struct NodeCost {
  CostClass cls = CostClass::Free;
  GemmDims gemm;               ///< Matmul / Convolution: the forward GEMM
  double vector_flops = 0;     ///< vector-unit flops (the bias of Gemm / Conv for AMP classes)
  std::uint64_t bytes = 0;     ///< bytes read and written by the vector part
  double backward_factor = 1;  ///< backward vector flops and bytes / forward ones (ASSUMPTION)
  /// Which inputs carry gradients to activations (the indices of inputs a backward differentiates).
  std::vector<int> differentiable_inputs;
  /// Recurrent ops (LSTM, GRU, RNN): `steps` dependent time steps, each the product of the
  /// previous hidden state with R (`step_gemm`) and the gates' element-wise work
  /// (`step_vector_flops`, `step_bytes`); `gemm` is then the product of the input with W for
  /// all steps at once, as poplibs' popnn LSTM pre-weights the input before its sequence loop.
  std::int64_t steps = 0;
  GemmDims step_gemm;
  double step_vector_flops = 0;
  std::uint64_t step_bytes = 0;
  /// Flops on the AMP: the GEMMs, every step's included.
  double amp_flops() const { return gemm.flops() + static_cast<double>(steps) * step_gemm.flops(); }
  double flops() const {
    return amp_flops() + vector_flops + static_cast<double>(steps) * step_vector_flops;
  }
};

/// True if a free op's outputs are views of its first input (false: constants).
bool is_view(const std::string& op_type);

/// True for op types of the default domain the simulator models.
bool is_supported(const std::string& op_type, const std::string& domain);
/// The supported op types, comma-separated (for error messages and docs).
std::string supported_ops_text();

/// The cost of `node` in `graph` (every shape known). Throws std::invalid_argument for a
/// node whose shapes do not fit its op (a MatMul with a scalar operand).
NodeCost node_cost(const Node& node, const Graph& graph);

/// The trainable weights: floating-point initializers of rank >= 1 that some node reads other
/// than as a BatchNormalization running mean or variance (PopART makes every initializer a
/// variable; those without a gradient are not updated). Scalars are folded constants.
std::set<std::string> trainable_weights(const Graph& graph);

}  // namespace ipusim::onnx_import
