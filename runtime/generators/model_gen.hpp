#pragma once
// Model generators (plain C++): build the forward, backward and optimizer ops of an MLP or
// a transformer, one forward phase per layer (or per `layers_per_phase` layers), so users
// do not write thousands of ops by hand.
#include <cstdint>
#include <vector>

#include "models/params/hw_params.hpp"
#include "runtime/generators/model_gen_optimizer.hpp"
#include "runtime/ir/ir_model.hpp"

namespace ipusim::rt {

/// A multi-layer perceptron (W13/W14: 784 -> 512 -> 512 -> 512 -> 10).
struct MlpSpec {
  std::vector<std::int64_t> layer_sizes = {784, 512, 512, 512, 10};
  std::int64_t micro_batch =
      8;  ///< samples of one generated step (PopART micro-batch / batch-serialisation factor)
  DType dtype = DType::Float32;
  OptimizerSpec optimizer;
};

/// A transformer encoder/decoder stack (BERT, GPT): embedding phase, one phase per
/// `layers_per_phase` layers, head phase (forward + loss + backward), so 2P-1 phases in
/// all with P = layers / layers_per_phase + 2.
struct TransformerSpec {
  std::int64_t layers = 24, hidden = 1024, heads = 16, sequence_length = 128, vocab = 30522;
  std::int64_t micro_batch =
      8;  ///< samples of one generated step (PopART micro-batch / batch-serialisation factor)
  DType dtype = DType::Float16;
  std::int64_t layers_per_phase = 1;
  std::int64_t tensor_parallel = 1;    ///< weights split over consecutive groups of this size
  std::int64_t activation_shards = 1;  ///< activations split this many ways (2-D tensor parallel)
  std::int64_t attention_serialisation = 1;  ///< divides the attention working memory
  std::int64_t head_tokens = 0;  ///< tokens the head projects to the vocabulary (0 = all)
  std::int64_t ffn_factor = 4;
  bool recompute = true;  ///< phased: backward recomputes the forward (3x forward flops)
  /// Heads: "lm" (dense + decoder over head_tokens, GPT/phased BERT) or "mlm_nsp" (BERT
  /// pre-training: MLM transform + decoder tied to the word embedding, NSP pooler + classifier).
  std::string head = "lm";
  /// Packed sequences: a sample is a pack of up to `max_sequences_per_pack` sequences filling
  /// `sequence_length` tokens, `sequences_per_pack` on average; attention runs over the whole
  /// pack (block-diagonal mask), so compute is per pack. 1 / 1 = unpacked.
  std::int64_t max_sequences_per_pack = 1;
  double sequences_per_pack = 1.0;
  /// Pipelining (PopART virtualGraph / pipelineStage): encoder layers per IPU, e.g. [3, 7, 7, 7]
  /// or [0, 3, 3, 3, 3, 4, 4, 4] (embedding alone on IPU 0). Empty = phased placement.
  std::vector<std::int64_t> layers_per_ipu;
  /// Pipelining with attention and feed-forward placed apart (Graphcore's PopART BERT
  /// `att_ffn_placement`, MLPerf v1.1): one entry per pipeline stage after the embedding's stage
  /// 0, in pipeline order: the IPU, then how many attention and how many feed-forward sub-layers
  /// the stage runs (each sum over the entries = layers). Replaces layers_per_ipu.
  struct SublayerStage {
    std::int64_t ipu = 0, attention = 0, ffn = 0;
  };
  std::vector<SublayerStage> att_ffn_placement;
  std::int64_t embedding_ipu = 0;  ///< IPU of the embedding (pipeline stage 0)
  /// IPU of the heads; -1 = the embedding's IPU (the MLM decoder is tied to the word
  /// embedding, so the heads share its IPU and form the last pipeline stage).
  std::int64_t head_ipu = -1;
  /// PopART partialsType of the matmuls: "half" (FP16 accumulation, MLPerf BERT on IPUs) or
  /// "float" (FP32 accumulators: the AMP's FP16.32 rate).
  std::string partials_type = "half";
  /// Dropout as Graphcore's PopART BERT builds it (bert_model.py, its config keys): unless
  /// `no_dropout`, a dropout on the embedding's output and on each layer's attention-output and
  /// feed-forward-output projections (the hidden dropouts, T x h elements each); unless also
  /// `no_attn_dropout`, one on the attention probabilities (mb x heads x seq^2). Each runs
  /// poprand::dropout forward and again on its gradient (same seed) in the backward.
  bool no_dropout = true;
  bool no_attn_dropout = true;
  /// Graphcore's PopART BERT attention besides the two matmuls and the softmax
  /// (bert_model.py attention_onnx): "none" = a generic transformer; "per_ipu" = the scores'
  /// scale by 1/sqrt(d) and the "ApplyMask" add, the mask built once per IPU from [B, S] inputs
  /// (unpacked); "per_layer" = also the AttentionMask custom op per layer (packed sequences:
  /// custom_ops/attention_mask.cpp). docs/bert_micro_batch.md.
  std::string attention_mask = "none";
  /// Graphcore's PopART BERT `split_qkv`: Q, K, V as three h x h weights concatenated on every
  /// forward (bert_model.py qkv_weights), the gradient sliced back.
  bool split_qkv = false;
  /// The run's Poplar SDK (`/software/poplar_sdk_version`, the chip's `poplar_sdk`): whose
  /// poplibs estimates cost the element-wise ops (SDK 2.1.0's softmax and FP16 GELU differ).
  PoplarSdk poplar_sdk{};
  OptimizerSpec optimizer;
};

/// Trainable parameters of a model (elements of its weight tensors).
std::uint64_t count_parameters(const Model& m);

/// Builds the MLP model (P = number of layers).
Model generate_mlp(const MlpSpec& spec);
/// Builds the transformer model; `replicas` sets the VariableSettings of tensor-parallel
/// weights (shared by the data-parallel replicas: orthogonal:replicas/tensor_parallel).
/// Throws std::invalid_argument for inconsistent sizes.
Model generate_transformer(const TransformerSpec& spec, std::uint32_t replicas);

}  // namespace ipusim::rt
