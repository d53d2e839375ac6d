// Linear tile mapping: contiguous grains, the remainder on the first tiles.
#include "models/ipu/tile_mapping.hpp"

#include <algorithm>

namespace ipusim {

LinearMapping::LinearMapping(std::uint64_t elements, std::uint64_t grain, std::uint32_t tiles)
    : elements_(elements),
      grain_(std::max<std::uint64_t>(1, grain)),
      tiles_(std::max<std::uint32_t>(1, tiles)) {
  grains_ = (elements_ + grain_ - 1) / grain_;
}

std::uint64_t LinearMapping::elements_on(std::uint32_t tile) const {
  if (tile >= tiles_) return 0;
  const std::uint64_t q = grains_ / tiles_, r = grains_ % tiles_;
  // Tile t starts after q grains per earlier tile plus one for each earlier tile below r.
  const std::uint64_t first = q * tile + std::min<std::uint64_t>(tile, r);
  const std::uint64_t count = q + (tile < r ? 1 : 0);
  const std::uint64_t begin = std::min(elements_, first * grain_);
  const std::uint64_t end = std::min(elements_, (first + count) * grain_);
  return end - begin;
}

bool LinearMapping::balanced() const { return max_elements() <= (elements_ + tiles_ - 1) / tiles_; }

}  // namespace ipusim
