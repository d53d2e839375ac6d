#include "collectives/algorithms/algorithm_ring.hpp"

#include <algorithm>
#include <stdexcept>

#include "collectives/algorithms/algorithm_table.hpp"

namespace ipusim::coll::detail {
namespace {

/// (a mod n) for a possibly negative a.
std::uint32_t wrap(std::int64_t a, std::uint32_t n) {
  const std::int64_t m = a % static_cast<std::int64_t>(n);
  return static_cast<std::uint32_t>(m < 0 ? m + n : m);
}

void emit_lane(StepEmitter& emitter, const Layout& layout, const Lane& lane, bool reduce,
               std::uint32_t step) {
  const RingSet& set = *lane.rings;
  const std::uint32_t n = set.length;
  const std::int64_t d = lane.direction;
  const std::int64_t owner_shift =
      reduce ? d * (static_cast<std::int64_t>(lane.steps) - step + 1) : -d * (step - 1);
  const std::uint32_t owner_delta = wrap(owner_shift, n);
  const std::uint32_t dst_delta = wrap(d, n);
  const std::uint32_t K = layout.ipus;
  for (std::size_t ring = 0; ring < set.num_rings(); ++ring) {
    const std::size_t base = ring * n;
    for (std::uint32_t u = 0; u < n; ++u) {
      std::uint32_t owner = u + owner_delta;
      if (owner >= n) owner -= n;
      std::uint32_t v = u + dst_delta;
      if (v >= n) v -= n;
      const std::uint32_t src_ipu0 = set.replica[base + u] * K;
      const std::uint32_t dst_ipu0 = set.replica[base + v] * K;
      for (const CellRun* run = set.runs_begin(base + owner); run != set.runs_end(base + owner);
           ++run) {
        const std::uint64_t elems = run->count * layout.atom_elems;
        for (std::uint32_t j = 0; j < K; ++j) {
          for (std::uint32_t p = lane.part_begin; p < lane.part_begin + lane.part_count; ++p) {
            const std::uint64_t off = layout.offset(j, p, run->first);
            emitter.add(src_ipu0 + j, dst_ipu0 + j, off, off, elems);
          }
        }
      }
    }
  }
}

/// True when, in every ring, all members own fragments of the same shape (the same sequence
/// of run lengths): then a lane's step moves the same (src, dst, bytes) sequence whichever
/// member's fragment each slot forwards, i.e. every step of a ring phase has the same traffic.
bool uniform_fragments(const RingSet& set) {
  const std::uint32_t n = set.length;
  for (std::size_t ring = 0; ring < set.num_rings(); ++ring) {
    const std::size_t first = ring * n;
    const auto runs0 = set.run_begin[first + 1] - set.run_begin[first];
    for (std::size_t slot = first + 1; slot < first + n; ++slot) {
      if (set.run_begin[slot + 1] - set.run_begin[slot] != runs0) return false;
      for (std::uint32_t i = 0; i < runs0; ++i) {
        if (set.runs_begin(slot)[i].count != set.runs_begin(first)[i].count) return false;
      }
    }
  }
  return true;
}

}  // namespace

std::uint32_t parts_of(Algorithm algorithm) { return algorithm_info(algorithm).parts; }

std::vector<Lane> ring_lanes(Algorithm algorithm, const RingSet& primary, const RingSet* mirrored,
                             std::uint32_t layout_parts) {
  const AlgorithmInfo& info = algorithm_info(algorithm);
  if (info.kind != AlgorithmKind::Ring)
    throw std::logic_error("not a ring method: " + to_string(algorithm));
  const std::uint32_t span = layout_parts / info.parts;  // layout parts per lane
  std::vector<Lane> lanes;
  for (const LaneSpec& l : info.lanes) {
    const RingSet* rings = l.ring == LaneRing::Mirrored ? mirrored : &primary;
    if (rings == nullptr) throw std::logic_error(to_string(algorithm) + " needs a mirrored ring");
    lanes.push_back({rings, l.direction, l.part * span, span, lane_hops(l.hops, primary.length)});
  }
  return lanes;
}

void emit_ring_phase(StepEmitter& emitter, const Layout& layout, const std::vector<Lane>& lanes,
                     bool reduce, const std::string& phase) {
  std::uint32_t steps = 0;
  bool uniform = true;
  for (const auto& lane : lanes) {
    steps = std::max(steps, lane.steps);
    uniform = uniform && uniform_fragments(*lane.rings);
  }
  for (std::uint32_t s = 1; s <= steps; ++s) {
    // Step s moves step s - 1's traffic when the same lanes run (no lane ended at s - 1) and
    // every ring's fragments have one shape (see uniform_fragments).
    bool same_lanes = s > 1;
    for (const auto& lane : lanes) same_lanes = same_lanes && lane.steps != s - 1;
    const bool same_traffic = uniform && same_lanes;
    if (same_traffic && emitter.elides_repeats()) {
      emitter.repeat();
      continue;
    }
    // Each step's owner map is a bijection per ring, so a lane moves every fragment once.
    std::size_t expected = 0;
    for (const auto& lane : lanes) {
      if (s <= lane.steps) expected += lane.rings->runs.size() * layout.ipus * lane.part_count;
    }
    emitter.begin(phase, reduce, expected, same_traffic);
    for (const auto& lane : lanes) {
      if (s <= lane.steps) emit_lane(emitter, layout, lane, reduce, s);
    }
    emitter.end();
  }
}

}  // namespace ipusim::coll::detail
