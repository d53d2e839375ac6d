#pragma once
// Poplar's linear tile mapping (plain C++): poputil::mapTensorLinearly cuts a tensor into
// grains of `grain` elements (the last grain may be partial) and gives each tile one
// contiguous interval of whole grains. With G grains on T tiles every tile takes floor(G / T)
// grains and the first G mod T tiles one more, so the busiest tile holds up to one grain more
// than the balanced share: that difference is what per_tile fidelity adds over aggregated.
#include <cstdint>

namespace ipusim {

/// The linear mapping of `elements` elements over `tiles` tiles in grains of `grain`.
class LinearMapping {
 public:
  /// `grain` and `tiles` of 0 are treated as 1.
  LinearMapping(std::uint64_t elements, std::uint64_t grain, std::uint32_t tiles);

  std::uint64_t elements() const { return elements_; }
  std::uint32_t tiles() const { return tiles_; }
  /// Elements on `tile` (0 for tiles past the last grain).
  std::uint64_t elements_on(std::uint32_t tile) const;
  /// Elements on the busiest tile (tile 0).
  std::uint64_t max_elements() const { return elements_on(0); }
  /// True if no tile holds more than ceil(elements / tiles): the mapping is as balanced as
  /// an even split, so per_tile and aggregated fidelity give the same time.
  bool balanced() const;

 private:
  std::uint64_t elements_, grain_;
  std::uint32_t tiles_;
  std::uint64_t grains_;  // ceil(elements / grain)
};

}  // namespace ipusim
