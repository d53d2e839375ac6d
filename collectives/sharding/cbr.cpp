#include "collectives/sharding/cbr.hpp"

#include <algorithm>
#include <string>

namespace ipusim::coll {
namespace {

std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

std::string intervalStr(const Interval& i) {
  return "[" + std::to_string(i.begin) + "," + std::to_string(i.end) + ")";
}

// Poplar's getSortedContiguousRegions for one tile, modelling the simplifying rearranger as
// "the tile's reference indices in ascending order" (reference §1.7.1 step 1).
std::vector<Interval> sortedContiguousRegions(const std::vector<Interval>& tileIntervals) {
  std::vector<Interval> sorted;
  for (const Interval& i : tileIntervals) {
    if (i.size() > 0) sorted.push_back(i);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> merged;
  for (const Interval& i : sorted) {
    if (!merged.empty() && merged.back().end == i.begin) {
      merged.back().end = i.end;
    } else {
      merged.push_back(i);
    }
  }
  return merged;
}

// One contiguous run placed in the gathered tensor.
struct Piece {
  std::uint64_t refBegin;
  std::uint64_t gatheredBegin;
  std::uint64_t size;
};

}  // namespace

std::uint64_t checkTileMapping(const TileMapping& mapping) {
  std::vector<Interval> all;
  for (const auto& tile : mapping) {
    for (const Interval& i : tile) {
      if (i.end < i.begin)
        throw CbrError("tile mapping: interval " + intervalStr(i) + " has end < begin");
      if (i.size() > 0) all.push_back(i);
    }
  }
  std::sort(all.begin(), all.end(),
            [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::uint64_t expected = 0;
  for (const Interval& i : all) {
    if (i.begin < expected) {
      throw CbrError("tile mapping: element " + std::to_string(i.begin) +
                     " is mapped to more than one tile (interval " + intervalStr(i) + ")");
    }
    if (i.begin > expected) {
      throw CbrError("tile mapping: elements [" + std::to_string(expected) + "," +
                     std::to_string(i.begin) + ") are not mapped to any tile");
    }
    expected = i.end;
  }
  return expected;
}

void CollectiveBalancedHostRearrangement::checkLength(std::size_t got, std::uint64_t want) {
  if (got != want) {
    throw CbrError("CBR host rearrangement: buffer has " + std::to_string(got) +
                   " elements, expected " + std::to_string(want));
  }
}

std::uint64_t CollectiveBalancedHostRearrangement::getNumRearrangedTensorElems() const {
  return std::uint64_t{replicationFactor} * totalElementsPerReplica;
}

std::uint64_t CollectiveBalancedHostRearrangement::getNumReferenceElems() const {
  std::uint64_t n = 0;
  for (const Interval& s : gatheredToRefSlices) n += s.size();
  return n;
}

void CollectiveBalancedHostRearrangement::rearrange(const void* in, void* out,
                                                    std::size_t elemBytes,
                                                    bool refToGathered) const {
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  std::uint64_t refOffset = 0;  // slices are in reference order, so the reference side is dense
  for (const Interval& slice : gatheredToRefSlices) {
    const std::size_t bytes = slice.size() * elemBytes;
    const std::size_t refByte = refOffset * elemBytes;
    const std::size_t gatheredByte = slice.begin * elemBytes;
    if (refToGathered) {
      std::memcpy(dst + gatheredByte, src + refByte, bytes);
    } else {
      std::memcpy(dst + refByte, src + gatheredByte, bytes);
    }
    refOffset += slice.size();
  }
}

void CollectiveBalancedHostRearrangement::rearrangeForCollective(const void* in, void* out,
                                                                 std::size_t elemBytes) const {
  // GCL leaves padding to the caller; zeroing here makes reductions over padding harmless
  // and the result deterministic.
  const std::size_t outBytes = getNumRearrangedTensorElems() * elemBytes;
  if (outBytes > 0) std::memset(out, 0, outBytes);  // empty buffers may be null
  rearrange(in, out, elemBytes, true);
}

void CollectiveBalancedHostRearrangement::undoRearrangeForCollective(const void* in, void* out,
                                                                     std::size_t elemBytes) const {
  rearrange(in, out, elemBytes, false);
}

CollectiveBalancedReorder::CollectiveBalancedReorder(const TileMapping& mapping,
                                                     unsigned replicationFactor,
                                                     std::uint64_t grainSizeElems)
    : grainElems_(grainSizeElems) {
  if (replicationFactor == 0) throw CbrError("CBR: replication factor must be positive");
  if (grainSizeElems == 0) throw CbrError("CBR: grain size must be positive");
  numRefElems_ = checkTileMapping(mapping);
  const std::uint64_t R = replicationFactor;
  const std::size_t numTiles = mapping.size();

  std::vector<std::vector<Interval>> regions(numTiles);
  elemsPerTile_.assign(numTiles, 0);
  paddedPerTile_.assign(numTiles, 0);
  tileOffsets_.assign(numTiles, 0);
  std::uint64_t S = 0;
  for (std::size_t t = 0; t < numTiles; ++t) {
    regions[t] = sortedContiguousRegions(mapping[t]);
    for (const Interval& r : regions[t]) elemsPerTile_[t] += r.size();
    // Grain 1 gives ceil(n_i / R) exactly; a larger grain rounds each block up to whole
    // grains, matching the partition sizes splitRegions can produce.
    paddedPerTile_[t] = ceilDiv(elemsPerTile_[t], R * grainElems_) * grainElems_;
    tileOffsets_[t] = S;
    S += paddedPerTile_[t];
  }

  std::vector<Piece> pieces;
  realPerTilePerReplica_.assign(numTiles, std::vector<std::uint64_t>(R, 0));
  for (std::size_t t = 0; t < numTiles; ++t) {
    const auto partitions = splitRegions(regions[t], grainElems_, replicationFactor);
    for (std::size_t r = 0; r < partitions.size(); ++r) {
      std::uint64_t posInBlock = 0;
      for (const Interval& piece : partitions[r]) {
        pieces.push_back(Piece{piece.begin, r * S + tileOffsets_[t] + posInBlock, piece.size()});
        posInBlock += piece.size();
      }
      realPerTilePerReplica_[t][r] = posInBlock;
    }
  }
  std::sort(pieces.begin(), pieces.end(),
            [](const Piece& a, const Piece& b) { return a.refBegin < b.refBegin; });

  host_.replicationFactor = replicationFactor;
  host_.totalElementsPerReplica = S;
  host_.gatheredToRefSlices.reserve(pieces.size());
  for (const Piece& p : pieces) {
    host_.gatheredToRefSlices.push_back(Interval{p.gatheredBegin, p.gatheredBegin + p.size});
  }
}

std::uint64_t CollectiveBalancedReorder::getNumRearrangedTensorElems() const {
  return host_.getNumRearrangedTensorElems();
}

std::vector<std::optional<std::uint64_t>> CollectiveBalancedReorder::getReplicaShard(
    unsigned replica) const {
  if (replica >= host_.replicationFactor) {
    throw CbrError("CBR: replica " + std::to_string(replica) +
                   " out of range (R = " + std::to_string(host_.replicationFactor) + ")");
  }
  const std::uint64_t S = host_.totalElementsPerReplica;
  const std::uint64_t lo = replica * S;
  const std::uint64_t hi = lo + S;
  std::vector<std::optional<std::uint64_t>> shard(S);
  std::uint64_t ref = 0;
  for (const Interval& slice : host_.gatheredToRefSlices) {
    for (std::uint64_t g = std::max(slice.begin, lo); g < std::min(slice.end, hi); ++g) {
      shard[g - lo] = ref + (g - slice.begin);
    }
    ref += slice.size();
  }
  return shard;
}

std::uint64_t CollectiveBalancedReorder::getNumRealElemsOnReplica(unsigned replica) const {
  if (replica >= host_.replicationFactor) {
    throw CbrError("CBR: replica " + std::to_string(replica) +
                   " out of range (R = " + std::to_string(host_.replicationFactor) + ")");
  }
  std::uint64_t n = 0;
  for (const auto& perReplica : realPerTilePerReplica_) n += perReplica[replica];
  return n;
}

std::uint64_t TileShardLoad::maxElemsPerTilePerReplica() const {
  std::uint64_t best = 0;
  for (const auto& tile : elems) {
    for (std::uint64_t e : tile) best = std::max(best, e);
  }
  return best;
}

std::uint64_t TileShardLoad::maxElemsPerTile() const {
  std::uint64_t best = 0;
  for (const auto& tile : elems) {
    std::uint64_t sum = 0;
    for (std::uint64_t e : tile) sum += e;
    best = std::max(best, sum);
  }
  return best;
}

TileShardLoad tileShardLoadWithoutCbr(const TileMapping& mapping, unsigned numShards) {
  if (numShards == 0) throw CbrError("shard count must be positive");
  const std::uint64_t n = checkTileMapping(mapping);
  const std::uint64_t chunk = ceilDiv(n, numShards);
  TileShardLoad load;
  load.elems.assign(mapping.size(), std::vector<std::uint64_t>(numShards, 0));
  if (chunk == 0) return load;
  for (std::size_t t = 0; t < mapping.size(); ++t) {
    for (const Interval& i : mapping[t]) {
      // Walk the replica chunks the interval overlaps.
      for (std::uint64_t pos = i.begin; pos < i.end;) {
        const std::uint64_t r = pos / chunk;
        const std::uint64_t chunkEnd = std::min(i.end, (r + 1) * chunk);
        load.elems[t][r] += chunkEnd - pos;
        pos = chunkEnd;
      }
    }
  }
  return load;
}

TileShardLoad tileShardLoadWithCbr(const TileMapping& mapping, unsigned numShards,
                                   std::uint64_t grainSizeElems) {
  const CollectiveBalancedReorder cbr(mapping, numShards, grainSizeElems);
  TileShardLoad load;
  for (std::uint64_t padded : cbr.getNumReplicaElementsPerTile()) {
    load.elems.emplace_back(numShards, padded);
  }
  return load;
}

}  // namespace ipusim::coll
