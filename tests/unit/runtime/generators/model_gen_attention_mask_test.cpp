// The attention's scale and mask and split_qkv's weight concat in the transformer generator
// (Graphcore's PopART BERT, docs/bert_micro_batch.md): the ops bert_model.py builds, forward,
// in the pipeline recomputation and backward, at poplibs' per-element vertex cycles.
#include <catch2/catch.hpp>
#include <cstddef>
#include <stdexcept>

#include "bert_large_spec.hpp"
#include "runtime/generators/model_gen.hpp"
#include "runtime/passes/pass_pipeline.hpp"

using namespace ipusim::rt;

namespace {

/// One BERT-Large layer on IPU 1, the embedding and heads on IPU 0 (MLPerf v1.0 POD64 layout).
TransformerSpec one_layer_bert() { return test::bert_large_spec(1, 30400, {0, 1}); }

PipelineStage stage(const TransformerSpec& s, int index) {
  const PipelinePlan p =
      plan_pipeline(generate_transformer(s, 1), test::two_ipu_pipelined_session());
  return p.stages.at(static_cast<std::size_t>(index));
}

/// Vertex cycles (all tiles) and parts of a stage, forward and backward (with recomputation).
double vector_cycles(const PipelineStage& ps) {
  double c = 0;
  for (const ComputePart& part : ps.fwd) c += part.vector_tile_cycles;
  for (const ComputePart& part : ps.bwd) c += part.vector_tile_cycles;
  return c;
}
std::size_t parts(const PipelineStage& ps) { return ps.fwd.size() + ps.bwd.size(); }
/// Op overheads a stage pays (a part's chained ops each pay one).
std::size_t overheads(const PipelineStage& ps) {
  std::size_t n = 0;
  for (const ComputePart& part : ps.fwd) n += part.chained_ops;
  for (const ComputePart& part : ps.bwd) n += part.chained_ops;
  return n;
}

}  // namespace

TEST_CASE("attention scale and ApplyMask add: mb x heads x S^2 at an Add's cost",
          "[transformer][attention_mask]") {
  const TransformerSpec none = one_layer_bert();
  TransformerSpec per_ipu = one_layer_bert();
  per_ipu.attention_mask = "per_ipu";
  // By hand: scores 2 packs x 16 heads x 512 x 512 = 8,388,608 halves; the mul by 1/sqrt(d)
  // and the add each at popops' binary row, (1 + 2) cycles per 4 halves = 0.75 per half:
  // 6,291,456 cycles. Forward 2, recomputation 2, the scale's gradient 1: 5 x 6,291,456.
  const PipelineStage a = stage(none, 1), b = stage(per_ipu, 1);
  CHECK(vector_cycles(b) - vector_cycles(a) == 31457280.0);
  CHECK(parts(b) - parts(a) == 5);
  // The embedding (stage 0) and heads (stage 2) have no attention.
  CHECK(vector_cycles(stage(per_ipu, 0)) == vector_cycles(stage(none, 0)));
  CHECK(vector_cycles(stage(per_ipu, 2)) == vector_cycles(stage(none, 2)));
}

TEST_CASE("per_layer adds the AttentionMask custom op: five ops over mb x S^2",
          "[transformer][attention_mask]") {
  TransformerSpec per_ipu = one_layer_bert();
  per_ipu.attention_mask = "per_ipu";
  TransformerSpec per_layer = one_layer_bert();
  per_layer.attention_mask = "per_layer";
  // By hand: the mask is [2, 1, 512, 512] = 524,288 halves; sub 0.75 + absInPlace (1 + 4) / 4
  // = 1.25 + tanhInPlace 2 / 4 = 0.5 + mulInPlace 0.75 = 3.25 cycles per half: 1,703,936.
  // Forward and recomputation (no gradient: the mask is detached): 3,407,872, 2 parts of 5 ops.
  const PipelineStage a = stage(per_ipu, 1), b = stage(per_layer, 1);
  CHECK(vector_cycles(b) - vector_cycles(a) == 3407872.0);
  CHECK(parts(b) - parts(a) == 2);
  CHECK(overheads(b) - overheads(a) == 10);
}

TEST_CASE("split_qkv: the weight concat forward and recomputed, three gradient slices",
          "[transformer][attention_mask]") {
  const TransformerSpec fused = one_layer_bert();
  TransformerSpec split = one_layer_bert();
  split.split_qkv = true;
  const PipelineStage a = stage(fused, 1), b = stage(split, 1);
  // Three parts (forward, recomputation, gradient), paying 1 + 1 + 3 op overheads, no vertex
  // cycles: each a copy of 3 x 1024 x 1024 halves read and written, 12,582,912 bytes.
  CHECK(parts(b) - parts(a) == 3);
  CHECK(overheads(b) - overheads(a) == 5);
  CHECK(vector_cycles(b) == vector_cycles(a));
  std::size_t copies = 0;
  for (const ComputePart& part : b.fwd) copies += part.bytes == 12582912 ? 1 : 0;
  for (const ComputePart& part : b.bwd) copies += part.bytes == 12582912 ? 1 : 0;
  CHECK(copies == 3);
}

TEST_CASE("attention_mask must be none, per_ipu or per_layer", "[transformer][attention_mask]") {
  TransformerSpec s = one_layer_bert();
  s.attention_mask = "per_head";
  CHECK_THROWS_AS(generate_transformer(s, 1), std::invalid_argument);
}
