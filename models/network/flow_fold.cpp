// Folding a symmetric batch onto representatives and the weighted max-min allocation of the
// folded batch; see flow_fold.hpp for why the folded allocation is the full one.
#include "models/network/flow_fold.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

namespace ipusim {

ResourceCells::ResourceCells(const std::vector<std::uint32_t>& candidate,
                             const std::vector<ResourceSpec>& specs) {
  build(candidate, std::min(candidate.size(), specs.size()),
        [&specs](ResourceId id) -> const ResourceSpec& { return specs[id]; });
}

ResourceCells::ResourceCells(const std::vector<std::uint32_t>& candidate,
                             const FlowEngine& engine) {
  build(candidate, std::min(candidate.size(), engine.num_resources()),
        [&engine](ResourceId id) -> const ResourceSpec& { return engine.resource(id); });
}

void ResourceCells::build(const std::vector<std::uint32_t>& candidate, std::size_t n,
                          const std::function<const ResourceSpec&(ResourceId)>& spec) {
  cell_of_.assign(n, 0);
  // Refine by spec: a candidate cell whose members differ in capacity, latency, kind or flow
  // control splits (the folded allocation needs equal members). Unset flow control compares as
  // a value of its own.
  constexpr std::uint64_t kUnset = std::numeric_limits<std::uint64_t>::max();
  using Key = std::tuple<std::uint32_t, double, double, int, std::uint64_t, std::uint64_t, int>;
  std::map<Key, std::uint32_t> ids;
  for (ResourceId id = 0; id < n; ++id) {
    const ResourceSpec& s = spec(id);
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
                                      const std::vector<std::uint64_t>& bytes,
                                      FoldScratch* scratch) {
  FoldScratch local;
  FoldScratch& w = scratch ? *scratch : local;
  const std::size_t n_res = cells.num_resources();
  FoldedBatch out;
  out.class_of.assign(routes.size(), kNoClass);
  // Classes: equal bytes and the same cells in route order (route order matters to timing:
  // the first hop pays no store-and-forward fill). Looked up by a hash of that key, compared
  // with the class's first flow.
  auto same_key = [&](const Route& a, std::uint64_t bytes_a, const FoldedClass& c) {
    const Route& b = *routes[c.first];
    if (bytes_a != c.bytes || a.size() != b.size()) return false;
    for (std::size_t h = 0; h < a.size(); ++h)
      if (cells.cell_of(a[h]) != cells.cell_of(b[h])) return false;
    return true;
  };
  w.by_hash.clear();
  for (std::size_t i = 0; i < routes.size(); ++i) {
    const Route& r = *routes[i];
    if (r.empty()) continue;
    std::uint64_t h = bytes[i] * 0x9e3779b97f4a7c15ull;
    for (ResourceId id : r) {
      if (id >= n_res) return std::nullopt;
      h = (h ^ cells.cell_of(id)) * 0x100000001b3ull;
    }
    auto range = w.by_hash.equal_range(h);
    std::uint32_t cls = kNoClass;
    for (auto it = range.first; it != range.second && cls == kNoClass; ++it)
      if (same_key(r, bytes[i], out.classes[it->second])) cls = it->second;
    if (cls == kNoClass) {
      cls = static_cast<std::uint32_t>(out.classes.size());
      FoldedClass c;
      c.bytes = bytes[i];
      c.first = static_cast<std::uint32_t>(i);
      out.classes.push_back(std::move(c));
      w.by_hash.emplace(h, cls);
    }
    ++out.classes[cls].count;
    out.class_of[i] = cls;
  }
  // Equitable: every member of each cell a class touches is crossed by the class the same
  // number of times, and the class touches all of the cell's members. Class by class: count
  // the hops on each resource, then tally the counts by cell.
  const std::size_t n_cls = out.classes.size();
  w.start.assign(n_cls + 1, 0);
  for (std::uint32_t c : out.class_of)
    if (c != kNoClass) ++w.start[c + 1];
  for (std::size_t c = 0; c < n_cls; ++c) w.start[c + 1] += w.start[c];
  w.order.resize(w.start[n_cls]);
  w.fill.assign(w.start.begin(), w.start.end() - 1);
  for (std::size_t i = 0; i < routes.size(); ++i)
    if (out.class_of[i] != kNoClass)
      w.order[w.fill[out.class_of[i]]++] = static_cast<std::uint32_t>(i);
  if (w.res_mark.size() != n_res) {
    w.res_mark.assign(n_res, 0);
    w.res_count.assign(n_res, 0);
  }
  if (w.cell_mark.size() != cells.num_cells()) {
    w.cell_mark.assign(cells.num_cells(), 0);
    w.cell_members.assign(cells.num_cells(), 0);
    w.cell_per.assign(cells.num_cells(), 0);
  }
  for (std::size_t c = 0; c < n_cls; ++c) {
    const std::uint64_t stamp = ++w.stamp;
    w.touched.clear();
    for (std::uint32_t k = w.start[c]; k < w.start[c + 1]; ++k) {
      for (ResourceId id : *routes[w.order[k]]) {
        if (w.res_mark[id] != stamp) {
          w.res_mark[id] = stamp;
          w.res_count[id] = 0;
          w.touched.push_back(id);
        }
        ++w.res_count[id];
      }
    }
    w.cells_touched.clear();
    for (ResourceId id : w.touched) {
      const std::uint32_t cell = cells.cell_of(id);
      if (w.cell_mark[cell] != stamp) {
        w.cell_mark[cell] = stamp;
        w.cell_members[cell] = 0;
        w.cell_per[cell] = w.res_count[id];
        w.cells_touched.push_back(cell);
      }
      if (w.cell_per[cell] != w.res_count[id]) return std::nullopt;
      ++w.cell_members[cell];
    }
    FoldedClass& fc = out.classes[c];
    for (std::uint32_t cell : w.cells_touched) {
      if (w.cell_members[cell] != cells.size(cell)) return std::nullopt;
      fc.weights.emplace_back(cells.rep(cell), w.cell_per[cell]);
    }
    std::sort(fc.weights.begin(), fc.weights.end());
  }
  return out;
}

std::shared_ptr<const FoldRecord> fold_batch_cached(const ResourceCells& cells,
                                                    const std::vector<const Route*>& routes,
                                                    const std::vector<std::uint64_t>& bytes,
                                                    FoldScratch& scratch) {
  auto& recent = scratch.recent;
  for (std::size_t k = 0; k < recent.size(); ++k) {
    const FoldRecord& e = *recent[k];
    bool same = e.off.size() == routes.size() + 1 && bytes == e.bytes;
    for (std::size_t i = 0; same && i < routes.size(); ++i) {
      const Route& route = *routes[i];
      same = route.size() == e.off[i + 1] - e.off[i] &&
             std::equal(route.begin(), route.end(), e.res.begin() + e.off[i]);
    }
    if (!same) continue;
    std::rotate(recent.begin(), recent.begin() + static_cast<std::ptrdiff_t>(k),
                recent.begin() + static_cast<std::ptrdiff_t>(k) + 1);
    return recent.front();
  }
  std::optional<FoldedBatch> folded = fold_batch(cells, routes, bytes, &scratch);
  if (!folded) return nullptr;
  if (recent.size() < FoldScratch::kRecent) recent.emplace_back();
  std::rotate(recent.begin(), recent.end() - 1, recent.end());  // the oldest (or new) first
  // Folded flows in flight may still hold the oldest record: then it is theirs, not reused.
  std::shared_ptr<FoldRecord>& slot = recent.front();
  if (!slot || slot.use_count() > 1) slot = std::make_shared<FoldRecord>();
  FoldRecord& e = *slot;
  e.folded = std::move(*folded);
  e.bytes = bytes;
  e.res.clear();
  e.off.assign(1, 0);
  for (const Route* route : routes) {
    e.res.insert(e.res.end(), route->begin(), route->end());
    e.off.push_back(static_cast<std::uint32_t>(e.res.size()));
  }
  return slot;
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
    // The capacity they take, per resource and value in ascending value: value x summed
    // weight once (the flow engine's freeze_level(), bit for bit).
    std::map<ResourceId, std::map<double, std::uint64_t>> cuts;
    for (std::size_t c = 0; c < n; ++c) {
      if (frozen[c] || !(at[c] < std::numeric_limits<double>::infinity())) continue;
      frozen[c] = 1;
      rate[c] = at[c];
      --left;
      for (const auto& [id, w] : batch.classes[c].weights) cuts[id][at[c]] += w;
    }
    for (const auto& [id, by_value] : cuts) {
      auto& r = res.at(id);
      for (const auto& [value, w] : by_value) {
        r.first = std::max(0.0, r.first - value * static_cast<double>(w));
        r.second -= w;
      }
    }
  }
  return rate;
}

}  // namespace ipusim
