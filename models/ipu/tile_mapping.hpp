#pragma once
// Poplar's linear tile mapping (plain C++): poputil::mapTensorLinearly cuts a tensor into
// grains of `grain` elements (the last grain may be partial) and gives each tile one
// contiguous interval of whole grains. With G grains on T tiles every tile takes floor(G / T)
// grains and the first G mod T tiles one more, so the busiest tile holds up to one grain more
// than the balanced share: that difference is what per_tile fidelity adds over aggregated.
#include <cstdint>
#include <utility>

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
  /// Calls f(first_tile, end_tile, elements) for each run of consecutive tiles holding the
  /// same number of elements (at most four runs; tiles past the last grain are skipped), so
  /// callers touch each tile once without re-deriving its interval.
  template <typename F>
  void for_each_run(F&& f) const {
    const std::uint64_t q = grains_ / tiles_, r = grains_ % tiles_;
    // The last non-empty tile holds the (possibly partial) last grain.
    const std::uint64_t last = q > 0 ? tiles_ - 1 : (r > 0 ? r - 1 : 0);
    // Runs end where the one-grain-more tiles stop (r) and around the last tile (its grain may
    // be partial); in increasing order.
    std::uint64_t ends[] = {r, last, last + 1};
    if (ends[0] > ends[1]) std::swap(ends[0], ends[1]);
    if (ends[1] > ends[2]) std::swap(ends[1], ends[2]);
    if (ends[0] > ends[1]) std::swap(ends[0], ends[1]);
    std::uint64_t begin = 0;
    for (std::uint64_t end : ends) {
      if (end > begin) {
        const std::uint64_t e = elements_on(static_cast<std::uint32_t>(begin));
        if (e > 0) f(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end), e);
      }
      begin = end;
    }
  }
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
