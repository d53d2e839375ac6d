// The on-chip program around a collective's cross-replica copies (runtime/exec/
// collective_program.hpp): the parts counted from poplibs' ring program and their cycles
// worked out by hand on a chip with round numbers.
#include "runtime/exec/collective_program.hpp"

#include <catch2/catch.hpp>

using namespace ipusim;

namespace {

/// 16 tiles in 4 columns (1 cycle per column: the farthest word takes 3 + 1 = 4 cycles), sync
/// 100, exchange fixed 50 at 4 B/cycle (supertiles of 2), 6 workers per tile (the vertices'
/// poplibs estimates, models/ipu/popops_vertices.hpp). The training op overhead is set far off
/// (9999): the program must not pay it.
ChipParams round_chip() {
  ChipParams c = registry_hw_params().chip;
  c.tiles = 16;
  c.exchange_columns = 4;
  c.exchange_cycles_per_column = 1.0;
  c.sync_internal_cycles = 100;
  c.exchange_fixed_cycles = 50;
  c.exchange_bytes_per_cycle_per_tile = 4;
  c.tiles_per_supertile = 2;
  c.worker_threads = 6;
  c.op_overhead_cycles = 9999;
  return c;
}

CollectiveFragment fragment(std::uint64_t elems, std::uint64_t input_elems,
                            std::uint32_t elem_bytes) {
  CollectiveFragment f;
  f.elems = elems;
  f.input_elems = input_elems;
  f.elem_bytes = elem_bytes;
  f.tiles = 16;
  return f;
}

void check_count(const CollectiveProgramCount& c, std::uint64_t index_ops, std::uint64_t slices,
                 std::uint64_t switches, std::uint64_t copies, std::uint64_t input_copies) {
  CHECK(c.index_ops == index_ops);
  CHECK(c.slices == slices);
  CHECK(c.switches == switches);
  CHECK(c.copies == copies);
  CHECK(c.input_copies == input_copies);
}

}  // namespace

TEST_CASE("a fragment lies on at least 128 B of a tile and at most the whole fragment",
          "[collective_program]") {
  // 64 float32 over 16 tiles: 4 each, raised to 128 B = 32 elements.
  CHECK(fragment(64, 128, 4).elems_per_tile() == 32);
  // 3,200 float16: 200 per tile (above the 64-element grain).
  CHECK(fragment(3200, 6400, 2).elems_per_tile() == 200);
  // 10 float32: the whole fragment on one tile.
  CHECK(fragment(10, 20, 4).elems_per_tile() == 10);
}

TEST_CASE("a small all-reduce over 2 replicas: parts and cycles by hand", "[collective_program]") {
  // A replica pair all-reduces 128 float32: one reduce-scatter step and one all-gather step,
  // each the first of its phase; fragments of 64 float32, 32 per tile (<= 96): dynamic slices.
  const CollectiveFragment f = fragment(64, 128, 4);
  const CollectiveProgramCount rs = collective_step_program(true, true, false, f);
  const CollectiveProgramCount ag = collective_step_program(false, true, false, f);
  // Reduce-scatter: Copy into the sliceable tensor, map, dynamicSlice, Copy; step: mapInPlace,
  // dynamicSlice, Copy (the add is the step's reduction vertex).
  check_count(rs, 2, 2, 0, 2, 1);
  // All-gather: map, Copy (first fragment), dynamicUpdate; step: mapInPlace, Copy,
  // dynamicUpdate; Copy out of the sliceable tensor.
  check_count(ag, 2, 2, 0, 2, 1);
  // Parts (cycles):
  //   index op  = sync 100 + the index's add in place (UNSIGNED_INT, 7 cycles an element):
  //               11 + 6 x (58 + 7) = 401                                          -> 501
  //   slice     = sync 100 + index exchange (50 + max(1, flight 4) = 54)
  //               + dynamic slice of 32 floats: 6 per worker, 3 copies of 2:
  //               11 + 14 + 6 x (39 + 24 + 6) = 439                                  -> 593
  //   copy      = sync 100 + exchange 50 + max(128 B / 4 = 32, 4)                    -> 182
  //   input copy= sync 100 + exchange 50 + max(512 B / 16 tiles / 4 = 8, 4)         -> 158
  // Each phase: 2 x 501 + 2 x 593 + 2 x 182 + 158 = 2,710 cycles.
  const ChipParams c = round_chip();
  CHECK(collective_program_cycles(c, rs, f) == 2710);
  CHECK(collective_program_cycles(c, ag, f) == 2710);
  // A later step of the reduce-scatter: mapInPlace, dynamicSlice, Copy = 501 + 593 + 182.
  const CollectiveProgramCount step = collective_step_program(true, false, false, f);
  check_count(step, 1, 1, 0, 1, 0);
  CHECK(collective_program_cycles(c, step, f) == 1276);
}

TEST_CASE("a small op costs its vertex's estimate, not the training op overhead",
          "[collective_program]") {
  const CollectiveFragment f = fragment(64, 128, 4);
  const CollectiveProgramCount rs = collective_step_program(true, true, false, f);
  ChipParams c = round_chip();
  const std::uint64_t base = collective_program_cycles(c, rs, f);
  c.op_overhead_cycles = 1;
  CHECK(collective_program_cycles(c, rs, f) == base);
  // A seventh worker slows the four compute sets' vertices: each index op 11 + 7 x 65 = 466
  // (+65), each slice of 32 floats (5 per worker, 2 copies) 25 + 7 x 67 = 494 (+55).
  c.worker_threads = 7;
  CHECK(collective_program_cycles(c, rs, f) == base + 2 * 65 + 2 * 55);
  // Seven supersteps (4 compute sets, 2 copies, 1 input copy) each pay the internal sync.
  c.sync_internal_cycles += 1;
  CHECK(collective_program_cycles(c, rs, f) == base + 2 * 65 + 2 * 55 + 7);
}

TEST_CASE("large fragments go through a Switch of copies", "[collective_program]") {
  // 3,200 float16 per fragment: 200 per tile (> 96).
  const CollectiveFragment f = fragment(3200, 3200 * 16, 2);
  const ChipParams c = round_chip();
  // Switch = sync 100 + index broadcast 54 = 154; copy of 400 B = 100 + 50 + 100 = 250.
  // Reduce-scatter step: mapInPlace, Switch, Copy: 501 + 154 + 250 = 905.
  const CollectiveProgramCount rs = collective_step_program(true, false, false, f);
  check_count(rs, 1, 0, 1, 1, 0);
  CHECK(collective_program_cycles(c, rs, f) == 905);
  // All-gather step: mapInPlace, Copy, Switch, Copy: 501 + 250 + 154 + 250 = 1,155.
  const CollectiveProgramCount ag = collective_step_program(false, false, false, f);
  check_count(ag, 1, 0, 1, 2, 0);
  CHECK(collective_program_cycles(c, ag, f) == 1155);
  // First all-gather step: + map, the first fragment's Copy, the prologue's Switch and Copy
  // (no sliceable tensor, so no copy out): 1,155 + 501 + 250 + 154 + 250 = 2,310.
  const CollectiveProgramCount first = collective_step_program(false, true, false, f);
  check_count(first, 2, 0, 2, 4, 0);
  CHECK(collective_program_cycles(c, first, f) == 2310);
}

TEST_CASE("an all-gather into its own output always updates dynamically, without a copy out",
          "[collective_program]") {
  const CollectiveFragment f = fragment(3200, 3200, 2);
  // Prologue map + Copy + dynamicUpdate, step mapInPlace + Copy + dynamicUpdate.
  check_count(collective_step_program(false, true, true, f), 2, 2, 0, 2, 0);
  check_count(collective_step_program(false, false, true, f), 1, 1, 0, 1, 0);
}
