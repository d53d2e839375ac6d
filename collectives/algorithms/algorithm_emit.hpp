#pragma once
// Building blocks shared by the algorithm families: the working-buffer layout, ring sets
// (rings of equal length whose members own fragments of cells) and the step emitter.
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/schedule/ring_order.hpp"
#include "collectives/schedule/schedule.hpp"

namespace ipusim::coll::detail {

/// Working-buffer geometry [ipu j][part p][cell][atom] (see algorithm.hpp).
struct Layout {
  std::uint32_t ipus = 1;        ///< K
  std::uint32_t parts = 1;       ///< P: direction parts
  std::uint32_t cells = 1;       ///< cells per replica
  std::uint64_t atom_elems = 0;  ///< elements of one (ipu, part) piece of a cell

  /// Element offset of piece (j, p) of `cell`.
  std::uint64_t offset(std::uint32_t j, std::uint32_t p, std::uint64_t cell) const {
    return ((static_cast<std::uint64_t>(j) * parts + p) * cells + cell) * atom_elems;
  }
  /// Elements in one replica's working buffer.
  std::uint64_t working_elems() const {
    return static_cast<std::uint64_t>(ipus) * parts * cells * atom_elems;
  }
};

/// Layout for `cells` cells of `cell_elems` logical elements split over K IPUs and P parts.
Layout make_layout(std::uint32_t ipus, std::uint32_t parts, std::uint32_t cells,
                   std::uint64_t cell_elems);

/// Map of logical elements [0, logical_elems) cut into cells of `cell_elems` (cell x at x).
BufferMap map_all_cells(const Layout& layout, std::uint64_t cell_elems,
                        std::uint64_t logical_elems);

/// Map of one cell's logical elements [0, min(cell_elems, logical_elems)) placed at the cell
/// whose index is the replica's group rank (per-replica shift).
BufferMap map_rank_cell(const Layout& layout, std::uint64_t cell_elems, std::uint64_t logical_elems,
                        const std::vector<std::uint32_t>& rank_of);

/// Sets schedule.working_elems, output_elems and the input/output maps for schedule.op, with
/// cells of `cell_elems` logical elements (rank-indexed cells for ReduceScatter output and
/// AllGather input).
void set_buffer_maps(Schedule& schedule, const Layout& layout, std::uint64_t cell_elems,
                     const std::vector<std::uint32_t>& rank_of);

/// A run of consecutive cells (moves as one transfer per ipu/part).
struct CellRun {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
};

/// Sorts cell indices and merges them into maximal runs.
std::vector<CellRun> runs_of(std::vector<std::uint32_t> cells);

/// A ring member before ordering: its replica and the cells of the fragment it owns.
struct RingMember {
  std::uint32_t replica = 0;
  std::vector<CellRun> fragment;
};

/// Rings of equal length, stored flat: slot (ring, ring index) -> replica and fragment.
struct RingSet {
  std::uint32_t length = 0;
  std::vector<std::uint32_t> replica;    ///< [ring * length + index]
  std::vector<std::uint32_t> run_begin;  ///< CSR into runs, one more entry than slots
  std::vector<CellRun> runs;

  /// Number of rings.
  std::size_t num_rings() const { return length == 0 ? 0 : replica.size() / length; }
  /// Fragment runs owned by a slot.
  const CellRun* runs_begin(std::size_t slot) const { return runs.data() + run_begin[slot]; }
  /// End of a slot's fragment runs.
  const CellRun* runs_end(std::size_t slot) const { return runs.data() + run_begin[slot + 1]; }
};

/// Orders each ring's members (given in position order) by `pattern` and packs them.
RingSet make_ring_set(const std::vector<std::vector<RingMember>>& rings_by_position,
                      RingPattern pattern);

/// Slot index, inside each ring, of the replica given for that ring (0 when absent).
std::vector<std::uint32_t> find_slots(const RingSet& rings,
                                      const std::vector<std::uint32_t>& replica_per_ring);

/// Collects supersteps, computing max_reduce_elems_per_ipu, and stores or streams them.
class StepEmitter {
 public:
  /// Steps go to `sink` if it is non-null, else into schedule.steps. `elide_repeats`: a step
  /// that repeats the previous step's traffic may be emitted without transfers (repeat()).
  /// `buffer` (only with a sink): storage for the step's transfers, borrowed until the
  /// emitter is destroyed and handed back with its capacity (generate_schedule's buffer).
  StepEmitter(Schedule& schedule, const StepSink* sink, std::uint32_t num_ipus,
              bool elide_repeats = false, std::vector<Transfer>* buffer = nullptr);
  ~StepEmitter();
  StepEmitter(const StepEmitter&) = delete;
  StepEmitter& operator=(const StepEmitter&) = delete;

  /// Starts a step; `expected_transfers` only reserves memory. `same_traffic`: the caller
  /// guarantees the step's (src, dst, bytes) sequence equals the previous step's.
  void begin(const std::string& phase, bool reduce, std::size_t expected_transfers,
             bool same_traffic = false);
  /// Whether repeat() may stand for a step whose traffic repeats the previous one's.
  bool elides_repeats() const { return elide_repeats_; }
  /// Emits a step of the previous step's phase, reduce flag and traffic without generating
  /// its transfers (only when elides_repeats()): a step marked same_traffic_as_previous, with
  /// the previous step's transfer count and reduce size. Nothing if that step was empty.
  void repeat();
  /// Adds a transfer of `elems` elements (none when zero).
  void add(std::uint32_t src_ipu, std::uint32_t dst_ipu, std::uint64_t src_offset,
           std::uint64_t dst_offset, std::uint64_t elems) {
    if (elems == 0) return;
    current_.transfers.push_back({src_ipu, dst_ipu, elems * elem_bytes_,
                                  static_cast<std::uint32_t>(src_offset),
                                  static_cast<std::uint32_t>(dst_offset)});
  }
  /// Finishes the step (steps without transfers are dropped).
  void end();

 private:
  Schedule& schedule_;
  const StepSink* sink_;
  std::uint32_t elem_bytes_;
  Superstep current_;
  bool elide_repeats_ = false;
  std::vector<Transfer>* buffer_ = nullptr;    ///< whose storage current_.transfers borrows
  std::uint64_t last_transfers_ = 0;           ///< transfers of the last step emitted (0: dropped)
  std::vector<std::uint64_t> received_bytes_;  ///< per IPU scratch for reduce accounting
};

}  // namespace ipusim::coll::detail
