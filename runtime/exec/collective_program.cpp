#include "runtime/exec/collective_program.hpp"

#include <algorithm>

#include "models/ipu/exchange.hpp"
#include "models/ipu/popops_vertices.hpp"

namespace ipusim {
namespace {

std::uint64_t ceil_div_u(std::uint64_t a, std::uint64_t b) { return b == 0 ? a : (a + b - 1) / b; }

/// allReduceReorder's minTileBytesPerFragment: a tile takes at least 128 B of a fragment.
constexpr std::uint64_t kMinTileBytesPerFragment = 128;
/// Bytes of the ring index (UNSIGNED_INT).
constexpr std::uint64_t kIndexBytes = 4;

/// An exchange phase whose busiest tile sends `sent` and receives `received` bytes (`shared`:
/// the receivers of a supertile get the same data), its destinations spread over the chip.
std::uint64_t exchange_cycles(const ChipParams& chip, std::uint64_t sent, std::uint64_t received,
                              bool shared) {
  const ExchangeRates rates = ExchangeRates::from(chip);
  return exchange_phase_cycles(rates, tile_exchange_cycles(rates, sent, received, shared), -1);
}

}  // namespace

std::uint64_t CollectiveFragment::elems_per_tile() const {
  const std::uint64_t spread = ceil_div_u(elems, std::max<std::uint32_t>(1, tiles));
  const std::uint64_t grain = ceil_div_u(kMinTileBytesPerFragment, std::max(1u, elem_bytes));
  return std::min(elems, std::max(spread, grain));
}

CollectiveProgramCount collective_step_program(bool reduce, bool first_of_phase, bool own_output,
                                               const CollectiveFragment& fragment) {
  const bool sliceable =
      (!reduce && own_output) || fragment.elems_per_tile() <= kSliceableMaxElemsPerTile;
  CollectiveProgramCount c;
  // Every step: mapInPlace (index + 1) before its CrossReplicaCopy.
  c.index_ops = 1;
  if (reduce) {
    // After it: the next fragment sliced into the send buffer (dynamicSlice + Copy, or a Switch
    // of Copies); the addInPlace is the step's reduction.
    if (sliceable) {
      c.slices = 1;
    } else {
      c.switches = 1;
    }
    c.copies = 1;
  } else {
    // After it: Copy (received -> send buffer), then the fragment written into the output
    // (dynamicUpdate, or a Switch of Copies).
    c.copies = 1;
    if (sliceable) {
      c.slices = 1;
    } else {
      c.switches = 1;
      c.copies += 1;
    }
  }
  if (first_of_phase) {
    // Prologue: map (ring index from the replica index) and the first slice / update; an
    // all-gather first copies its own fragment into the send buffer. A sliceable tensor is
    // filled from the input (reduce-scatter) or copied out to the output at the end (an
    // all-gather into a given output).
    c.index_ops += 1;
    if (!reduce) c.copies += 1;
    if (sliceable) {
      c.slices += 1;
      if (reduce) c.copies += 1;  // dynamicSlice's result to the send buffer
      if (reduce || !own_output) c.input_copies += 1;
    } else {
      c.switches += 1;
      c.copies += 1;
    }
  }
  return c;
}

std::uint64_t collective_program_cycles(const ChipParams& chip, const CollectiveProgramCount& count,
                                        const CollectiveFragment& fragment) {
  const std::uint64_t sync = chip.sync_internal_cycles;
  const std::uint64_t per_tile_bytes = fragment.elems_per_tile() * fragment.elem_bytes;
  const std::uint64_t input_bytes_per_tile = ceil_div_u(fragment.input_elems * fragment.elem_bytes,
                                                        std::max<std::uint32_t>(1, fragment.tiles));
  // The index (4 B) from its tile to the tiles of the fragment (one sender, shared receive).
  const std::uint64_t index_broadcast = exchange_cycles(chip, kIndexBytes, kIndexBytes, true);
  // map / mapInPlace: the ring index (one UNSIGNED_INT) updated in place on its tile, one
  // BinaryOp1DInPlace (ASSUMPTION: popops maps the index's expression to one such vertex).
  const std::uint64_t index_op = sync + add_in_place_tile_cycles(chip, 1, kIndexBytes, true);
  // dynamicSlice / dynamicUpdate: the index comes over the exchange, then each tile copies its
  // elements of the fragment (DynamicSlice1D / DynamicUpdateSlice1D, one region).
  const std::uint64_t slice =
      sync + index_broadcast +
      dynamic_slice_tile_cycles(chip, fragment.elems_per_tile(), fragment.elem_bytes);
  const std::uint64_t swtch = sync + index_broadcast;
  const std::uint64_t copy = sync + exchange_cycles(chip, per_tile_bytes, per_tile_bytes, false);
  const std::uint64_t input_copy =
      sync + exchange_cycles(chip, input_bytes_per_tile, input_bytes_per_tile, false);
  return count.index_ops * index_op + count.slices * slice + count.switches * swtch +
         count.copies * copy + count.input_copies * input_copy;
}

}  // namespace ipusim
