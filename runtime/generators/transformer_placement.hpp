// Where a transformer's layers go: pipeline stages from `layers_per_ipu` or
// `att_ffn_placement` (Graphcore's PopART BERT keys), or forward phases (PopXL).
#pragma once

#include <vector>

#include "runtime/generators/model_gen.hpp"

namespace ipusim::rt {

/// Where the ops being emitted go: a forward phase, or a virtual graph + pipeline stage.
struct LayerPlace {
  int phase = 0;
  int vgraph = -1;
  int stage = -1;
};

/// Each layer's attention and feed-forward LayerPlace (empty unless att_ffn_placement is given).
struct HalfPlaces {
  std::vector<LayerPlace> attention, ffn;
};

/// Checks `att_ffn_placement` and returns where each layer's two halves go: entry i is pipeline
/// stage i + 1 (the embedding's is 0), filled in order with attention and feed-forward halves.
/// Throws std::invalid_argument on a placement that does not fit the model.
HalfPlaces half_places(const TransformerSpec& s);

/// Checks `layers_per_ipu` and returns the IPU of each layer (empty when phased).
std::vector<int> layer_ipus(const TransformerSpec& s);

}  // namespace ipusim::rt
