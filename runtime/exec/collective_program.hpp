#pragma once
// The on-chip program around each cross-replica superstep of an in-graph collective.
//
// Poplar builds a replicated collective as a program (poplibs, lib/popops/
// ReplicatedCollectives.cpp and CollectivesProgram.hpp, the code GCL split out of): per ring
// phase (reduce-scatter or all-gather) a prologue, then a Repeat whose body is one
// CrossReplicaCopy plus on-chip work:
//
//   reduce-scatter  prologue: [Copy into a sliceable tensor], map (ring index), slice
//                   per step: mapInPlace (index + 1), CrossReplicaCopy, slice, addInPlace
//   all-gather      prologue: map (ring index), Copy (first fragment), update
//                   per step: mapInPlace (index + 1), CrossReplicaCopy, Copy, update
//                   [epilogue: Copy out of the sliceable tensor]
//
// "slice" / "update" are a popops dynamicSlice + Copy / dynamicUpdate when the fragment is
// small (createSliceableTensorIfBenefical: at most 96 elements of a fragment on a tile; the
// bracketed copies exist only then, and an all-gather that lays out its own output always
// slices this way), otherwise a Switch on the index whose cases are Copies.
//
// What each part costs is what a small popops program costs on the IPU, from parameters sourced
// or fitted elsewhere (no new parameter, and not the training op overhead, which stands for a
// training op's several large compute sets):
//   - a compute set (map, mapInPlace on the index's tile; dynamicSlice / dynamicUpdate on the
//     fragment's tiles) is one BSP superstep: /chip/sync_internal_cycles, then one popops vertex
//     per tile at the cycles of poplibs' estimator for it (models/ipu/popops_vertices.hpp: the
//     index's add in place, a one-region dynamic slice of the tile's elements);
//   - an operand not on the tile that uses it comes over an exchange phase of the same
//     superstep: /chip/exchange_fixed_cycles plus the busiest tile's bytes (or the farthest
//     word's flight) by the on-chip exchange model (models/ipu/exchange.hpp); the index (4 B)
//     of a dynamicSlice / dynamicUpdate / Switch reaches the fragment's tiles so;
//   - a Copy is an exchange-only superstep: sync + exchange of the fragment's bytes per tile;
//   - a Switch branches on every tile, so its index is broadcast first (an exchange-only
//     superstep; ASSUMPTION: Poplar does not fold it into the preceding exchange).
// The addInPlace is the step's reduction vertex (timed already by the collective player, by
// its estimator) and shares the superstep of the Copy that brings its operand.
#include <cstdint>

#include "models/params/hw_params.hpp"

namespace ipusim {

/// What one cross-replica superstep runs around its CrossReplicaCopy, part by part.
struct CollectiveProgramCount {
  std::uint64_t index_ops = 0;     ///< map / mapInPlace of the ring index on its tile
  std::uint64_t slices = 0;        ///< dynamicSlice / dynamicUpdate over the fragment's tiles
  std::uint64_t switches = 0;      ///< Switch on the index (its broadcast)
  std::uint64_t copies = 0;        ///< on-chip Copy of one fragment
  std::uint64_t input_copies = 0;  ///< Copy of the whole input into / out of a sliceable tensor
};

/// The fragment a superstep moves and where it lies.
struct CollectiveFragment {
  std::uint64_t elems = 0;        ///< elements of one fragment (the step's largest transfer)
  std::uint64_t input_elems = 0;  ///< elements of a replica's whole input
  std::uint32_t elem_bytes = 4;   ///< bytes of one element
  std::uint32_t tiles = 1;        ///< tiles of an IPU
  /// Elements of the fragment on its busiest tile: spread over the tiles (ASSUMPTION: over all
  /// of them, poputil::mapTensorLinearly over the tiles the data is on), but at least 128 B
  /// (allReduceReorder's minTileBytesPerFragment) and at most the fragment.
  std::uint64_t elems_per_tile() const;
};

/// Largest number of a fragment's elements on one tile for which popops slices the fragments
/// with dynamicSlice / dynamicUpdate rather than a Switch of Copies (poplibs
/// createSliceableTensorIfBenefical: bytesPerCase 3 x 4 x expectedNumCollectiveCalls 8 = 96
/// bytes of switch code per case against one element per case of the sliceable copy).
inline constexpr std::uint64_t kSliceableMaxElemsPerTile = 96;

/// The program of one cross-replica superstep: `reduce` (a reduce-scatter step, else an
/// all-gather step), `first_of_phase` (the phase's prologue, and an all-gather's epilogue, are
/// charged with it), `own_output` (an all-gather that lays out its own output: always dynamic
/// updates, no copy out) and the fragment moved.
CollectiveProgramCount collective_step_program(bool reduce, bool first_of_phase, bool own_output,
                                               const CollectiveFragment& fragment);

/// Cycles of `count` on `chip` for `fragment`, each part as the header says.
std::uint64_t collective_program_cycles(const ChipParams& chip, const CollectiveProgramCount& count,
                                        const CollectiveFragment& fragment);

}  // namespace ipusim
