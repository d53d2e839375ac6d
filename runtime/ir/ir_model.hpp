#pragma once
// The training workload IR (plain C++): a replicated graph of tensors and ops, as written
// in `/workload/model` or produced by a generator (mlp, transformer). Every replica runs
// the same graph (SPMD); a tensor's VariableSettings say which replicas share its value.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/params/hw_params.hpp"

namespace ipusim::rt {

/// Element type of a tensor or op.
enum class DType { Float16, Float32 };
/// Bytes of one element.
std::uint32_t dtype_bytes(DType t);
/// "float16" / "float32".
std::string to_string(DType t);
/// Parses "float16" / "float32"; throws std::invalid_argument otherwise.
DType parse_ir_dtype(const std::string& s);

/// PopART's tensor categories (plus gradients, which stay on chip).
enum class TensorKind { Weight, Activation, Gradient, OptimizerState, Accumulator };
std::string to_string(TensorKind k);
TensorKind parse_tensor_kind(const std::string& s);

/// popart::TensorStorage.
enum class Storage { OnChip, OffChip };
/// popart::TileSet.
enum class TileSet { Compute, Io };

/// popart::TensorLocation plus its RTS fields.
struct TensorLocation {
  Storage storage = Storage::OnChip;
  TileSet loadTileSet = TileSet::Compute;
  TileSet storageTileSet = TileSet::Compute;
  bool replicatedTensorSharding = false;
  std::string shardingDomain =
      "all";  ///< comm-group spelling, or "variable" (popxl: the variable's grouping)
};

/// One tensor of the replicated graph (per-replica shape).
struct Tensor {
  std::string name;
  std::vector<std::int64_t> shape;
  DType dtype = DType::Float16;
  TensorKind kind = TensorKind::Activation;
  std::string variable_settings = "all";   ///< CommGroup spelling of the VariableSettings
  std::optional<TensorLocation> location;  ///< per-tensor override
  /// Activations: one copy per micro-batch (batch-serialised loops store each one).
  bool per_micro_batch = false;
  std::uint64_t elements() const;
  std::uint64_t bytes() const { return elements() * dtype_bytes(dtype); }
};

/// Which part of the training step an op belongs to.
enum class Pass { Forward, Backward, Optimizer };
std::string to_string(Pass p);
/// What an op does.
enum class OpType { Compute, Collective, RemoteLoad, RemoteStore, HostLoad, HostStore };
std::string to_string(OpType t);
/// Op class of a compute op: decides which compute-model formula times it (matmul and
/// convolution on the AMP units with a shape-dependent efficiency; the rest vector-bound).
enum class OpClass { Matmul, Convolution, Norm, Softmax, Elementwise, Embedding, Optimizer, Loss };
std::string to_string(OpClass c);
OpClass parse_op_class(const std::string& s);
/// True for the classes that run on the AMP units.
inline bool is_amp_class(OpClass c) { return c == OpClass::Matmul || c == OpClass::Convolution; }

/// A matmul or convolution seen as a GEMM: out[m x n] = in[m x k] * w[k x n], `groups`
/// independent GEMMs (batched matmul, attention heads). A convolution has m = batch x
/// output pixels, k = input channels x kernel height x kernel width, n = output channels.
struct GemmShape {
  std::int64_t m = 0, k = 0, n = 0, groups = 1;
  /// FP16 operands with FP32 partials (PopART partialsType "float"): the AMP's FP16.32 rate.
  bool fp32_partials = false;
  /// A convolution's kernel folded into k (into n when `kernel_in_n`: the data gradient);
  /// 0 = not a convolution, or not said (models/ipu/conv_vertices_grouped.hpp uses it).
  std::int64_t kernel_h = 0, kernel_w = 0;
  bool kernel_in_n = false;
  /// A windowed convolution behind the GEMM (kernel > 1; set by the CNN generator): the kernel
  /// side, stride, one image's input and output fields and the input channels. The forward has
  /// the pixels along m, the weight gradient (`window_pixels_along_k`) along k; the tiles then
  /// receive the input field their pixels read (models/ipu/conv_window.hpp). 0 = no window.
  std::int64_t window_kernel = 0, window_stride = 1, window_in_h = 0, window_in_w = 0,
               window_out_h = 0, window_out_w = 0, window_in_channels = 0;
  bool window_pixels_along_k = false;
  bool known() const { return m > 0 && k > 0 && n > 0; }
  double flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n) *
           static_cast<double>(groups);
  }
};

/// One op of the replicated graph.
struct ModelOp {
  std::string name;
  OpType type = OpType::Compute;
  Pass pass = Pass::Forward;
  int forward_phase = -1;  ///< phase of the matching forward op (backward phase = 2P-2-this)
  int phase = -1;          ///< explicit execution phase (overrides forward_phase), -1 = derive
  int vgraph = -1;  ///< explicit virtual graph, -1 = phase % stages (pipelining: the op's IPU)
  int pipeline_stage = -1;  ///< PopART pipelineStage of a forward op (-1 = its virtual graph)
  std::vector<std::string> inputs, outputs;
  // Compute.
  double flops = 0;
  std::uint64_t bytes = 0;  ///< bytes read and written (vector-bound ops)
  /// Reductions of a whole operand to a scalar before the element-wise work (LARS's norms
  /// of a weight and its gradient); see ComputeSpec::scalar_reductions.
  std::uint32_t scalar_reductions = 0;
  /// Of scalar_reductions, those whose input is the weight's shard when its optimizer state is
  /// sharded (replicated tensor sharding): PopART's LambSquareOps. Each then gets a
  /// ReplicatedAllReduceInplace of its FP32 scalar over the sharding domain, since a shard's
  /// norm is only part of the weight's (LambSquareOp::configureForReplicatedTensorSharding,
  /// willow/src/op/lamb.cpp, graphcore/popart sdk/popart/2.1.0 and sdk/poplar/2.3.0 / 2.5.1).
  std::uint32_t sharded_norms = 0;
  /// Ops the framework runs this one as, one after another, each paying the op overhead (an
  /// optimizer update built op by op); see ComputeSpec::chained_ops.
  std::uint32_t chained_ops = 1;
  /// Vector ops costed by poplibs' vertex estimators: the tile cycles of all elements (see
  /// ComputeSpec::vector_tile_cycles); 0 = by flops and bytes.
  double vector_tile_cycles = 0;
  ComputeUnit unit = ComputeUnit::Amp;
  OpClass op_class = OpClass::Matmul;
  GemmShape gemm;  ///< matmul/convolution shape (flops = gemm.flops() when known)
  DType dtype = DType::Float16;
  std::uint64_t temp_bytes = 0;  ///< working memory while it runs (per IPU)
  /// Forward ops: bytes of intermediate activations the backward reads, per micro-batch
  /// (what a pipeline stage stashes without recomputation).
  std::uint64_t stash_bytes = 0;
  bool per_micro_batch = true;  ///< runs once per batch-serialised step
  // Collective (explicit, e.g. tensor-parallel all-reduce) and host streams.
  std::string collective_op = "allreduce";
  std::string comm_group = "all";
  std::uint64_t collective_bytes = 0;  ///< also host stream bytes
};

/// A model: tensors and ops, plus the number of forward phases P the generator used.
struct Model {
  std::vector<Tensor> tensors;
  std::vector<ModelOp> ops;
  int forward_phases = 0;
  /// False for a plain replicated graph without execution phases (the cnn generator): it runs
  /// as the accumulation loop of the pipeline lowering with one stage.
  bool phased = true;
  /// True when each weight's gradient reduction and shard gather is its own collective op, as
  /// PopART runs them; false for the cnn generator (Graphcore's TensorFlow 1 code, whose
  /// collectives the model keeps as one per virtual graph).
  bool per_weight_collectives = true;
  /// Adds a tensor (names must be unique; std::invalid_argument otherwise).
  void add_tensor(Tensor t);
  bool has_tensor(const std::string& name) const { return index_.count(name) != 0; }
  const Tensor& tensor(const std::string& name) const;
  Tensor& tensor(const std::string& name);

 private:
  std::map<std::string, std::size_t> index_;
};

}  // namespace ipusim::rt
