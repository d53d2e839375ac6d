// Dropout in the transformer generator (Graphcore's PopART BERT no_dropout / no_attn_dropout):
// the ops bert_model.py builds, at poprand's vertex cost, forward, backward and in the pipeline
// recomputation.
#include <catch2/catch.hpp>
#include <string>

#include "bert_large_spec.hpp"
#include "runtime/generators/model_gen.hpp"
#include "runtime/passes/pass_pipeline.hpp"

using namespace ipusim::rt;

namespace {

/// BERT-Large as MLPerf v1.0's POD64 config places it, cut to one layer: the embedding alone on
/// IPU 0, layer 0 on IPU 1, the heads (tied to the word embedding) on IPU 0 as stage 2.
TransformerSpec one_layer_bert() { return test::bert_large_spec(1, 30400, {0, 1}); }

/// Sum of poplibs' vertex cycles (over all tiles) of one forward stage, per micro-batch:
/// its forward parts and its backward parts (which include the recomputed forward).
double stage_vector_cycles(const TransformerSpec& s, int stage) {
  const PipelinePlan p =
      plan_pipeline(generate_transformer(s, 1), test::two_ipu_pipelined_session());
  const PipelineStage& ps = p.stages.at(static_cast<std::size_t>(stage));
  double c = 0;
  for (const ComputePart& part : ps.fwd) c += part.vector_tile_cycles;
  for (const ComputePart& part : ps.bwd) c += part.vector_tile_cycles;
  return c;
}

std::size_t stage_parts(const TransformerSpec& s, int stage) {
  const PipelinePlan p =
      plan_pipeline(generate_transformer(s, 1), test::two_ipu_pipelined_session());
  const PipelineStage& ps = p.stages.at(static_cast<std::size_t>(stage));
  return ps.fwd.size() + ps.bwd.size();
}

}  // namespace

TEST_CASE("hidden dropout: two per layer, forward, gradient and recomputation at poprand's cost",
          "[transformer][dropout]") {
  TransformerSpec off = one_layer_bert();
  TransformerSpec on = one_layer_bert();
  on.no_dropout = false;  // MLPerf v1.0 pod64-closed.json: "no_dropout": false
  // Layer 0's stage (1) is recomputed: 3 stages, stage 1 keeps 2 (3 - 1 - 1) + 1 = 3 in flight.
  // By hand: two dropouts (attention output, feed-forward output) over T x h = 2 x 512 x 1024
  // = 1,048,576 halves each, poprand's Dropout vertex at 2 cycles per 64-bit vector of 4 halves
  // = 0.5 cycles per half: 524,288 cycles each. Forward 2, recomputation 2, gradient 2 (the
  // gradient's dropout regenerates the mask from the seed): 6 x 524,288 = 3,145,728.
  CHECK(stage_vector_cycles(on, 1) - stage_vector_cycles(off, 1) == 3145728.0);
  CHECK(stage_parts(on, 1) - stage_parts(off, 1) == 6);
  // The embedding's dropout on stage 0 (recomputed too: 2 (3 - 1) + 1 = 5 in flight): 3 ops
  // over the same 1,048,576 halves.
  CHECK(stage_vector_cycles(on, 0) - stage_vector_cycles(off, 0) == 3.0 * 524288.0);
  // The heads' stage 2 has none.
  CHECK(stage_vector_cycles(on, 2) == stage_vector_cycles(off, 2));
}

TEST_CASE("attention dropout covers mb x heads x seq^2 and needs no_dropout false",
          "[transformer][dropout]") {
  TransformerSpec hidden = one_layer_bert();
  hidden.no_dropout = false;
  TransformerSpec attn = hidden;
  attn.no_attn_dropout = false;  // MLPerf v2.0 pod16-closed.json: "no_attn_dropout": false
  // Attention probabilities: 2 x 16 x 512 x 512 = 8,388,608 halves x 0.5 = 4,194,304 cycles,
  // forward, recomputation and gradient: 12,582,912.
  CHECK(stage_vector_cycles(attn, 1) - stage_vector_cycles(hidden, 1) == 12582912.0);
  // bert_model.py's dropout() does nothing when no_dropout, the attention's included.
  TransformerSpec none = one_layer_bert();
  TransformerSpec attn_only = one_layer_bert();
  attn_only.no_attn_dropout = false;
  CHECK(stage_vector_cycles(attn_only, 1) == stage_vector_cycles(none, 1));
  CHECK(stage_parts(attn_only, 1) == stage_parts(none, 1));
}
