#include "collectives/algorithms/algorithm_emit.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ipusim::coll::detail {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

/// Appends the segments of one cell: piece i = j*P + p covers cell-relative
/// [i*atom, (i+1)*atom), clipped to the cell and to the logical extent.
void add_cell_segments(BufferMap& map, const Layout& layout, std::uint64_t cell_elems,
                       std::uint64_t logical_base, std::uint64_t logical_elems,
                       std::uint64_t cell_index) {
  const std::uint64_t pieces = static_cast<std::uint64_t>(layout.ipus) * layout.parts;
  for (std::uint64_t i = 0; i < pieces; ++i) {
    const std::uint64_t begin = i * layout.atom_elems;
    if (begin >= cell_elems || logical_base + begin >= logical_elems) break;
    const std::uint64_t end =
        std::min({begin + layout.atom_elems, cell_elems, logical_elems - logical_base});
    const auto j = static_cast<std::uint32_t>(i / layout.parts);
    const auto p = static_cast<std::uint32_t>(i % layout.parts);
    map.segments.push_back({logical_base + begin, layout.offset(j, p, cell_index), end - begin});
  }
}

}  // namespace

Layout make_layout(std::uint32_t ipus, std::uint32_t parts, std::uint32_t cells,
                   std::uint64_t cell_elems) {
  Layout layout{ipus, parts, cells, ceil_div(cell_elems, static_cast<std::uint64_t>(ipus) * parts)};
  // Offsets are stored as u32 in Transfer (compactness); refuse layouts that cannot fit.
  if (layout.working_elems() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("collective working buffer of " +
                            std::to_string(layout.working_elems()) +
                            " elements per replica exceeds 2^32 - 1");
  }
  return layout;
}

BufferMap map_all_cells(const Layout& layout, std::uint64_t cell_elems,
                        std::uint64_t logical_elems) {
  BufferMap map;
  map.logical_elems = logical_elems;
  for (std::uint32_t x = 0; x < layout.cells; ++x) {
    add_cell_segments(map, layout, cell_elems, x * cell_elems, logical_elems, x);
  }
  return map;
}

BufferMap map_rank_cell(const Layout& layout, std::uint64_t cell_elems, std::uint64_t logical_elems,
                        const std::vector<std::uint32_t>& rank_of) {
  BufferMap map;
  map.logical_elems = std::min(cell_elems, logical_elems);
  add_cell_segments(map, layout, cell_elems, 0, logical_elems, 0);
  map.replica_shift_elems.resize(rank_of.size(), 0);
  for (std::size_t r = 0; r < rank_of.size(); ++r) {
    // Replicas outside every group keep shift 0; the functional executor never reads them.
    if (rank_of[r] != std::numeric_limits<std::uint32_t>::max()) {
      map.replica_shift_elems[r] = layout.offset(0, 0, rank_of[r]);
    }
  }
  return map;
}

void set_buffer_maps(Schedule& schedule, const Layout& layout, std::uint64_t cell_elems,
                     const std::vector<std::uint32_t>& rank_of) {
  const std::uint64_t n = schedule.elements_per_replica;
  const std::uint64_t k = schedule.group_size;
  schedule.working_elems = layout.working_elems();
  switch (schedule.op) {
    case CollectiveOp::ReduceScatter:
      schedule.input_map = map_all_cells(layout, cell_elems, n);
      schedule.output_map = map_rank_cell(layout, cell_elems, cell_elems, rank_of);
      schedule.output_elems = cell_elems;
      break;
    case CollectiveOp::AllGather:
      schedule.input_map = map_rank_cell(layout, cell_elems, n, rank_of);
      schedule.output_map = map_all_cells(layout, cell_elems, k * n);
      schedule.output_elems = k * n;
      break;
    default:  // AllReduce, AllToAll, Broadcast: same shape in and out
      schedule.input_map = map_all_cells(layout, cell_elems, n);
      schedule.output_map = schedule.input_map;
      schedule.output_elems = n;
      break;
  }
}

std::vector<CellRun> runs_of(std::vector<std::uint32_t> cells) {
  std::sort(cells.begin(), cells.end());
  std::vector<CellRun> runs;
  for (auto c : cells) {
    if (!runs.empty() && runs.back().first + runs.back().count == c) {
      ++runs.back().count;
    } else {
      runs.push_back({c, 1});
    }
  }
  return runs;
}

RingSet make_ring_set(const std::vector<std::vector<RingMember>>& rings_by_position,
                      RingPattern pattern) {
  RingSet set;
  if (rings_by_position.empty()) return set;
  set.length = static_cast<std::uint32_t>(rings_by_position.front().size());
  const auto order = ring_pattern(set.length, pattern);
  const std::size_t slots = rings_by_position.size() * set.length;
  set.replica.reserve(slots);
  set.run_begin.reserve(slots + 1);
  set.run_begin.push_back(0);
  std::size_t runs = 0;  // reserved: on 16,384 replicas the runs take tens of MB
  for (const auto& ring : rings_by_position)
    for (const auto& member : ring) runs += member.fragment.size();
  set.runs.reserve(runs);
  for (const auto& ring : rings_by_position) {
    for (auto idx : order) {
      const auto& member = ring[idx];
      set.replica.push_back(member.replica);
      set.runs.insert(set.runs.end(), member.fragment.begin(), member.fragment.end());
      set.run_begin.push_back(static_cast<std::uint32_t>(set.runs.size()));
    }
  }
  return set;
}

std::vector<std::uint32_t> find_slots(const RingSet& rings,
                                      const std::vector<std::uint32_t>& replica_per_ring) {
  std::vector<std::uint32_t> slots(replica_per_ring.size(), 0);
  for (std::size_t ring = 0; ring < replica_per_ring.size(); ++ring) {
    for (std::uint32_t u = 0; u < rings.length; ++u) {
      if (rings.replica[ring * rings.length + u] == replica_per_ring[ring]) slots[ring] = u;
    }
  }
  return slots;
}

StepEmitter::StepEmitter(Schedule& schedule, const StepSink* sink, std::uint32_t num_ipus,
                         bool elide_repeats, std::vector<Transfer>* buffer)
    : schedule_(schedule),
      sink_(sink),
      elem_bytes_(dtype_bytes(schedule.dtype)),
      elide_repeats_(elide_repeats && sink != nullptr),
      buffer_(sink != nullptr ? buffer : nullptr),
      received_bytes_(num_ipus, 0) {
  // Streamed steps live in current_ only during the sink's call: the caller's buffer can hold
  // them (stored steps are moved out of current_, so they cannot borrow it).
  if (buffer_ != nullptr) {
    current_.transfers.swap(*buffer_);
    current_.transfers.clear();
  }
}

StepEmitter::~StepEmitter() {
  if (buffer_ != nullptr) buffer_->swap(current_.transfers);
}

void StepEmitter::begin(const std::string& phase, bool reduce, std::size_t expected_transfers,
                        bool same_traffic) {
  current_.transfers.clear();
  current_.transfers.reserve(expected_transfers);
  current_.phase = phase;
  current_.reduce = reduce;
  current_.max_reduce_elems_per_ipu = 0;
  current_.same_traffic_as_previous = same_traffic;
  current_.elided_transfers = 0;
}

void StepEmitter::repeat() {
  if (!elide_repeats_) throw std::logic_error("StepEmitter::repeat() without elide_repeats");
  if (last_transfers_ == 0) return;  // the step it repeats was empty, and dropped
  // current_ still holds the previous step's phase, reduce flag and reduce size (same traffic,
  // same receivers: the same busiest IPU).
  current_.transfers.clear();
  current_.same_traffic_as_previous = true;
  current_.elided_transfers = last_transfers_;
  ++schedule_.num_steps;
  schedule_.num_transfers += last_transfers_;
  (*sink_)(current_);
}

void StepEmitter::end() {
  last_transfers_ = current_.transfers.size();
  if (current_.transfers.empty()) return;
  if (current_.reduce) {
    // Every received element is combined on the receiving IPU; the busiest IPU sets the
    // step's compute time. Two passes over a per-IPU scratch avoid any allocation.
    // Bytes are summed and divided once (a division per transfer shows up at 33 M).
    std::uint64_t most = 0;
    for (const auto& t : current_.transfers) {
      most = std::max(most, received_bytes_[t.dst_ipu] += t.bytes);
    }
    for (const auto& t : current_.transfers) received_bytes_[t.dst_ipu] = 0;
    current_.max_reduce_elems_per_ipu = most / elem_bytes_;
  }
  ++schedule_.num_steps;
  schedule_.num_transfers += current_.transfers.size();
  if (sink_ != nullptr) {
    (*sink_)(current_);
  } else {
    schedule_.steps.push_back(std::move(current_));
    current_ = Superstep{};
  }
}

}  // namespace ipusim::coll::detail
