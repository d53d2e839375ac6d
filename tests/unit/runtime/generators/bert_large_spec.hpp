// BERT-Large as the MLPerf BERT configs size it, for the generator tests.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/generators/model_gen.hpp"
#include "runtime/passes/pass_pipeline.hpp"

namespace ipusim::rt::test {

/// BERT-Large (hidden 1024, 16 heads, sequence 512, micro-batch 2 packs of up to 3 sequences,
/// MLM/NSP heads on 76 tokens) with `layers` layers placed `layers_per_ipu` and a `vocab`-token
/// embedding: the shape every MLPerf BERT config shares.
inline TransformerSpec bert_large_spec(std::int64_t layers, std::int64_t vocab,
                                       std::vector<std::int64_t> layers_per_ipu) {
  TransformerSpec s;
  s.layers = layers;
  s.hidden = 1024;
  s.heads = 16;
  s.sequence_length = 512;
  s.vocab = vocab;
  s.micro_batch = 2;
  s.head = "mlm_nsp";
  s.head_tokens = 76;
  s.max_sequences_per_pack = 3;
  s.sequences_per_pack = 2;
  s.layers_per_ipu = std::move(layers_per_ipu);
  return s;
}

/// The pipelined session the one-layer BERT tests plan with: 2 IPUs per replica, gradient
/// accumulation 8, manual virtual graphs, PopART's pipeline recomputation.
inline SessionOptions two_ipu_pipelined_session() {
  SessionOptions o;
  o.ipusPerReplica = 2;
  o.accumulationFactor = 8;
  o.enablePipelining = true;
  o.virtualGraphMode = VirtualGraphMode::Manual;
  o.autoRecomputation = Recomputation::Pipeline;
  return o;
}

}  // namespace ipusim::rt::test
