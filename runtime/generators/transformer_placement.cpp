// Transformer layer placement (transformer_placement.hpp): the checks and the mapping of
// `att_ffn_placement` and `layers_per_ipu` onto pipeline stages.
#include "runtime/generators/transformer_placement.hpp"

#include <stdexcept>
#include <string>

namespace ipusim::rt {

/// Checks `att_ffn_placement` and returns where each layer's two halves go: entry i is pipeline
/// stage i + 1 (the embedding's is 0), filled in order with attention and feed-forward halves.
HalfPlaces half_places(const TransformerSpec& s) {
  HalfPlaces h;
  if (s.att_ffn_placement.empty()) return h;
  if (!s.layers_per_ipu.empty())
    throw std::invalid_argument("att_ffn_placement replaces layers_per_ipu: give one of them");
  for (std::size_t i = 0; i < s.att_ffn_placement.size(); ++i) {
    const TransformerSpec::SublayerStage& e = s.att_ffn_placement[i];
    if (e.ipu < 0 || e.attention < 0 || e.ffn < 0)
      throw std::invalid_argument("att_ffn_placement entries must be non-negative");
    const LayerPlace at{0, static_cast<int>(e.ipu), static_cast<int>(i) + 1};
    h.attention.insert(h.attention.end(), static_cast<std::size_t>(e.attention), at);
    h.ffn.insert(h.ffn.end(), static_cast<std::size_t>(e.ffn), at);
  }
  if (static_cast<std::int64_t>(h.attention.size()) != s.layers ||
      static_cast<std::int64_t>(h.ffn.size()) != s.layers)
    throw std::invalid_argument("att_ffn_placement places " + std::to_string(h.attention.size()) +
                                " attention and " + std::to_string(h.ffn.size()) +
                                " feed-forward halves but the model has " +
                                std::to_string(s.layers) + " layers");
  for (std::size_t l = 0; l < h.ffn.size(); ++l)
    if (h.ffn[l].stage < h.attention[l].stage)
      throw std::invalid_argument("att_ffn_placement puts layer " + std::to_string(l) +
                                  "'s feed-forward before its attention in the pipeline");
  return h;
}

/// Checks `layers_per_ipu` and returns the IPU of each layer (empty when phased).
std::vector<int> layer_ipus(const TransformerSpec& s) {
  std::vector<int> ipu;
  if (s.layers_per_ipu.empty()) return ipu;
  std::int64_t sum = 0;
  for (std::int64_t n : s.layers_per_ipu) {
    if (n < 0) throw std::invalid_argument("layers_per_ipu entries must be >= 0");
    sum += n;
  }
  if (sum != s.layers)
    throw std::invalid_argument("layers_per_ipu sums to " + std::to_string(sum) +
                                " but the model has " + std::to_string(s.layers) + " layers");
  for (std::size_t i = 0; i < s.layers_per_ipu.size(); ++i)
    for (std::int64_t j = 0; j < s.layers_per_ipu[i]; ++j) ipu.push_back(static_cast<int>(i));
  return ipu;
}

}  // namespace ipusim::rt
