#include "collectives/sharding/split_regions.hpp"

#include <algorithm>
#include <stdexcept>

namespace ipusim::coll {
namespace {

std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

// floor(v * n / d) in 128 bits: v * n can overflow 64 bits for huge tensors (the poplibs
// LargeSplitRegionsTest guards exactly this boundary arithmetic). Result <= n since v <= d.
std::uint64_t scaledFloor(std::uint64_t v, std::uint64_t n, std::uint64_t d) {
  __extension__ using u128 = unsigned __int128;
  return static_cast<std::uint64_t>(static_cast<u128>(v) * n / d);
}

}  // namespace

std::vector<std::vector<Interval>> splitRegions(const std::vector<Interval>& regions,
                                                std::uint64_t grainSize, unsigned maxPartitions,
                                                std::uint64_t minElementsPerPartition,
                                                std::uint64_t maxElementsPerPartition,
                                                std::uint64_t maxElementsPerRegion) {
  if (grainSize == 0) throw std::invalid_argument("splitRegions: grain size must be positive");
  if (maxPartitions == 0) {
    throw std::invalid_argument("splitRegions: maxPartitions must be positive");
  }
  // Per-region pieces are whole grains, as in poplibs.
  const std::uint64_t maxRegionElems = grainSize * (maxElementsPerRegion / grainSize);
  if (maxRegionElems == 0 || maxElementsPerPartition < grainSize) {
    throw std::invalid_argument(
        "splitRegions: per-region and per-partition limits must hold at least one grain");
  }

  std::vector<std::vector<Interval>> partitions;
  std::uint64_t totalElems = 0;
  for (const Interval& r : regions) {
    if (r.end < r.begin) throw std::invalid_argument("splitRegions: interval with end < begin");
    totalElems += r.size();
  }
  if (totalElems == 0) return partitions;

  const std::uint64_t numGrains = ceilDiv(totalElems, grainSize);
  std::uint64_t maxGrainsPerPartition = ceilDiv(numGrains, maxPartitions);
  maxGrainsPerPartition = std::min(maxGrainsPerPartition, maxElementsPerPartition / grainSize);
  if (minElementsPerPartition != 0) {
    // Fewer, fuller partitions when a minimum size is requested.
    const std::uint64_t minGrains = ceilDiv(minElementsPerPartition, grainSize);
    const std::uint64_t maxPartitionsToCreate = std::max<std::uint64_t>(1, numGrains / minGrains);
    maxGrainsPerPartition =
        std::max(maxGrainsPerPartition, ceilDiv(numGrains, maxPartitionsToCreate));
  }
  const std::uint64_t numPartitions = ceilDiv(numGrains, maxGrainsPerPartition);
  partitions.resize(numPartitions);

  auto it = regions.begin();
  std::uint64_t offsetInRegion = 0;
  for (std::uint64_t v = 0; v < numPartitions; ++v) {
    const std::uint64_t grainBegin = scaledFloor(v, numGrains, numPartitions);
    const std::uint64_t grainEnd = scaledFloor(v + 1, numGrains, numPartitions);
    const std::uint64_t elemBegin = grainBegin * grainSize;
    const std::uint64_t elemEnd = std::min(totalElems, grainEnd * grainSize);
    std::uint64_t remaining = elemEnd - elemBegin;
    while (remaining > 0) {
      while (offsetInRegion == it->size()) {  // also skips empty regions
        offsetInRegion = 0;
        ++it;
      }
      const std::uint64_t take = std::min({remaining, maxRegionElems, it->size() - offsetInRegion});
      const std::uint64_t begin = it->begin + offsetInRegion;
      partitions[v].push_back(Interval{begin, begin + take});
      offsetInRegion += take;
      remaining -= take;
    }
  }
  return partitions;
}

}  // namespace ipusim::coll
