// Transformer generator: BERT-Large parameter count and the pipelined placement.
#include <algorithm>
#include <catch2/catch.hpp>

#include "bert_large_spec.hpp"
#include "runtime/generators/model_gen.hpp"

using namespace ipusim::rt;

namespace {

TransformerSpec bert_large_mlperf() { return test::bert_large_spec(24, 30522, {3, 7, 7, 7}); }

}  // namespace

TEST_CASE("BERT-Large with MLM/NSP heads has 336,226,108 parameters", "[transformer]") {
  // Per layer 12 h^2 + 13 h = 12,596,224 (QKV 3h^2+3h, output h^2+h, FFN 8h^2+5h, 2 LN 4h);
  // 24 layers = 302,309,376. Embedding: (30522 words + 512 positions + 2 token types + 2 LN) h
  // = 31,782,912. Heads: MLM dense h^2 + h, LN 2h, decoder bias 30522 (decoder weight tied to
  // the word embedding) = 1,082,170; pooler h^2 + h and NSP 2h + 2 = 1,051,650.
  const Model m = generate_transformer(bert_large_mlperf(), 4);
  const std::uint64_t expected = 302309376ull + 31782912ull + 1082170ull + 1051650ull;
  CHECK(count_parameters(m) == expected);
  CHECK(expected >= 334000000);
  CHECK(expected <= 340000000);
}

TEST_CASE("layers_per_ipu places layers, the embedding and the tied heads", "[transformer]") {
  const Model m = generate_transformer(bert_large_mlperf(), 4);
  auto find = [&](const std::string& name) -> const ModelOp& {
    for (const ModelOp& o : m.ops)
      if (o.name == name) return o;
    FAIL("no op " << name);
    return m.ops.front();
  };
  CHECK(find("embedding/fwd").vgraph == 0);
  CHECK(find("layer2/qkv").vgraph == 0);
  CHECK(find("layer3/qkv").vgraph == 1);
  CHECK(find("layer23/ff2").vgraph == 3);
  // The heads share IPU 0 with the embedding (tied decoder) as pipeline stage 4.
  CHECK(find("head/mlm_decoder").vgraph == 0);
  CHECK(find("head/mlm_decoder").pipeline_stage == 4);
  CHECK(find("layer10/qkv/dgrad").pipeline_stage == 2);
  // Attention per pack: scores are seq x seq for each of micro_batch x heads groups.
  const GemmShape& g = find("layer0/scores").gemm;
  CHECK(g.m == 512);
  CHECK(g.n == 512);
  CHECK(g.k == 64);
  CHECK(g.groups == 2 * 16);
}

TEST_CASE("layers_per_ipu must add up to the layers", "[transformer]") {
  TransformerSpec s = bert_large_mlperf();
  s.layers_per_ipu = {3, 7, 7, 6};
  CHECK_THROWS_WITH(generate_transformer(s, 4), Catch::Contains("sums to 23"));
}

TEST_CASE("partials_type float marks every matmul for the FP16.32 AMP rate", "[transformer]") {
  TransformerSpec s = bert_large_mlperf();
  s.partials_type = "float";
  const Model m = generate_transformer(s, 4);
  int matmuls = 0;
  for (const ModelOp& o : m.ops) {
    if (o.type != OpType::Compute || o.op_class != OpClass::Matmul) continue;
    ++matmuls;
    CHECK(o.gemm.fp32_partials);
  }
  // Per layer 6 forward GEMMs + 12 backward (two per forward GEMM); heads: 4 forward + 8 backward.
  CHECK(matmuls == 24 * 18 + 12);
}

TEST_CASE("att_ffn_placement places attention and feed-forward halves apart", "[transformer]") {
  // MLPerf v1.1 pod128-closed.json: stage i + 1 is entry i. Attention halves fill 2, 3, 4, 3,
  // 4, 3, 4, 1 layers (0-1, 2-4, 5-8, 9-11, 12-15, 16-18, 19-22, 23); feed-forward halves 2, 3,
  // 3, 4, 3, 4, 3, 2 (0-1, 2-4, 5-7, 8-11, 12-14, 15-18, 19-21, 22-23).
  TransformerSpec s = bert_large_mlperf();
  s.layers_per_ipu.clear();
  s.att_ffn_placement = {{1, 2, 2}, {2, 3, 3}, {3, 4, 3}, {4, 3, 4},
                         {5, 4, 3}, {6, 3, 4}, {7, 4, 3}, {0, 1, 2}};
  const Model m = generate_transformer(s, 16);
  auto find = [&](const std::string& name) -> const ModelOp& {
    for (const ModelOp& o : m.ops)
      if (o.name == name) return o;
    FAIL("no op " << name);
    return m.ops.front();
  };
  // Layer 8: attention on IPU 3 (stage 3), feed-forward on IPU 4 (stage 4), y8 between them.
  CHECK(find("layer8/qkv").vgraph == 3);
  CHECK(find("layer8/add_norm1").pipeline_stage == 3);
  CHECK(find("layer8/add_norm1").outputs == std::vector<std::string>{"y8"});
  CHECK(find("layer8/ff1").vgraph == 4);
  CHECK(find("layer8/ff1").pipeline_stage == 4);
  CHECK(find("layer8/ff1").inputs == std::vector<std::string>{"layer8/ff1", "layer8/ff2", "y8"});
  // Backward: the feed-forward half (stage 4) writes dy8, the attention half (stage 3) reads it.
  CHECK(find("layer8/add_norm2/bwd").pipeline_stage == 4);
  CHECK(find("layer8/add_norm1/bwd").pipeline_stage == 3);
  const std::vector<std::string>& in = find("layer8/add_norm1/bwd").inputs;
  CHECK(std::find(in.begin(), in.end(), "dy8") != in.end());
  CHECK(std::find(in.begin(), in.end(), "layer8/qkv") != in.end());
  CHECK(std::find(in.begin(), in.end(), "layer8/ff1") == in.end());
  // A layer whose halves share a stage is not split: layer 0 has no y0.
  CHECK(find("layer0/add_norm1").outputs.empty());
  // Layer 22's feed-forward and layer 23 run on IPU 0 as stage 8, where the heads (on the
  // embedding's IPU 0) join them; the embedding stays stage 0.
  CHECK(find("layer22/qkv").pipeline_stage == 7);
  CHECK(find("layer22/ff2").vgraph == 0);
  CHECK(find("layer22/ff2").pipeline_stage == 8);
  CHECK(find("layer23/qkv").pipeline_stage == 8);
  CHECK(find("head/mlm_decoder").vgraph == 0);
  CHECK(find("head/mlm_decoder").pipeline_stage == 8);
  CHECK(find("embedding/fwd").pipeline_stage == 0);
  // Same parameters as the layers_per_ipu model (placement moves no weight).
  CHECK(count_parameters(m) == count_parameters(generate_transformer(bert_large_mlperf(), 16)));
}

TEST_CASE("att_ffn_placement must place every half, attention first", "[transformer]") {
  TransformerSpec s = bert_large_mlperf();
  s.layers_per_ipu.clear();
  s.att_ffn_placement = {{1, 12, 12}, {2, 12, 11}};
  CHECK_THROWS_WITH(generate_transformer(s, 4), Catch::Contains("23 feed-forward halves"));
  // Layer 0's feed-forward on stage 1, its attention on stage 2.
  s.att_ffn_placement = {{1, 0, 1}, {2, 24, 23}};
  CHECK_THROWS_WITH(generate_transformer(s, 4), Catch::Contains("layer 0's feed-forward before"));
  s.att_ffn_placement = {{1, 12, 12}, {2, 12, 12}};
  s.layers_per_ipu = {0, 12, 12};
  CHECK_THROWS_WITH(generate_transformer(s, 4), Catch::Contains("replaces layers_per_ipu"));
}

TEST_CASE("PopART's AdamDecompose: a LAMB update is 7 ops and 2 reductions to a scalar",
          "[transformer]") {
  // By hand from PopART 2.1's AdamDecompose (see popart_update_ops), an FP16 weight with FP32
  // moments and micro-batches accumulating: gradCast 1 + gradUnscale 1 + accl1 1 + accl2 1 +
  // accumUpdate 1 + AdamUpdaterOp 1 + AdamVarUpdateOp 1 = 7 ops; LAMB's two LambSquareOps
  // (||w||^2 and ||updater||^2) are the 2 reductions.
  OptimizerSpec o;
  o.type = "lamb";
  o.state_dtype = DType::Float32;
  o.accumulate = true;
  o.popart_decompose = true;
  CHECK(popart_update_ops(o, DType::Float16) == 7);
  CHECK(popart_update_reductions(o) == 2);
  CHECK(popart_update_ops(o, DType::Float32) == 6);  // no gradCast: the gradient is FP32
  o.accumulate = false;
  CHECK(popart_update_ops(o, DType::Float16) == 6);  // no accumulator to reset
  o.type = "adam";
  CHECK(popart_update_ops(o, DType::Float16) == 6);
  CHECK(popart_update_reductions(o) == 0);  // Adam has no trust ratio
  o.type = "sgd";
  CHECK(popart_update_ops(o, DType::Float16) == 1);  // not decomposed here: one op
  o.type = "lamb";
  o.popart_decompose = false;  // popxl and the other frameworks: one op per weight
  CHECK(popart_update_ops(o, DType::Float16) == 1);
  CHECK(popart_update_reductions(o) == 0);
  // Gradient clipping (ClipWeightGradientsByNorm): per weight a ReduceSumSquareOp of the
  // gradient (+1 reduction) and a MulOp by the clip factor (+1 op). LAMB, accumulating, FP16
  // weight with FP32 moments: 7 + 1 = 8 ops, 2 + 1 = 3 reductions; Adam the same 7 + 1 ops
  // (AdamDecompose builds the same ops for both) and 0 + 1 reductions.
  o.popart_decompose = true;
  o.accumulate = true;
  o.clip_all_weights = true;
  CHECK(popart_update_ops(o, DType::Float16) == 8);
  CHECK(popart_update_reductions(o) == 3);
  o.type = "adam";
  CHECK(popart_update_ops(o, DType::Float16) == 8);
  CHECK(popart_update_reductions(o) == 1);
  o.type = "sgd";  // not decomposed here: clipping adds nothing
  CHECK(popart_update_ops(o, DType::Float16) == 1);
  CHECK(popart_update_reductions(o) == 0);

  // Every generated BERT weight update carries them.
  TransformerSpec s = bert_large_mlperf();
  s.optimizer.type = "lamb";
  s.optimizer.state_dtype = DType::Float32;
  s.optimizer.accumulate = true;
  s.optimizer.popart_decompose = true;
  const Model m = generate_transformer(s, 4);
  int updates = 0;
  for (const ModelOp& op : m.ops) {
    if (op.pass != Pass::Optimizer) continue;
    ++updates;
    INFO(op.name);
    CHECK(op.chained_ops == 7);
    CHECK(op.scalar_reductions == 2);
    // Both LambSquareOps read the weight's shard when it is sharded: each all-reduced.
    CHECK(op.sharded_norms == 2);
  }
  CHECK(updates > 0);
  // Without PopART's decomposition (popxl) no LambSquareOp, so no norm all-reduce.
  s.optimizer.popart_decompose = false;
  for (const ModelOp& op : generate_transformer(s, 4).ops)
    if (op.pass == Pass::Optimizer) CHECK(op.sharded_norms == 0);
  // With clipping: 3 reductions and 8 ops, of which LAMB's 2 norms are all-reduced under RTS
  // (the clipping norm's all-reduce is SDK 2.5's, not modelled).
  s.optimizer.popart_decompose = true;
  s.optimizer.clip_all_weights = true;
  for (const ModelOp& op : generate_transformer(s, 4).ops) {
    if (op.pass != Pass::Optimizer) continue;
    CHECK(op.scalar_reductions == 3);
    CHECK(op.chained_ops == 8);
    CHECK(op.sharded_norms == 2);
  }
}

TEST_CASE("a layer's biases and LayerNorm parameters are separate weights, as bert_model.py",
          "[transformer]") {
  // bert_model.py creates QKV (h x 3h), QKV_bias (3h), Out (h x h), Out_bias (h), the FFN
  // matrices (h x 4h, 4h x h) and biases (4h, h), and two Gamma / Beta pairs (h each): 12
  // weights per layer, of which only the four matrices reach PopART's
  // minElementsForReplicatedTensorSharding (8,192) at h = 1,024.
  const Model m = generate_transformer(bert_large_mlperf(), 4);
  std::vector<std::pair<std::string, std::uint64_t>> layer0;
  for (const Tensor& t : m.tensors)
    if (t.kind == TensorKind::Weight && t.name.rfind("layer0/", 0) == 0)
      layer0.emplace_back(t.name, t.elements());
  REQUIRE(layer0.size() == 12);
  std::uint64_t small = 0, sum = 0;
  for (const auto& [name, n] : layer0) {
    sum += n;
    if (n < 8192) small += 1;
  }
  CHECK(small == 8);
  CHECK(sum == 12596224ull);  // 12 h^2 + 13 h, as the parameter count above
  CHECK(m.tensor("layer0/qkv_bias").elements() == 3072);
  CHECK(m.tensor("layer0/ff1_bias").elements() == 4096);
  CHECK(m.tensor("layer0/norm2_beta").elements() == 1024);
}

TEST_CASE("the layer's vector ops carry poplibs' vertex cycles; the loss backward does not",
          "[transformer][vector]") {
  // BERT-Large FP16, micro-batch 2 packs of 512: T = 1024 tokens, scores 2 x 16 heads x 512^2
  // = 8,388,608 elements, hidden T x 1024 = 1,048,576, feed-forward T x 4096 = 4,194,304.
  // Per element (models/ipu/popops_vertices.hpp): softmax 3.0, its gradient 2.5, add + layer
  // norm 3.25 (and its gradient with the residual's add), GELU 2.0, its gradient 3.75.
  const Model m = generate_transformer(bert_large_mlperf(), 4);
  auto cycles = [&](const std::string& name) {
    for (const ModelOp& o : m.ops)
      if (o.name == name) return o.vector_tile_cycles;
    FAIL("no op " << name);
    return -1.0;
  };
  CHECK(cycles("layer0/softmax") == 8388608.0 * 3.0);
  CHECK(cycles("layer0/softmax/bwd") == 8388608.0 * 2.5);
  CHECK(cycles("layer0/add_norm1") == 1048576.0 * 3.25);
  CHECK(cycles("layer0/add_norm2/bwd") == 1048576.0 * 3.25);
  CHECK(cycles("layer0/gelu") == 4194304.0 * 2.0);
  CHECK(cycles("layer0/gelu/bwd") == 4194304.0 * 3.75);
  CHECK(cycles("layer0/residual/bwd") == 1048576.0 * 0.75);
  // No vertex cost given: the compute model's per-flop ADD cost applies.
  CHECK(cycles("head/mlm_loss/bwd") == 0.0);
}

TEST_CASE("an SDK 2.1.0 run's softmax and FP16 GELU carry that release's vertex cycles",
          "[transformer][vector]") {
  // As above, under SDK 2.1.0 (MLPerf v1.0): EXPONENT {6, 4 halves} makes softmax 3.5 per
  // element, the GELU loop's clamp bundle 2.25; the other ops are the same in every 2.x.
  TransformerSpec s = bert_large_mlperf();
  s.poplar_sdk = ipusim::PoplarSdk::V2_1_0;
  const Model m = generate_transformer(s, 4);
  auto cycles = [&](const std::string& name) {
    for (const ModelOp& o : m.ops)
      if (o.name == name) return o.vector_tile_cycles;
    FAIL("no op " << name);
    return -1.0;
  };
  CHECK(cycles("layer0/softmax") == 8388608.0 * 3.5);
  CHECK(cycles("layer0/gelu") == 4194304.0 * 2.25);
  CHECK(cycles("layer0/softmax/bwd") == 8388608.0 * 2.5);
  CHECK(cycles("layer0/gelu/bwd") == 4194304.0 * 3.75);
}
