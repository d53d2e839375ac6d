#include "collectives/algorithms/algorithm_direct.hpp"

namespace ipusim::coll::detail {
namespace {

/// Adds one transfer per (ipu, part, run) of a fragment from replica `src` to `dst`.
void send_runs(StepEmitter& emitter, const Layout& layout, std::uint32_t src, std::uint32_t dst,
               const CellRun* begin, const CellRun* end) {
  for (const CellRun* run = begin; run != end; ++run) {
    for (std::uint32_t j = 0; j < layout.ipus; ++j) {
      for (std::uint32_t p = 0; p < layout.parts; ++p) {
        const std::uint64_t off = layout.offset(j, p, run->first);
        emitter.add(src * layout.ipus + j, dst * layout.ipus + j, off, off,
                    run->count * layout.atom_elems);
      }
    }
  }
}

std::size_t pieces(const Layout& layout) {
  return static_cast<std::size_t>(layout.ipus) * layout.parts;
}

}  // namespace

namespace {

/// One all-to-all step: every member sends every other member a set of fragments — the
/// receiver's own fragments for a reduce-scatter (combined on arrival), the sender's own
/// fragments for an all-gather (copied).
void emit_direct_step(StepEmitter& emitter, const Layout& layout, const RingSet& rings,
                      const std::string& phase, bool reduce) {
  const std::uint32_t n = rings.length;
  emitter.begin(phase, reduce, rings.runs.size() * (n - 1) * pieces(layout));
  for (std::size_t ring = 0; ring < rings.num_rings(); ++ring) {
    const std::size_t base = ring * n;
    for (std::uint32_t u = 0; u < n; ++u) {
      for (std::uint32_t v = 0; v < n; ++v) {
        if (u == v) continue;
        const std::size_t owner = base + (reduce ? v : u);
        send_runs(emitter, layout, rings.replica[base + u], rings.replica[base + v],
                  rings.runs_begin(owner), rings.runs_end(owner));
      }
    }
  }
  emitter.end();
}

}  // namespace

void emit_direct_reduce_scatter(StepEmitter& emitter, const Layout& layout, const RingSet& rings,
                                const std::string& phase) {
  emit_direct_step(emitter, layout, rings, phase, true);
}

void emit_direct_all_gather(StepEmitter& emitter, const Layout& layout, const RingSet& rings,
                            const std::string& phase) {
  emit_direct_step(emitter, layout, rings, phase, false);
}

void emit_direct_broadcast(StepEmitter& emitter, const Layout& layout, const RingSet& rings,
                           const std::vector<std::uint32_t>& root_slot_per_ring, bool scatter,
                           const std::string& phase) {
  const std::uint32_t n = rings.length;
  const CellRun whole{0, layout.cells};
  emitter.begin(phase, false, rings.num_rings() * n * pieces(layout));
  for (std::size_t ring = 0; ring < rings.num_rings(); ++ring) {
    const std::size_t base = ring * n;
    const std::uint32_t root = root_slot_per_ring[ring];
    for (std::uint32_t v = 0; v < n; ++v) {
      if (v == root) continue;
      if (scatter) {
        send_runs(emitter, layout, rings.replica[base + root], rings.replica[base + v],
                  rings.runs_begin(base + v), rings.runs_end(base + v));
      } else {
        send_runs(emitter, layout, rings.replica[base + root], rings.replica[base + v], &whole,
                  &whole + 1);
      }
    }
  }
  emitter.end();
}

void emit_direct_all_to_all(StepEmitter& emitter, const Layout& layout,
                            const std::vector<std::vector<std::uint32_t>>& groups,
                            const std::string& phase) {
  const std::size_t k = groups.empty() ? 0 : groups.front().size();
  emitter.begin(phase, false, groups.size() * k * (k - 1) * layout.ipus);
  for (const auto& group : groups) {
    for (std::uint32_t i = 0; i < k; ++i) {
      for (std::uint32_t j = 0; j < k; ++j) {
        if (i == j) continue;  // a replica's own block stays in place
        for (std::uint32_t ipu = 0; ipu < layout.ipus; ++ipu) {
          emitter.add(group[i] * layout.ipus + ipu, group[j] * layout.ipus + ipu,
                      layout.offset(ipu, 0, j), layout.offset(ipu, 0, i), layout.atom_elems);
        }
      }
    }
  }
  emitter.end();
}

}  // namespace ipusim::coll::detail
