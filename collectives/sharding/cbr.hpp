#pragma once
// CollectiveBalancedReorder (CBR): the layout RTS uses so that every replica's shard is
// spread evenly over the tiles that hold the reference tensor (popart collectivesx.cpp at
// bb993085, the last open-source version; GCL has owned it since SDK 2.0). Plus the host
// side (CollectiveBalancedHostRearrangement) and per-tile exchange loads for costing.
//
// Layout for replication factor R and grain g (grain 1 = the public algorithm; grain > 1
// is an [inferred] extension and implementation-defined):
//   n_i = elements on tile i, P_i = ceil(n_i / (R*g)) * g, S = sum_i P_i;
//   the tile's sorted contiguous regions are split with splitRegions(regions, g, R) and
//   partition r lands in replica r's slice at offset base_i = sum_{j<i} P_j;
//   replica r's slice is gathered positions [r*S, (r+1)*S); the rest of a P_i block is padding.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

#include "collectives/sharding/split_regions.hpp"

namespace ipusim::coll {

/// Per tile, the reference-tensor element intervals [begin, end) the tile holds.
using TileMapping = std::vector<std::vector<Interval>>;

/// Invalid CBR input: a mapping that does not cover [0, n) exactly once, R or grain 0.
class CbrError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Checks that the mapping's intervals tile [0, n) with no gap or overlap; returns n.
std::uint64_t checkTileMapping(const TileMapping& mapping);

/// Host-side CBR: copies between the reference order and the gathered (R x S) order.
struct CollectiveBalancedHostRearrangement {
  unsigned replicationFactor = 0;             ///< shards (the sharding group size)
  std::uint64_t totalElementsPerReplica = 0;  ///< S, padded shard length
  std::vector<Interval> gatheredToRefSlices;  ///< gathered intervals in reference order

  /// Reference -> gathered; zeroes `out` first so padding is exactly zero. `out` holds
  /// getNumRearrangedTensorElems() elements, `in` getNumReferenceElems().
  void rearrangeForCollective(const void* in, void* out, std::size_t elemBytes) const;
  /// Gathered -> reference; padding is dropped.
  void undoRearrangeForCollective(const void* in, void* out, std::size_t elemBytes) const;
  /// GCL's raw routine: copies real elements only and never touches padding.
  void rearrange(const void* in, void* out, std::size_t elemBytes, bool refToGathered) const;
  /// R * S.
  std::uint64_t getNumRearrangedTensorElems() const;
  /// n, the number of real (reference) elements.
  std::uint64_t getNumReferenceElems() const;

  /// Typed convenience for rearrangeForCollective; `ref` must hold n elements.
  template <typename T>
  std::vector<T> rearrangeForCollective(const std::vector<T>& ref) const {
    checkLength(ref.size(), getNumReferenceElems());
    std::vector<T> gathered(getNumRearrangedTensorElems());
    rearrangeForCollective(ref.data(), gathered.data(), sizeof(T));
    return gathered;
  }
  /// Typed convenience for undoRearrangeForCollective; `gathered` must hold R*S elements.
  template <typename T>
  std::vector<T> undoRearrangeForCollective(const std::vector<T>& gathered) const {
    checkLength(gathered.size(), getNumRearrangedTensorElems());
    std::vector<T> ref(getNumReferenceElems());
    undoRearrangeForCollective(gathered.data(), ref.data(), sizeof(T));
    return ref;
  }

 private:
  static void checkLength(std::size_t got, std::uint64_t want);
};

/// The CBR layout of one reference tensor over `replicationFactor` shards.
class CollectiveBalancedReorder {
 public:
  /// Builds the layout; throws CbrError for a bad mapping, R == 0 or grain == 0.
  CollectiveBalancedReorder(const TileMapping& mapping, unsigned replicationFactor,
                            std::uint64_t grainSizeElems = 1);

  /// R, the number of shards.
  unsigned getReplicationFactor() const { return host_.replicationFactor; }
  /// Grain in elements (1 = the public algorithm).
  std::uint64_t getGrainSize() const { return grainElems_; }
  /// n, elements of the reference tensor.
  std::uint64_t getNumReferenceElems() const { return numRefElems_; }
  /// n_i per tile.
  const std::vector<std::uint64_t>& getElementsPerTile() const { return elemsPerTile_; }
  /// P_i per tile: the padded block each replica's slice reserves for tile i.
  const std::vector<std::uint64_t>& getNumReplicaElementsPerTile() const { return paddedPerTile_; }
  /// base_i per tile: where tile i's block starts inside a replica slice.
  const std::vector<std::uint64_t>& getTileOffsetsInReplicaSlice() const { return tileOffsets_; }
  /// S = sum of P_i, the per-replica shard length (>= ceil(n / R)).
  std::uint64_t getTotalElementsPerReplica() const { return host_.totalElementsPerReplica; }
  /// R * S, the length of the gathered (collectives) tensor.
  std::uint64_t getNumRearrangedTensorElems() const;
  /// Gathered intervals in reference order; concatenating them rebuilds the reference.
  const std::vector<Interval>& getGatheredToRefSlices() const { return host_.gatheredToRefSlices; }
  /// The host-side rearrangement (serialisable state only).
  const CollectiveBalancedHostRearrangement& getHostRearrangement() const { return host_; }

  /// Replica `replica`'s S shard positions: the reference index held there, or nullopt
  /// for padding.
  std::vector<std::optional<std::uint64_t>> getReplicaShard(unsigned replica) const;
  /// Real (non-padding) elements of replica `replica`'s shard.
  std::uint64_t getNumRealElemsOnReplica(unsigned replica) const;
  /// Real elements tile i places in replica r's shard, as [tile][replica] (<= P_i each).
  const std::vector<std::vector<std::uint64_t>>& getRealElemsPerTilePerReplica() const {
    return realPerTilePerReplica_;
  }

 private:
  std::uint64_t grainElems_;
  std::uint64_t numRefElems_ = 0;
  std::vector<std::uint64_t> elemsPerTile_;
  std::vector<std::uint64_t> paddedPerTile_;
  std::vector<std::uint64_t> tileOffsets_;
  std::vector<std::vector<std::uint64_t>> realPerTilePerReplica_;
  CollectiveBalancedHostRearrangement host_;
};

/// Elements each tile sends for each replica's shard in a sharded collective (AllGather
/// input / ReduceScatter output), for costing the per-tile exchange.
struct TileShardLoad {
  std::vector<std::vector<std::uint64_t>> elems;  ///< [tile][replica]

  /// Largest single tile contribution to one shard: bounds the exchange time of one
  /// collective step, since the tiles of an IPU exchange in parallel.
  std::uint64_t maxElemsPerTilePerReplica() const;
  /// Largest per-tile total over all shards.
  std::uint64_t maxElemsPerTile() const;
};

/// Without CBR: the flattened tensor is split contiguously, replica r owning
/// [r*ceil(n/k), (r+1)*ceil(n/k)) (end padding lives on no tile, so it is not counted).
TileShardLoad tileShardLoadWithoutCbr(const TileMapping& mapping, unsigned numShards);

/// With CBR: every tile contributes its padded block P_i to every replica's shard.
TileShardLoad tileShardLoadWithCbr(const TileMapping& mapping, unsigned numShards,
                                   std::uint64_t grainSizeElems = 1);

}  // namespace ipusim::coll
