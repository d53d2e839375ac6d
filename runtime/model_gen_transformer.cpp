// Transformer generator: sizes follow workloads.md (12 h^2 parameters per layer, a 4h
// feed-forward, attention scores mb x heads x seq^2), phases as in the PopXL applications.
#include <stdexcept>
#include <string>

#include "runtime/model_gen.hpp"

namespace ipusim::rt {
namespace {

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
  ModelOp& op(const std::string& name, Pass pass, int fwd_phase, double flops) {
    ModelOp o;
    o.name = name;
    o.pass = pass;
    o.forward_phase = fwd_phase;
    o.flops = flops;
    o.dtype = s.dtype;
    m.ops.push_back(o);
    return m.ops.back();
  }
  void tp_allreduce(const std::string& name, Pass pass, int fwd_phase, double count) {
    if (s.tensor_parallel <= 1 || count <= 0) return;
    ModelOp& o = op(name, pass, fwd_phase, 0);
    o.type = OpType::Collective;
    o.collective_op = "allreduce";
    o.comm_group = tp_group;
    o.collective_bytes = static_cast<std::uint64_t>(count * static_cast<double>(act_bytes()));
  }
  void host(const std::string& name, int fwd_phase, std::uint64_t bytes) {
    ModelOp& o = op(name, Pass::Forward, fwd_phase, 0);
    o.type = OpType::HostLoad;
    o.collective_bytes = bytes;
  }
  std::uint64_t act_bytes() const {
    return static_cast<std::uint64_t>(s.micro_batch * s.sequence_length * (s.hidden / s.activation_shards)) *
           dtype_bytes(s.dtype);
  }
};

}  // namespace

Model generate_transformer(const TransformerSpec& s, std::uint32_t replicas) {
  const std::int64_t h = s.hidden, tp = s.tensor_parallel, F = s.ffn_factor;
  if (s.layers < 1 || h < 1 || s.heads < 1 || s.sequence_length < 1 || s.vocab < 1 || s.micro_batch < 1)
    throw std::invalid_argument("layers, hidden, heads, sequence_length, vocab and micro_batch must be >= 1");
  if (s.layers_per_phase < 1 || s.layers % s.layers_per_phase != 0)
    throw std::invalid_argument("layers_per_phase (" + std::to_string(s.layers_per_phase) + ") must divide layers (" +
                                std::to_string(s.layers) + ")");
  if (tp < 1 || h % tp != 0 || replicas % tp != 0)
    throw std::invalid_argument("tensor_parallel (" + std::to_string(tp) + ") must divide hidden and the replicas (" +
                                std::to_string(replicas) + ")");
  if (s.activation_shards < 1 || h % s.activation_shards != 0)
    throw std::invalid_argument("activation_shards must divide hidden");
  Model m;
  const int body_phases = static_cast<int>(s.layers / s.layers_per_phase);
  const int P = body_phases + 2;
  m.forward_phases = P;
  Builder b{s, m, tp > 1 ? "orthogonal:" + std::to_string(replicas / tp) : "all", "consecutive:" + std::to_string(tp)};
  if (tp > 1 && replicas / tp == 1) b.weight_vs = "none";

  const double mb = static_cast<double>(s.micro_batch), seq = static_cast<double>(s.sequence_length);
  const double hd = static_cast<double>(h), tpd = static_cast<double>(tp);
  const double tokens = static_cast<double>(s.head_tokens > 0 ? s.head_tokens : s.sequence_length);
  const double recompute = s.recompute ? 1.0 : 0.0;
  const double bwd_factor = 2.0 + recompute;
  for (int f = 1; f < P; ++f) {
    b.activation("x" + std::to_string(f));
    b.activation("dx" + std::to_string(f));
  }

  // Embedding (phase 0).
  b.weight("embedding/word", {s.vocab / tp + (s.vocab % tp != 0), h}, tp > 1);
  b.weight("embedding/position", {s.sequence_length, h}, false);
  b.host("embedding/input_ids", 0, static_cast<std::uint64_t>(s.micro_batch * s.sequence_length) * 4);
  {
    ModelOp& o = b.op("embedding/fwd", Pass::Forward, 0, 2.0 * mb * seq * hd);
    o.unit = ComputeUnit::Vector;
    o.bytes = 2 * b.act_bytes();
    o.inputs = {"embedding/word", "embedding/position"};
    o.outputs = {"x1"};
  }
  b.tp_allreduce("embedding/fwd/tp_allreduce", Pass::Forward, 0, 1);

  // Layers.
  const double layer_flops = (2.0 * mb * seq * 12.0 * hd * hd + 4.0 * mb * seq * seq * hd) / tpd;
  const std::uint64_t attn_temp = static_cast<std::uint64_t>(mb * static_cast<double>(s.heads) / tpd * seq * seq *
                                                             dtype_bytes(s.dtype) /
                                                             static_cast<double>(s.attention_serialisation));
  const std::uint64_t ffn_temp = static_cast<std::uint64_t>(mb * seq * static_cast<double>(F) * hd / tpd) * dtype_bytes(s.dtype);
  auto layer_weights = [&](std::int64_t l) {
    const std::string p = "layer" + std::to_string(l) + "/";
    return std::vector<std::string>{p + "qkv", p + "attn_out", p + "ff1", p + "ff2", p + "bias_norm"};
  };
  for (std::int64_t l = 0; l < s.layers; ++l) {
    const std::string p = "layer" + std::to_string(l) + "/";
    b.weight(p + "qkv", {h, 3 * h / tp}, tp > 1);
    b.weight(p + "attn_out", {h / tp, h}, tp > 1);
    b.weight(p + "ff1", {h, F * h / tp}, tp > 1);
    b.weight(p + "ff2", {F * h / tp, h}, tp > 1);
    b.weight(p + "bias_norm", {(F + 9) * h}, false);
  }
  for (int f = 1; f <= body_phases; ++f) {
    for (std::int64_t j = 0; j < s.layers_per_phase; ++j) {
      const std::int64_t l = (f - 1) * s.layers_per_phase + j;
      const std::string p = "layer" + std::to_string(l) + "/";
      ModelOp& o = b.op(p + "fwd", Pass::Forward, f, layer_flops);
      o.inputs = layer_weights(l);
      if (j == 0) o.inputs.push_back("x" + std::to_string(f));
      if (j + 1 == s.layers_per_phase) o.outputs = {"x" + std::to_string(f + 1)};
      o.temp_bytes = attn_temp + ffn_temp;
      b.tp_allreduce(p + "fwd/tp_allreduce", Pass::Forward, f, 2);
    }
  }

  // Head (phase P-1): forward, loss and backward.
  b.weight("head/dense", {h, h / tp}, tp > 1);
  b.weight("head/decoder", {h, s.vocab / tp + (s.vocab % tp != 0)}, tp > 1);
  b.host("head/labels", P - 1, static_cast<std::uint64_t>(mb * tokens) * 4);
  const double head_flops = 2.0 * mb * tokens * hd * hd + 2.0 * mb * tokens * hd * static_cast<double>(s.vocab) / tpd;
  {
    ModelOp& o = b.op("head/fwd", Pass::Forward, P - 1, head_flops);
    o.inputs = {"head/dense", "head/decoder", "x" + std::to_string(P - 1)};
    // Logits, serialised like the attention (ASSUMPTION).
    o.temp_bytes = static_cast<std::uint64_t>(mb * tokens * static_cast<double>(s.vocab) / tpd) * dtype_bytes(s.dtype) /
                   static_cast<std::uint64_t>(s.attention_serialisation);
    b.tp_allreduce("head/fwd/tp_allreduce", Pass::Forward, P - 1, 1);
    ModelOp& g = b.op("head/bwd", Pass::Backward, P - 1, 2.0 * head_flops);
    g.inputs = {"head/dense", "head/decoder", "x" + std::to_string(P - 1)};
    g.outputs = {"dx" + std::to_string(P - 1)};
    b.tp_allreduce("head/bwd/tp_allreduce", Pass::Backward, P - 1, 1);
  }
  std::vector<std::pair<std::string, int>> opt_weights = {{"head/dense", P - 1}, {"head/decoder", P - 1}};
  for (const auto& [w, ph] : opt_weights) add_optimizer(m, w, ph, s.optimizer);

  // Layers backward, in reverse order.
  for (int f = body_phases; f >= 1; --f) {
    for (std::int64_t j = s.layers_per_phase - 1; j >= 0; --j) {
      const std::int64_t l = (f - 1) * s.layers_per_phase + j;
      const std::string p = "layer" + std::to_string(l) + "/";
      ModelOp& o = b.op(p + "bwd", Pass::Backward, f, bwd_factor * layer_flops);
      o.inputs = layer_weights(l);
      if (j == 0) o.inputs.push_back("x" + std::to_string(f));
      if (j + 1 == s.layers_per_phase) o.inputs.push_back("dx" + std::to_string(f + 1));
      if (j == 0 && f > 1) o.outputs = {"dx" + std::to_string(f)};
      if (j == 0 && f == 1) o.outputs = {"dx1"};
      o.temp_bytes = attn_temp + ffn_temp;
      b.tp_allreduce(p + "bwd/tp_allreduce", Pass::Backward, f, 2 + 2 * recompute);
      for (const std::string& w : layer_weights(l)) add_optimizer(m, w, f, s.optimizer);
    }
  }
  // Embedding backward + optimizer (last phase).
  {
    ModelOp& o = b.op("embedding/bwd", Pass::Backward, 0, 4.0 * mb * seq * hd);
    o.unit = ComputeUnit::Vector;
    o.bytes = 4 * b.act_bytes();
    o.inputs = {"embedding/word", "embedding/position", "dx1"};
    b.tp_allreduce("embedding/bwd/tp_allreduce", Pass::Backward, 0, 1);
    add_optimizer(m, "embedding/word", 0, s.optimizer);
    add_optimizer(m, "embedding/position", 0, s.optimizer);
  }
  // The accumulator of each weight is written by its backward op (once per micro-batch).
  if (s.optimizer.accumulate) {
    for (ModelOp& o : m.ops) {
      if (o.pass != Pass::Backward || o.type != OpType::Compute) continue;
      for (const std::string& in : std::vector<std::string>(o.inputs)) {
        if (m.has_tensor(in) && m.tensor(in).kind == TensorKind::Weight) o.outputs.push_back(in + "/accum");
      }
    }
  }
  return m;
}

}  // namespace ipusim::rt
