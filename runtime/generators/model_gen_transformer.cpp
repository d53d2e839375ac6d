// Transformer generator: sizes follow workloads.md (12 h^2 parameters per layer, a 4h
// feed-forward, attention scores mb x heads x seq^2). Each layer is emitted as its sub-ops
// (QKV, scores, softmax, context, output projection, add+norm, FF1, GELU, FF2, add+norm), each
// with its op class and GEMM shape so the compute model can time it; the backward has the
// input- and weight-gradient GEMM of every matmul. Placement: phases as in the PopXL
// applications, or pipeline stages from `layers_per_ipu` as in Graphcore's PopART BERT.
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "models/ipu/popops_vertices.hpp"
#include "runtime/generators/model_gen.hpp"
#include "runtime/generators/transformer_builder.hpp"
#include "runtime/generators/transformer_placement.hpp"

namespace ipusim::rt {
namespace {

using transformer_detail::Builder;

/// The sub-ops of one encoder layer in forward order (GEMM shapes per micro-batch).
struct LayerShapes {
  GemmShape qkv, scores, context, attn_out, ff1, ff2;
  double score_elements = 0, hidden_elements = 0, ffn_elements = 0;
};

LayerShapes layer_shapes(const TransformerSpec& s) {
  const std::int64_t T = s.micro_batch * s.sequence_length, h = s.hidden, tp = s.tensor_parallel;
  // Heads split over the tensor-parallel group (2-D TP may split them unevenly: round up).
  const std::int64_t dh = h / s.heads,
                     groups = std::max<std::int64_t>(1, (s.micro_batch * s.heads + tp - 1) / tp);
  LayerShapes l;
  l.qkv = {T, h, 3 * h / tp, 1};
  // Attention over the whole pack (block-diagonal mask): per pack, not per sequence.
  l.scores = {s.sequence_length, dh, s.sequence_length, groups};
  l.context = {s.sequence_length, s.sequence_length, dh, groups};
  l.attn_out = {T, h / tp, h, 1};
  l.ff1 = {T, h, s.ffn_factor * h / tp, 1};
  l.ff2 = {T, s.ffn_factor * h / tp, h, 1};
  l.score_elements =
      static_cast<double>(groups) * static_cast<double>(s.sequence_length * s.sequence_length);
  l.hidden_elements = static_cast<double>(T * h);
  l.ffn_elements = static_cast<double>(T * s.ffn_factor * h / tp);
  return l;
}

// Element-wise operations counted per element (ASSUMPTION; the report's flops). The ops' time is
// poplibs' vertex cycles per element (models/ipu/popops_vertices.hpp), given with each op.
// Softmax: max, subtract, exp, sum, divide.
// Dropout: poprand's estimator counts 2 per element (a random number and a multiply).
constexpr double kSoftmaxFlops = 5, kNormFlops = 8, kGeluFlops = 10, kDropoutFlops = 2;

/// A dropout over `elements` (`name` "<where>/dropout" forward, ".../dropout/bwd" for the
/// gradient's, which regenerates the mask from the seed): poprand::dropout, read in and write
/// out (2 passes), at poprand's vertex cost (models/ipu/popops_vertices.hpp, Dropout).
void dropout(Builder& b, const std::string& name, Pass pass, const LayerPlace& at,
             double elements) {
  b.vec(name, pass, at, OpClass::Elementwise, elements, kDropoutFlops, 2, VectorOpKind::Dropout);
}

/// Graphcore's custom AttentionMask op (MLPerf BERT custom_ops/attention_mask.cpp lines 105-125):
/// from a pack's [B, S] sequence ids, a broadcast sub to [B, S, S], absInPlace, tanhInPlace and
/// mulInPlace by -10000 (and a cast of the [B, S] ids, whose elements are not costed): five ops.
/// Tile cycles per element of the [B, S, S] mask, poplibs' popopsCycleEstimators.hpp at
/// sdk/poplar/2.4.0 (the same rows at 2.1.0 and 2.5.1): sub and mul, the ADD-like binary rows,
/// (1 + 2) per vector (the model's Add); ABSOLUTE in place {1, vectorised} (line 210-211), by
/// popopsCycleEstimators.cpp lines 1537-1551 (cyclesPerLoop + 4) per vector; TANH in place
/// {10, unrolled 2} FLOAT / {2, unrolled 4} HALF (lines 284-285). Vector = 2 floats / 4 halves.
/// HALF 0.75 + 1.25 + 0.5 + 0.75 = 3.25; FLOAT 1.5 + 2.5 + 5 + 1.5 = 10.5.
constexpr std::uint32_t kAttentionMaskOps = 5;
double attention_mask_cycles_per_element(DType d) { return d == DType::Float16 ? 3.25 : 10.5; }

/// The scores' scale and mask of Graphcore's PopART BERT (bert_model.py attention_onnx, MLPerf
/// v1.0 lines 841-852): mul by 1/sqrt(d), then (per_layer) the AttentionMask op over the pack's
/// mb x S^2 mask, then the "ApplyMask" add, broadcast over the heads. Mul and add cost an Add.
void attention_scale_mask(Builder& b, const std::string& p, const std::string& suffix, Pass pass,
                          const LayerPlace& at, double score_elements) {
  if (b.s.attention_mask == "none") return;
  b.vec(p + "scores/scale" + suffix, pass, at, OpClass::Elementwise, score_elements, 1, 2,
        VectorOpKind::Add);
  if (b.s.attention_mask == "per_layer") {
    const double mask_elements = static_cast<double>(b.s.micro_batch) *
                                 static_cast<double>(b.s.sequence_length * b.s.sequence_length);
    ModelOp& m =
        b.vec(p + "attention_mask" + suffix, pass, at, OpClass::Elementwise, mask_elements, 4, 2);
    m.vector_tile_cycles = mask_elements * attention_mask_cycles_per_element(b.s.dtype);
    m.chained_ops = kAttentionMaskOps;
  }
  b.vec(p + "scores/apply_mask" + suffix, pass, at, OpClass::Elementwise, score_elements, 1, 2,
        VectorOpKind::Add);
}

/// split_qkv's concat of the three h x h weights into the h x 3h one (bert_model.py
/// qkv_weights, aiOnnx.concat) or, backward, the gradient's three slices (`slices` ops): a copy
/// of 3 h^2 / tp elements, read and written, costed by bytes at the tile memory rate.
void qkv_concat(Builder& b, const std::string& name, Pass pass, const LayerPlace& at,
                std::uint32_t ops) {
  if (!b.s.split_qkv) return;
  const double elements =
      3.0 * static_cast<double>(b.s.hidden) * static_cast<double>(b.s.hidden / b.s.tensor_parallel);
  ModelOp& o = b.vec(name, pass, at, OpClass::Elementwise, elements, 0, 2);
  o.chained_ops = ops;
}

/// Whether the hidden dropouts run (bert_model.py's dropout() does nothing when no_dropout) and
/// the attention probabilities' (the same dropout(), called when not no_attn_dropout).
bool hidden_dropout(const TransformerSpec& s) { return !s.no_dropout; }
bool attention_dropout(const TransformerSpec& s) { return !s.no_dropout && !s.no_attn_dropout; }

/// Where one layer's feed-forward half goes when it is placed apart from its attention half
/// (att_ffn_placement): its LayerPlace, its weights and the activation between the halves (`mid`;
/// empty = the whole layer at the attention's LayerPlace, as layers_per_ipu places it).
struct FfnHalf {
  LayerPlace at;
  std::vector<std::string> weights;
  std::string mid;
};

/// Emits one layer's forward sub-ops (`suffix` "" for the forward, "/recompute" inside the
/// backward). The first sub-op reads `in`, the last writes `out`; a split layer's attention
/// half writes `ffn.mid` and its feed-forward half (at `ffn.at`) reads it.
void layer_forward(Builder& b, const std::string& p, const LayerPlace& at, Pass pass,
                   const std::string& suffix, const std::vector<std::string>& weights,
                   const std::string& in, const std::string& out, std::uint64_t attn_temp,
                   std::uint64_t ffn_temp, std::uint64_t stash_bytes, const FfnHalf& ffn) {
  const LayerShapes l = layer_shapes(b.s);
  const bool split = !ffn.mid.empty();
  ModelOp& q = b.gemm(p + "qkv" + suffix, pass, at, l.qkv);
  q.inputs = weights;
  if (!in.empty()) q.inputs.push_back(in);
  q.temp_bytes = split ? attn_temp : attn_temp + ffn_temp;
  q.stash_bytes = stash_bytes;
  qkv_concat(b, p + "qkv/concat" + suffix, pass, at, 1);
  b.gemm(p + "scores" + suffix, pass, at, l.scores);
  attention_scale_mask(b, p, suffix, pass, at, l.score_elements);
  b.vec(p + "softmax" + suffix, pass, at, OpClass::Softmax, l.score_elements, kSoftmaxFlops, 2,
        VectorOpKind::Softmax);
  if (attention_dropout(b.s))
    dropout(b, p + "softmax/dropout" + suffix, pass, at, l.score_elements);
  b.gemm(p + "context" + suffix, pass, at, l.context);
  b.gemm(p + "attn_out" + suffix, pass, at, l.attn_out);
  b.tp_allreduce(p + "attn_out/tp_allreduce" + suffix, pass, at, 1);
  // bert_model.py: after the output projection's bias, before the residual add and norm.
  if (hidden_dropout(b.s)) dropout(b, p + "attn_out/dropout" + suffix, pass, at, l.hidden_elements);
  ModelOp& n1 = b.vec(p + "add_norm1" + suffix, pass, at, OpClass::Norm, l.hidden_elements,
                      kNormFlops, 3, VectorOpKind::AddLayerNorm);
  const LayerPlace& fa = split ? ffn.at : at;
  if (split) n1.outputs = {ffn.mid};
  ModelOp& f1 = b.gemm(p + "ff1" + suffix, pass, fa, l.ff1);
  if (split) {
    f1.inputs = ffn.weights;
    f1.inputs.push_back(ffn.mid);
    f1.temp_bytes = ffn_temp;
  }
  b.vec(p + "gelu" + suffix, pass, fa, OpClass::Elementwise, l.ffn_elements, kGeluFlops, 2,
        VectorOpKind::Gelu);
  b.gemm(p + "ff2" + suffix, pass, fa, l.ff2);
  b.tp_allreduce(p + "ff2/tp_allreduce" + suffix, pass, fa, 1);
  if (hidden_dropout(b.s)) dropout(b, p + "ff2/dropout" + suffix, pass, fa, l.hidden_elements);
  ModelOp& n = b.vec(p + "add_norm2" + suffix, pass, fa, OpClass::Norm, l.hidden_elements,
                     kNormFlops, 3, VectorOpKind::AddLayerNorm);
  if (!out.empty()) n.outputs = {out};
}

/// Emits one layer's backward sub-ops in reverse order (twice the vector work of the forward).
/// `extra_inputs` are the layer input and its output's gradient; a split layer's feed-forward
/// half (at `ffn.at`) reads `ffn.mid` and the output gradient and writes d`ffn.mid`, which the
/// attention half reads with the layer input.
void layer_backward(Builder& b, const std::string& p, const LayerPlace& at,
                    const std::vector<std::string>& weights,
                    const std::vector<std::string>& extra_inputs, const std::string& out,
                    std::uint64_t temp_bytes, const FfnHalf& ffn) {
  const LayerShapes l = layer_shapes(b.s);
  const bool split = !ffn.mid.empty();
  const LayerPlace& fa = split ? ffn.at : at;
  ModelOp& first = b.vec(p + "add_norm2/bwd", Pass::Backward, fa, OpClass::Norm, l.hidden_elements,
                         2 * kNormFlops, 4, VectorOpKind::LayerNormGradAdd);
  first.inputs = split ? ffn.weights : weights;
  if (split) {
    first.inputs.push_back(ffn.mid);
    if (extra_inputs.size() > 1) first.inputs.push_back(extra_inputs.back());
  } else {
    first.inputs.insert(first.inputs.end(), extra_inputs.begin(), extra_inputs.end());
  }
  first.temp_bytes = temp_bytes;
  if (hidden_dropout(b.s)) dropout(b, p + "ff2/dropout/bwd", Pass::Backward, fa, l.hidden_elements);
  b.gemm_backward(p + "ff2", fa, l.ff2);
  b.vec(p + "gelu/bwd", Pass::Backward, fa, OpClass::Elementwise, l.ffn_elements, 2 * kGeluFlops, 3,
        VectorOpKind::GeluGrad);
  b.gemm_backward(p + "ff1", fa, l.ff1);
  b.tp_allreduce(p + "ff1/tp_allreduce/bwd", Pass::Backward, fa, 1);
  if (split) b.m.ops.back().outputs.push_back("d" + ffn.mid);
  ModelOp& n1 = b.vec(p + "add_norm1/bwd", Pass::Backward, at, OpClass::Norm, l.hidden_elements,
                      2 * kNormFlops, 4, VectorOpKind::LayerNormGradAdd);
  if (split) {
    n1.inputs = weights;
    if (!extra_inputs.empty()) n1.inputs.push_back(extra_inputs.front());
    n1.inputs.push_back("d" + ffn.mid);
  }
  if (hidden_dropout(b.s))
    dropout(b, p + "attn_out/dropout/bwd", Pass::Backward, at, l.hidden_elements);
  b.gemm_backward(p + "attn_out", at, l.attn_out);
  // Scores and context: both operands are activations, so both products are "input" gradients.
  b.gemm(p + "context/dgrad_probs", Pass::Backward, at,
         {l.context.m, l.context.n, l.context.k, l.context.groups});
  b.gemm(p + "context/dgrad_v", Pass::Backward, at,
         {l.context.k, l.context.m, l.context.n, l.context.groups});
  if (attention_dropout(b.s))
    dropout(b, p + "softmax/dropout/bwd", Pass::Backward, at, l.score_elements);
  b.vec(p + "softmax/bwd", Pass::Backward, at, OpClass::Softmax, l.score_elements, kSoftmaxFlops, 3,
        VectorOpKind::SoftmaxGrad);
  // The scale's gradient: the score gradient times 1/sqrt(d) (the mask add's is the gradient
  // itself, not costed).
  if (b.s.attention_mask != "none")
    b.vec(p + "scores/scale/bwd", Pass::Backward, at, OpClass::Elementwise, l.score_elements, 1, 2,
          VectorOpKind::Add);
  b.gemm(p + "scores/dgrad_q", Pass::Backward, at,
         {l.scores.m, l.scores.n, l.scores.k, l.scores.groups});
  b.gemm(p + "scores/dgrad_k", Pass::Backward, at,
         {l.scores.n, l.scores.m, l.scores.k, l.scores.groups});
  b.gemm_backward(p + "qkv", at, l.qkv);
  qkv_concat(b, p + "qkv/concat/bwd", Pass::Backward, at, 3);
  ModelOp& last = b.vec(p + "residual/bwd", Pass::Backward, at, OpClass::Elementwise,
                        l.hidden_elements, 1, 3, VectorOpKind::Add);
  b.tp_allreduce(p + "qkv/tp_allreduce/bwd", Pass::Backward, at, 1);
  if (!out.empty()) last.outputs = {out};
}

/// Activation bytes one layer keeps for its backward per micro-batch without recomputation:
/// s·b·h·(34 + 5·a·s/h) bytes in FP16 (Korthikanti et al. 2022, "Reducing Activation
/// Recomputation in Large Transformer Models", eq. 1), scaled for FP32.
std::uint64_t layer_stash_bytes(const TransformerSpec& s) {
  const double sbh = static_cast<double>(s.micro_batch * s.sequence_length * s.hidden) /
                     static_cast<double>(s.tensor_parallel);
  const double per = sbh * (34.0 + 5.0 * static_cast<double>(s.heads * s.sequence_length) /
                                       static_cast<double>(s.hidden));
  return static_cast<std::uint64_t>(per * dtype_bytes(s.dtype) / 2.0);
}

}  // namespace

std::uint64_t count_parameters(const Model& m) {
  std::uint64_t n = 0;
  for (const Tensor& t : m.tensors)
    if (t.kind == TensorKind::Weight) n += t.elements();
  return n;
}

Model generate_transformer(const TransformerSpec& s, std::uint32_t replicas) {
  const std::int64_t h = s.hidden, tp = s.tensor_parallel, F = s.ffn_factor;
  if (s.layers < 1 || h < 1 || s.heads < 1 || s.sequence_length < 1 || s.vocab < 1 ||
      s.micro_batch < 1)
    throw std::invalid_argument(
        "layers, hidden, heads, sequence_length, vocab and micro_batch must be >= 1");
  if (h % s.heads != 0)
    throw std::invalid_argument("heads (" + std::to_string(s.heads) + ") must divide hidden (" +
                                std::to_string(h) + ")");
  if (s.layers_per_phase < 1 || s.layers % s.layers_per_phase != 0)
    throw std::invalid_argument("layers_per_phase (" + std::to_string(s.layers_per_phase) +
                                ") must divide layers (" + std::to_string(s.layers) + ")");
  if (tp < 1 || h % tp != 0 || replicas % tp != 0)
    throw std::invalid_argument("tensor_parallel (" + std::to_string(tp) +
                                ") must divide hidden and the replicas (" +
                                std::to_string(replicas) + ")");
  if (s.activation_shards < 1 || h % s.activation_shards != 0)
    throw std::invalid_argument("activation_shards (" + std::to_string(s.activation_shards) +
                                ") must divide hidden (" + std::to_string(h) + ")");
  if (s.max_sequences_per_pack < 1 || s.sequences_per_pack < 1 ||
      s.sequences_per_pack > static_cast<double>(s.max_sequences_per_pack))
    throw std::invalid_argument("sequences_per_pack (" + std::to_string(s.sequences_per_pack) +
                                ") must lie in [1, max_sequences_per_pack (" +
                                std::to_string(s.max_sequences_per_pack) + ")]");
  // The head projects some of a sample's tokens (BERT: the masked ones), never more than it has.
  if (s.head_tokens < 0 || s.head_tokens > s.sequence_length)
    throw std::invalid_argument("head_tokens (" + std::to_string(s.head_tokens) +
                                ") must be 0 (all tokens) or at most sequence_length (" +
                                std::to_string(s.sequence_length) + ")");
  if (s.head != "lm" && s.head != "mlm_nsp")
    throw std::invalid_argument("head must be lm or mlm_nsp");
  if (s.partials_type != "half" && s.partials_type != "float")
    throw std::invalid_argument("partials_type must be half or float");
  if (s.attention_mask != "none" && s.attention_mask != "per_ipu" &&
      s.attention_mask != "per_layer")
    throw std::invalid_argument("attention_mask must be none, per_ipu or per_layer");
  const std::vector<int> ipu_of_layer = layer_ipus(s);
  const HalfPlaces halves = half_places(s);
  const bool placed_halves = !halves.attention.empty();
  const bool pipelined = !ipu_of_layer.empty() || placed_halves;
  int ipus = static_cast<int>(s.layers_per_ipu.size());
  for (const TransformerSpec::SublayerStage& e : s.att_ffn_placement)
    ipus = std::max(ipus, static_cast<int>(e.ipu) + 1);
  if (pipelined &&
      (s.embedding_ipu < 0 || s.embedding_ipu >= ipus || s.head_ipu < -1 || s.head_ipu >= ipus))
    throw std::invalid_argument("embedding_ipu and head_ipu must name one of the " +
                                std::to_string(ipus) + " IPUs of layers_per_ipu");
  if (pipelined && s.layers_per_phase != 1)
    throw std::invalid_argument("layers_per_phase must be 1 with layers_per_ipu");

  Model m;
  const int body_phases = static_cast<int>(s.layers / s.layers_per_phase);
  const int P = body_phases + 2;
  m.forward_phases = pipelined ? 1 : P;
  Builder b{s, m, tp > 1 ? "orthogonal:" + std::to_string(replicas / tp) : "all",
            "consecutive:" + std::to_string(tp)};
  if (tp > 1 && replicas / tp == 1) b.weight_vs = "none";

  // Placement: phases, or (pipelined) IPU i = pipeline stage i; heads on another IPU than the
  // last layer's form one more stage after it.
  const int head_ipu = static_cast<int>(s.head_ipu >= 0 ? s.head_ipu : s.embedding_ipu);
  // layers_per_ipu: stage = IPU; att_ffn_placement: stage = entry + 1 (next free: entries + 1).
  const int last_layer_ipu =
      placed_halves ? halves.ffn.back().vgraph : (pipelined ? ipu_of_layer.back() : 0);
  const int last_layer_stage = placed_halves ? halves.ffn.back().stage : last_layer_ipu;
  const int next_stage = placed_halves ? static_cast<int>(s.att_ffn_placement.size()) + 1 : ipus;
  const int head_stage =
      pipelined ? (head_ipu == last_layer_ipu ? last_layer_stage : next_stage) : -1;
  auto embed_at = [&] {
    return pipelined
               ? LayerPlace{0, static_cast<int>(s.embedding_ipu), static_cast<int>(s.embedding_ipu)}
               : LayerPlace{0, -1, -1};
  };
  auto layer_at = [&](std::int64_t l) {
    if (placed_halves) return halves.attention[static_cast<std::size_t>(l)];
    if (pipelined)
      return LayerPlace{0, ipu_of_layer[static_cast<std::size_t>(l)],
                        ipu_of_layer[static_cast<std::size_t>(l)]};
    return LayerPlace{static_cast<int>(l / s.layers_per_phase) + 1, -1, -1};
  };
  const LayerPlace head_at =
      pipelined ? LayerPlace{0, head_ipu, head_stage} : LayerPlace{P - 1, -1, -1};
  if (pipelined && head_stage >= 0 && head_stage < static_cast<int>(s.embedding_ipu))
    throw std::invalid_argument("the heads must not come before the embedding in the pipeline");

  const double mb = static_cast<double>(s.micro_batch),
               seq = static_cast<double>(s.sequence_length);
  const double hd = static_cast<double>(h);
  const std::int64_t tokens = s.head_tokens > 0 ? s.head_tokens : s.sequence_length;
  const std::int64_t M = s.micro_batch * tokens;  // tokens the MLM/LM head projects
  const std::int64_t vocab_tp = s.vocab / tp + (s.vocab % tp != 0);

  // Boundary activations: x_f is the input of forward phase (or layer) f, dx_f its gradient.
  const int boundaries = pipelined ? static_cast<int>(s.layers) + 1 : P - 1;
  for (int f = 1; f <= boundaries; ++f) {
    b.activation("x" + std::to_string(f));
    b.activation("dx" + std::to_string(f));
  }

  // Embedding: word (the MLM decoder's tied weight), position, token type + layer norm.
  b.weight("embedding/word", {vocab_tp, h}, tp > 1);
  b.weight("embedding/position", {s.sequence_length, h}, false);
  if (s.head == "mlm_nsp")
    b.weight("embedding/type_norm", {4 * h}, false);  // 2 token types + LN gamma/beta
  const std::vector<std::string> emb_weights =
      s.head == "mlm_nsp"
          ? std::vector<std::string>{"embedding/word", "embedding/position", "embedding/type_norm"}
          : std::vector<std::string>{"embedding/word", "embedding/position"};
  const LayerPlace ea = embed_at();
  // Token ids, positions and (packed) sequence ids, 4 B each.
  b.host("embedding/input_ids", ea,
         static_cast<std::uint64_t>(s.micro_batch * s.sequence_length) * 4 *
             (s.head == "mlm_nsp" ? 3 : 1));
  {
    ModelOp& o = b.vec("embedding/fwd", Pass::Forward, ea, OpClass::Embedding, mb * seq * hd, 2, 2);
    o.bytes = 2 * b.act_bytes();
    o.inputs = emb_weights;
    o.outputs = {"x1"};
    o.stash_bytes = b.act_bytes();
    if (s.head == "mlm_nsp")
      b.vec("embedding/norm", Pass::Forward, ea, OpClass::Norm, mb * seq * hd, kNormFlops, 3,
            VectorOpKind::LayerNorm);
    // bert_model.py: the embedding's dropout after its norm.
    if (hidden_dropout(s)) dropout(b, "embedding/dropout", Pass::Forward, ea, mb * seq * hd);
  }
  b.tp_allreduce("embedding/fwd/tp_allreduce", Pass::Forward, ea, 1);

  // Layers.
  const std::uint64_t attn_temp = static_cast<std::uint64_t>(
      mb * static_cast<double>(s.heads) / static_cast<double>(tp) * seq * seq *
      dtype_bytes(s.dtype) / static_cast<double>(s.attention_serialisation));
  const std::uint64_t ffn_temp =
      static_cast<std::uint64_t>(mb * seq * static_cast<double>(F) * hd / static_cast<double>(tp)) *
      dtype_bytes(s.dtype);
  const std::uint64_t stash = layer_stash_bytes(s);
  // A layer's biases and LayerNorm parameters, each its own weight as BERT's bert_model.py
  // creates them (QKV_bias, Out_bias, the two norms' Gamma and Beta, the feed-forward biases):
  // PopART accumulates, updates and reduces each one with its own ops. (F + 9) x h in all.
  const std::vector<std::pair<std::string, std::int64_t>> small = {
      {"qkv_bias", 3 * h}, {"attn_out_bias", h}, {"norm1_gamma", h}, {"norm1_beta", h},
      {"ff1_bias", F * h}, {"ff2_bias", h},      {"norm2_gamma", h}, {"norm2_beta", h}};
  auto small_weights = [&](const std::string& p, std::vector<std::string> names) {
    for (const auto& [n, size] : small) names.push_back(p + n);
    return names;
  };
  auto layer_weights = [&](std::int64_t l) {
    const std::string p = "layer" + std::to_string(l) + "/";
    return small_weights(p, {p + "qkv", p + "attn_out", p + "ff1", p + "ff2"});
  };
  for (std::int64_t l = 0; l < s.layers; ++l) {
    const std::string p = "layer" + std::to_string(l) + "/";
    b.weight(p + "qkv", {h, 3 * h / tp}, tp > 1);
    b.weight(p + "attn_out", {h / tp, h}, tp > 1);
    b.weight(p + "ff1", {h, F * h / tp}, tp > 1);
    b.weight(p + "ff2", {F * h / tp, h}, tp > 1);
    for (const auto& [n, size] : small) b.weight(p + n, {size}, false);
  }
  // Which boundary activation a layer reads and writes.
  auto layer_in = [&](std::int64_t l) -> std::string {
    if (pipelined) return "x" + std::to_string(l + 1);
    return l % s.layers_per_phase == 0 ? "x" + std::to_string(l / s.layers_per_phase + 1) : "";
  };
  auto layer_out = [&](std::int64_t l) -> std::string {
    if (pipelined) return "x" + std::to_string(l + 2);
    return (l + 1) % s.layers_per_phase == 0 ? "x" + std::to_string(l / s.layers_per_phase + 2)
                                             : "";
  };
  // A layer whose halves sit on different stages: the attention half keeps qkv, attn_out and
  // the biases/norms, the feed-forward half ff1 and ff2; y<l> crosses between them.
  auto ffn_half = [&](std::int64_t l) {
    const auto i = static_cast<std::size_t>(l);
    if (!placed_halves || halves.ffn[i].stage == halves.attention[i].stage) return FfnHalf{};
    const std::string p = "layer" + std::to_string(l) + "/";
    return FfnHalf{halves.ffn[i], {p + "ff1", p + "ff2"}, "y" + std::to_string(l)};
  };
  auto attention_weights = [&](std::int64_t l) {
    if (ffn_half(l).mid.empty()) return layer_weights(l);
    const std::string p = "layer" + std::to_string(l) + "/";
    return small_weights(p, {p + "qkv", p + "attn_out"});
  };
  for (std::int64_t l = 0; l < s.layers; ++l) {
    const FfnHalf f = ffn_half(l);
    if (!f.mid.empty()) {
      b.activation(f.mid);
      b.activation("d" + f.mid);
    }
    layer_forward(b, "layer" + std::to_string(l) + "/", layer_at(l), Pass::Forward, "",
                  attention_weights(l), layer_in(l), layer_out(l), attn_temp, ffn_temp, stash, f);
  }

  // Heads: forward, loss and backward.
  const std::string head_in = "x" + std::to_string(boundaries);
  const std::string head_grad = "dx" + std::to_string(boundaries);
  std::vector<std::string> head_weights;
  b.host("head/labels", head_at, static_cast<std::uint64_t>(M) * 4);
  if (s.head == "lm") {
    b.weight("head/dense", {h, h / tp}, tp > 1);
    b.weight("head/decoder", {h, vocab_tp}, tp > 1);
    head_weights = {"head/dense", "head/decoder"};
    const GemmShape dense{M, h, h / tp, 1}, dec{M, h, vocab_tp, 1};
    ModelOp& d = b.gemm("head/dense", Pass::Forward, head_at, dense);
    d.inputs = {"head/dense", "head/decoder", head_in};
    // Logits, serialised like the attention (ASSUMPTION).
    d.temp_bytes = static_cast<std::uint64_t>(M * vocab_tp) * dtype_bytes(s.dtype) /
                   static_cast<std::uint64_t>(s.attention_serialisation);
    d.stash_bytes = static_cast<std::uint64_t>(M * h) * dtype_bytes(s.dtype);
    b.gemm("head/decoder", Pass::Forward, head_at, dec);
    b.tp_allreduce("head/fwd/tp_allreduce", Pass::Forward, head_at, 1);
    b.vec("head/loss", Pass::Forward, head_at, OpClass::Loss, static_cast<double>(M * vocab_tp),
          kSoftmaxFlops, 2, VectorOpKind::Softmax);
    ModelOp& lb = b.vec("head/loss/bwd", Pass::Backward, head_at, OpClass::Loss,
                        static_cast<double>(M * vocab_tp), 2, 2);
    lb.inputs = {"head/dense", "head/decoder", head_in};
    b.gemm_backward("head/decoder", head_at, dec);
    b.gemm_backward("head/dense", head_at, dense);
    b.tp_allreduce("head/bwd/tp_allreduce", Pass::Backward, head_at, 1);
  } else {
    // MLM on the masked tokens (decoder = embedding/word, tied) and NSP on each sequence of the
    // pack.
    b.weight("head/mlm_dense", {h, h}, false);
    b.weight("head/mlm_bias_norm", {3 * h + s.vocab},
             false);  // dense bias, LN gamma/beta, decoder bias
    b.weight("head/pooler", {h, h}, false);
    b.weight("head/pooler_bias_nsp", {3 * h + 2}, false);  // pooler bias, NSP classifier 2h + 2
    head_weights = {"head/mlm_dense", "head/mlm_bias_norm", "head/pooler", "head/pooler_bias_nsp"};
    const std::int64_t seqs = s.micro_batch * s.max_sequences_per_pack;
    const GemmShape dense{M, h, h, 1}, dec{M, h, s.vocab, 1}, pool{seqs, h, h, 1},
        nsp{seqs, h, 2, 1};
    ModelOp& d = b.gemm("head/mlm_dense", Pass::Forward, head_at, dense);
    d.inputs = {"head/mlm_dense",       "head/mlm_bias_norm", "head/pooler",
                "head/pooler_bias_nsp", "embedding/word",     head_in};
    d.temp_bytes = static_cast<std::uint64_t>(M * s.vocab) * dtype_bytes(s.dtype) /
                   static_cast<std::uint64_t>(s.attention_serialisation);
    d.stash_bytes = static_cast<std::uint64_t>(M * h) * dtype_bytes(s.dtype) * 3;
    b.vec("head/mlm_gelu_norm", Pass::Forward, head_at, OpClass::Norm, static_cast<double>(M * h),
          kGeluFlops + kNormFlops, 3, VectorOpKind::GeluLayerNorm);
    b.gemm("head/mlm_decoder", Pass::Forward, head_at, dec);
    b.vec("head/mlm_loss", Pass::Forward, head_at, OpClass::Loss, static_cast<double>(M * s.vocab),
          kSoftmaxFlops, 2, VectorOpKind::Softmax);
    b.gemm("head/pooler", Pass::Forward, head_at, pool);
    b.gemm("head/nsp", Pass::Forward, head_at, nsp);
    ModelOp& lb = b.vec("head/mlm_loss/bwd", Pass::Backward, head_at, OpClass::Loss,
                        static_cast<double>(M * s.vocab), 2, 2);
    lb.inputs = {"head/mlm_dense",       "head/mlm_bias_norm", "head/pooler",
                 "head/pooler_bias_nsp", "embedding/word",     head_in};
    b.gemm_backward("head/nsp", head_at, nsp);
    b.gemm_backward("head/pooler", head_at, pool);
    b.gemm_backward("head/mlm_decoder", head_at, dec);
    b.vec("head/mlm_gelu_norm/bwd", Pass::Backward, head_at, OpClass::Norm,
          static_cast<double>(M * h), 2 * (kGeluFlops + kNormFlops), 4,
          VectorOpKind::GeluLayerNormGrad);
    b.gemm_backward("head/mlm_dense", head_at, dense);
  }
  // The head's backward writes the gradient of its input activation.
  {
    ModelOp& o = b.vec("head/input_grad", Pass::Backward, head_at, OpClass::Elementwise,
                       mb * seq * hd, 1, 2);
    o.outputs = {head_grad};
  }
  for (const std::string& w : head_weights) add_optimizer(m, w, head_at.phase, s.optimizer);

  // Layers backward, in reverse order; phased: recomputation of the forward inside the backward.
  const double recompute = (!pipelined && s.recompute) ? 1.0 : 0.0;
  for (std::int64_t l = s.layers - 1; l >= 0; --l) {
    const std::string p = "layer" + std::to_string(l) + "/";
    const LayerPlace at = layer_at(l);
    const std::string in = layer_in(l), out_grad = layer_out(l).empty() ? "" : "d" + layer_out(l);
    std::vector<std::string> extra;
    if (!in.empty()) extra.push_back(in);
    if (!out_grad.empty()) extra.push_back(out_grad);
    const std::size_t recompute_first = m.ops.size();  // this layer's recompute ops start here
    if (recompute > 0)
      layer_forward(b, p, at, Pass::Backward, "/recompute", {}, "", "", 0, 0, 0, FfnHalf{});
    const std::string grad_out = in.empty() ? "" : "d" + in;
    layer_backward(b, p, at, attention_weights(l), extra, grad_out, attn_temp + ffn_temp,
                   ffn_half(l));
    // The recompute ops come first; the weights and activations must be inputs of the first op
    // of this layer's backward for the phased passes (loads) to see them.
    if (recompute > 0) {
      // Only the ops just added can be this layer's recompute (a scan over every op made the
      // generator quadratic in layers).
      const std::string qkv_recompute = p + "qkv/recompute";
      for (std::size_t i = recompute_first; i < m.ops.size(); ++i)
        if (ModelOp& o = m.ops[i]; o.name == qkv_recompute) {
          o.inputs = layer_weights(l);
          o.inputs.insert(o.inputs.end(), extra.begin(), extra.end());
        }
    }
    for (const std::string& w : layer_weights(l)) add_optimizer(m, w, at.phase, s.optimizer);
  }
  // Embedding backward + optimizer.
  {
    if (hidden_dropout(s)) dropout(b, "embedding/dropout/bwd", Pass::Backward, ea, mb * seq * hd);
    ModelOp& o =
        b.vec("embedding/bwd", Pass::Backward, ea, OpClass::Embedding, mb * seq * hd, 2, 4);
    o.bytes = 4 * b.act_bytes();
    o.inputs = emb_weights;
    o.inputs.push_back("dx1");
    b.tp_allreduce("embedding/bwd/tp_allreduce", Pass::Backward, ea, 1);
    for (const std::string& w : emb_weights) add_optimizer(m, w, 0, s.optimizer);
  }
  // The accumulator of each weight is written by its backward op (once per micro-batch).
  if (s.optimizer.accumulate) {
    for (ModelOp& o : m.ops) {
      if (o.pass != Pass::Backward || o.type != OpType::Compute) continue;
      for (const std::string& in : std::vector<std::string>(o.inputs)) {
        if (m.has_tensor(in) && m.tensor(in).kind == TensorKind::Weight)
          o.outputs.push_back(in + "/accum");
      }
    }
  }
  return m;
}

}  // namespace ipusim::rt
