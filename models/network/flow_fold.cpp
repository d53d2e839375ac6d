// Folding a symmetric batch onto representatives and the weighted max-min allocation of the
// folded batch; see flow_fold.hpp for why the folded allocation is the full one.
#include "models/network/flow_fold.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace ipusim {

ResourceCells::ResourceCells(const std::vector<std::uint32_t>& candidate,
                             const std::vector<ResourceSpec>& specs) {
  const std::size_t n = std::min(candidate.size(), specs.size());
  cell_of_.assign(n, 0);
  // Refine by spec: a candidate cell whose members differ in capacity, latency, kind or flow
  // control splits (the folded allocation needs equal members). Unset flow control compares as
  // a value of its own.
  constexpr std::uint64_t kUnset = std::numeric_limits<std::uint64_t>::max();
  using Key = std::tuple<std::uint32_t, double, double, int, std::uint64_t, std::uint64_t, int>;
  std::map<Key, std::uint32_t> ids;
  for (ResourceId id = 0; id < n; ++id) {
    const ResourceSpec& s = specs[id];
    const Key key{candidate[id],
                  s.capacity_Bpns,
                  s.latency_ns,
                  static_cast<int>(s.kind),
                  s.chunk_bytes.value_or(kUnset),
                  s.credits_bytes.value_or(kUnset),
                  s.arbitration ? static_cast<int>(*s.arbitration) : -1};
    auto [it, fresh] = ids.emplace(key, static_cast<std::uint32_t>(size_.size()));
    if (fresh) {
      size_.push_back(0);
      rep_.push_back(id);  // ids ascend: the first member is the lowest
    }
    cell_of_[id] = it->second;
    ++size_[it->second];
  }
}

std::optional<FoldedBatch> fold_batch(const ResourceCells& cells,
                                      const std::vector<const Route*>& routes,
                                      const std::vector<std::uint64_t>& bytes) {
  FoldedBatch out;
  out.class_of.assign(routes.size(), kNoClass);
  // Classes: equal bytes and the same cells in route order (route order matters to timing:
  // the first hop pays no store-and-forward fill).
  std::map<std::pair<std::uint64_t, std::vector<std::uint32_t>>, std::uint32_t> ids;
  std::vector<std::uint32_t> key_cells;
  std::vector<std::uint64_t> hops;  // (class << 32) | resource, one per hop
  for (std::size_t i = 0; i < routes.size(); ++i) {
    const Route& r = *routes[i];
    if (r.empty()) continue;
    key_cells.clear();
    for (ResourceId id : r) {
      if (id >= cells.num_resources()) return std::nullopt;
      key_cells.push_back(cells.cell_of(id));
    }
    auto [it, fresh] = ids.emplace(std::make_pair(bytes[i], key_cells),
                                   static_cast<std::uint32_t>(out.classes.size()));
    if (fresh) {
      FoldedClass c;
      c.bytes = bytes[i];
      c.first = static_cast<std::uint32_t>(i);
      out.classes.push_back(std::move(c));
    }
    ++out.classes[it->second].count;
    out.class_of[i] = it->second;
    for (ResourceId id : r) hops.push_back((static_cast<std::uint64_t>(it->second) << 32) | id);
  }
  // Equitable: every member of each cell a class touches is crossed by the class the same
  // number of times, and the class touches all of the cell's members.
  std::sort(hops.begin(), hops.end());
  struct Tally {
    std::uint32_t members = 0;  ///< distinct members crossed
    std::uint32_t per_member = 0;
    bool equal = true;
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, Tally> tally;  // (class, cell)
  for (std::size_t i = 0; i < hops.size();) {
    std::size_t j = i;
    while (j < hops.size() && hops[j] == hops[i]) ++j;
    const auto cls = static_cast<std::uint32_t>(hops[i] >> 32);
    const auto id = static_cast<ResourceId>(hops[i] & 0xffffffffu);
    const auto times = static_cast<std::uint32_t>(j - i);
    Tally& t = tally[{cls, cells.cell_of(id)}];
    if (t.members == 0) t.per_member = times;
    t.equal = t.equal && t.per_member == times;
    ++t.members;
    i = j;
  }
  for (const auto& [key, t] : tally) {
    if (!t.equal || t.members != cells.size(key.second)) return std::nullopt;
    out.classes[key.first].weights.emplace_back(cells.rep(key.second), t.per_member);
  }
  for (FoldedClass& c : out.classes) std::sort(c.weights.begin(), c.weights.end());
  return out;
}

std::vector<double> weighted_max_min(const FoldedBatch& batch,
                                     const std::vector<double>& capacity_Bpns) {
  const std::size_t n = batch.classes.size();
  std::vector<double> rate(n, 0.0);
  std::vector<char> frozen(n, 0);
  // The representative resources in use, with their left capacity and unfrozen weight.
  std::map<ResourceId, std::pair<double, std::uint64_t>> res;
  for (const FoldedClass& c : batch.classes)
    for (const auto& [id, w] : c.weights) {
      auto [it, fresh] = res.emplace(id, std::make_pair(capacity_Bpns.at(id), 0));
      it->second.second += w;
    }
  std::size_t left = n;
  while (left > 0) {
    double level = std::numeric_limits<double>::infinity();
    for (const auto& [id, r] : res)
      if (r.second > 0) level = std::min(level, r.first / static_cast<double>(r.second));
    if (!(level < std::numeric_limits<double>::infinity())) break;  // classes without routes
    // Every class on a resource at this level freezes at the smallest such share it crosses,
    // all taken from the state before the level.
    std::vector<double> at(n, std::numeric_limits<double>::infinity());
    for (std::size_t c = 0; c < n; ++c) {
      if (frozen[c]) continue;
      for (const auto& [id, w] : batch.classes[c].weights) {
        const auto& r = res.at(id);
        const double share = r.first / static_cast<double>(r.second);
        if (share <= level * (1 + 1e-12) + 1e-18) at[c] = std::min(at[c], share);
      }
    }
    for (std::size_t c = 0; c < n; ++c) {
      if (frozen[c] || !(at[c] < std::numeric_limits<double>::infinity())) continue;
      frozen[c] = 1;
      rate[c] = at[c];
      --left;
      for (const auto& [id, w] : batch.classes[c].weights) {
        auto& r = res.at(id);
        r.first = std::max(0.0, r.first - static_cast<double>(w) * at[c]);
        r.second -= w;
      }
    }
  }
  return rate;
}

}  // namespace ipusim
