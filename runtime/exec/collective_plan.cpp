#include "runtime/exec/collective_plan.hpp"

#include "models/system/system.hpp"
#include "runtime/exec/collective_player.hpp"

namespace ipusim {

std::shared_ptr<const CompactFoldedBatch> compact_folding(const FoldedBatch& folded,
                                                          const std::vector<const Route*>& routes,
                                                          const std::vector<std::uint64_t>& bytes) {
  auto out = std::make_shared<CompactFoldedBatch>();
  for (std::uint32_t c : folded.class_of) {
    if (c == kNoClass) return nullptr;
  }
  out->folded.classes = folded.classes;
  out->routes.reserve(folded.classes.size());
  out->bytes.reserve(folded.classes.size());
  for (std::size_t i = 0; i < folded.classes.size(); ++i) {
    FoldedClass& c = out->folded.classes[i];
    out->routes.push_back(routes[c.first]);
    out->bytes.push_back(bytes[c.first]);
    out->flows += c.count;
    c.first = static_cast<std::uint32_t>(i);
    out->folded.class_of.push_back(static_cast<std::uint32_t>(i));
  }
  return out;
}

bool sizes_relabel_one_to_one(const std::vector<std::uint64_t>& a,
                              const std::vector<std::uint64_t>& b) {
  if (a.size() != b.size()) return false;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> map;  // few sizes: a short list
  for (std::size_t i = 0; i < a.size(); ++i) {
    bool found = false;
    for (const auto& [x, y] : map) {
      if (x == a[i] || y == b[i]) {
        if (x != a[i] || y != b[i]) return false;
        found = true;
        break;
      }
    }
    if (!found) {
      if (map.size() >= 64) return false;
      map.emplace_back(a[i], b[i]);
    }
  }
  return true;
}

bool sizes_relabel_one_to_one(const RunLengthVector<std::uint64_t>& a,
                              const std::vector<std::uint64_t>& b) {
  if (a.size != b.size()) return false;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> map;  // as above
  std::size_t k = 0;
  for (const auto& [x, n] : a.runs) {
    // The run's partner size: the one map entry for x, or b's first element of the run.
    const std::uint64_t y = b[k];
    bool found = false;
    for (const auto& [mx, my] : map) {
      if (mx == x || my == y) {
        if (mx != x || my != y) return false;
        found = true;
        break;
      }
    }
    if (!found) {
      if (map.size() >= 64) return false;
      map.emplace_back(x, y);
    }
    // Every element of the run is x, so maps to y only if b holds y all along it.
    for (std::uint32_t j = 0; j < n; ++j, ++k)
      if (b[k] != y) return false;
  }
  return true;
}

void CollectivePlans::flush_syncs(System& system) {
  for (auto& [key, plan] : plans_) {
    record_collective_syncs(system, plan.ipus, plan.pending_syncs, plan.pending_gw_syncs);
    plan.pending_syncs = 0;
    plan.pending_gw_syncs = 0;
  }
}

}  // namespace ipusim
