#pragma once
// poputil::splitRegions (poplibs lib/poputil/Util.cpp) for interval lists: cut an ordered
// list of regions into at most `maxPartitions` balanced, grain-aligned partitions. CBR uses
// it to deal each tile's elements out to the replicas.
#include <cstdint>
#include <limits>
#include <vector>

namespace ipusim::coll {

/// Half-open element interval [begin, end) (poplar::Interval).
struct Interval {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;

  /// Number of elements, end - begin.
  std::uint64_t size() const { return end - begin; }
  bool operator==(const Interval& o) const { return begin == o.begin && end == o.end; }
  bool operator!=(const Interval& o) const { return !(*this == o); }
};

/// Splits `regions` (taken in order) into V <= maxPartitions partitions, V =
/// ceil(numGrains / ceil(numGrains / maxPartitions)); partition v gets grains
/// [floor(v*numGrains/V), floor((v+1)*numGrains/V)), so sizes differ by at most one grain
/// and the smaller partitions come first. Follows poplibs' code, not its (wrong) comment.
/// Returns no partitions for an empty input; throws std::invalid_argument for a zero
/// grain or partition count, or limits smaller than one grain.
std::vector<std::vector<Interval>> splitRegions(
    const std::vector<Interval>& regions, std::uint64_t grainSize, unsigned maxPartitions,
    std::uint64_t minElementsPerPartition = 0,
    std::uint64_t maxElementsPerPartition = std::numeric_limits<std::uint64_t>::max(),
    std::uint64_t maxElementsPerRegion = std::numeric_limits<std::uint64_t>::max());

}  // namespace ipusim::coll
