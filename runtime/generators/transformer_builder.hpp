#pragma once
// The transformer generator's op builder (runtime/generators/model_gen_transformer.cpp): adds
// weights, activations and ops of one TransformerSpec to a Model, placed on a layer's phase,
// virtual graph and pipeline stage. Internal to the generator.
#include <cstdint>
#include <string>
#include <vector>

#include "models/ipu/popops_vertices.hpp"
#include "runtime/generators/model_gen.hpp"
#include "runtime/generators/transformer_placement.hpp"

namespace ipusim::rt::transformer_detail {

/// Adds the tensors and ops of one transformer model (see the member functions).
struct Builder {
  const TransformerSpec& s;
  Model& m;
  std::string weight_vs;  // VariableSettings of tensor-parallel weights
  std::string tp_group;

  void weight(const std::string& name, std::vector<std::int64_t> shape, bool split) {
    Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.dtype = s.dtype;
    t.kind = TensorKind::Weight;
    t.variable_settings = split ? weight_vs : "all";
    m.add_tensor(t);
  }
  void activation(const std::string& name) {
    Tensor t;
    t.name = name;
    t.shape = {s.micro_batch, s.sequence_length, s.hidden / s.activation_shards};
    t.dtype = s.dtype;
    t.kind = TensorKind::Activation;
    t.per_micro_batch = true;
    m.add_tensor(t);
  }
  ModelOp& op(const std::string& name, Pass pass, const LayerPlace& at, double flops) {
    ModelOp o;
    o.name = name;
    o.pass = pass;
    o.forward_phase = at.phase;
    o.vgraph = at.vgraph;
    o.pipeline_stage = at.stage;
    o.flops = flops;
    o.dtype = s.dtype;
    m.ops.push_back(o);
    return m.ops.back();
  }
  /// A matmul as a GEMM (flops from the shape).
  ModelOp& gemm(const std::string& name, Pass pass, const LayerPlace& at, GemmShape g) {
    ModelOp& o = op(name, pass, at, g.flops());
    o.op_class = OpClass::Matmul;
    o.unit = ComputeUnit::Amp;
    o.gemm = g;
    o.gemm.fp32_partials = s.partials_type == "float";
    return o;
  }
  /// A vector-bound op over `elements` elements: `flops_per_element` and `passes` reads/writes
  /// of each element through tile memory.
  ModelOp& vec(const std::string& name, Pass pass, const LayerPlace& at, OpClass c, double elements,
               double flops_per_element, double passes) {
    ModelOp& o = op(name, pass, at, elements * flops_per_element);
    o.op_class = c;
    o.unit = ComputeUnit::Vector;
    o.bytes = static_cast<std::uint64_t>(elements * passes * dtype_bytes(s.dtype));
    return o;
  }
  /// vec() for an op whose vertices poplibs' estimators cost: its tile cycles are `kind`'s per
  /// element (models/ipu/popops_vertices.hpp) in the model's dtype and SDK; flops and bytes stay
  /// for the report and the per-tile split.
  ModelOp& vec(const std::string& name, Pass pass, const LayerPlace& at, OpClass c, double elements,
               double flops_per_element, double passes, VectorOpKind kind) {
    ModelOp& o = vec(name, pass, at, c, elements, flops_per_element, passes);
    const ComputeDType d =
        s.dtype == DType::Float16 ? ComputeDType::Float16 : ComputeDType::Float32;
    o.vector_tile_cycles = elements * vector_op_cycles_per_element(kind, d, s.poplar_sdk);
    return o;
  }
  /// The matmul's backward: input gradient (m x n by n x k) and weight gradient (k x m by m x n).
  void gemm_backward(const std::string& name, const LayerPlace& at, GemmShape g,
                     bool input_grad = true) {
    if (input_grad) gemm(name + "/dgrad", Pass::Backward, at, {g.m, g.n, g.k, g.groups});
    gemm(name + "/wgrad", Pass::Backward, at, {g.k, g.m, g.n, g.groups});
  }
  void tp_allreduce(const std::string& name, Pass pass, const LayerPlace& at, double count) {
    if (s.tensor_parallel <= 1 || count <= 0) return;
    ModelOp& o = op(name, pass, at, 0);
    o.type = OpType::Collective;
    o.collective_op = "allreduce";
    o.comm_group = tp_group;
    o.collective_bytes = static_cast<std::uint64_t>(count * static_cast<double>(act_bytes()));
  }
  void host(const std::string& name, const LayerPlace& at, std::uint64_t bytes) {
    ModelOp& o = op(name, Pass::Forward, at, 0);
    o.type = OpType::HostLoad;
    o.collective_bytes = bytes;
  }
  std::uint64_t act_bytes() const {
    return static_cast<std::uint64_t>(s.micro_batch * s.sequence_length *
                                      (s.hidden / s.activation_shards)) *
           dtype_bytes(s.dtype);
  }
};

}  // namespace ipusim::rt::transformer_detail
