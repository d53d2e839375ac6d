// Batch fast paths: flows of a batch that share no resource (or share one at an equal fair
// share) drain as groups, one heap entry and one arrival per group; see FlowEngine::start_batch.
#include <algorithm>

#include "models/network/flow_engine.hpp"

namespace ipusim {

void FlowEngine::lone_rate(const Route& route, std::uint64_t bytes, double& rate,
                           double& latency_ns, double& cap) const {
  // The same operations, in the same order, as start() and the allocation of a lone flow.
  route_timing(route, bytes, latency_ns, cap);
  rate = cap;
  for (ResourceId rid : route) rate = std::min(rate, specs_[rid].capacity_Bpns);
}

bool FlowEngine::any_route_idle(const std::vector<const Route*>& routes) const {
  for (const Route* route : routes) {
    bool idle = !route->empty();
    for (ResourceId rid : *route) {
      if (rid >= res_.size()) return true;  // start_batch() lets start() report it
      idle = idle && res_[rid].flows.empty() && res_[rid].group == kNoGroup;
    }
    if (idle) return true;
  }
  return false;
}

void FlowEngine::start_batch(double now_ns, const std::vector<const Route*>& routes,
                             const std::vector<std::uint64_t>& bytes, void* tag) {
  // Without an idle route no flow of the batch can be grouped (starting flows only makes
  // resources busier), and start() one by one is what the analysis would end in. Collective
  // steps repeat the previous step's routes and sizes (a ring's 2(R-1) steps): then the
  // resource use counts and the lone rates of the last batch still hold.
  if (cells_ && start_folded_if_equitable(now_ns, routes, bytes, tag)) return;
  if (!params_.fast_paths || !any_route_idle(routes) ||
      (!repeats_last_batch(routes, bytes) && !analyse_batch(routes, bytes))) {
    for (std::size_t i = 0; i < routes.size(); ++i) start(now_ns, *routes[i], bytes[i], tag);
    return;
  }
  start_groups(now_ns, routes, bytes, tag);
}

bool FlowEngine::repeats_last_batch(const std::vector<const Route*>& routes,
                                    const std::vector<std::uint64_t>& bytes) const {
  bool same = cache_mark_ == batch_counter_ && bytes == cache_bytes_;
  for (std::size_t i = 0; same && i < routes.size(); ++i) {
    const Route& route = *routes[i];
    same = route.size() == cache_off_[i + 1] - cache_off_[i] &&
           std::equal(route.begin(), route.end(), cache_res_.begin() + cache_off_[i]);
  }
  return same;
}

bool FlowEngine::analyse_batch(const std::vector<const Route*>& routes,
                               const std::vector<std::uint64_t>& bytes) {
  // Count how often the batch uses each resource (a resource used twice is shared).
  const std::uint64_t mark = ++batch_counter_;
  for (const Route* route : routes) {
    for (ResourceId rid : *route) {
      // An unknown resource: start() reports it, at the same flow as without fast paths.
      if (rid >= res_.size()) return false;
      Res& r = res_[rid];
      if (r.batch_mark != mark) {
        r.batch_mark = mark;
        r.batch_uses = 0;
      }
      ++r.batch_uses;
    }
  }
  cache_mark_ = mark;
  cache_bytes_ = bytes;
  cache_res_.clear();
  cache_off_.assign(1, 0);
  cache_key_.clear();
  cache_shared_.clear();
  keys_.clear();
  std::uint32_t last_key = kNoGroup;
  for (std::size_t i = 0; i < routes.size(); ++i) {
    const Route& route = *routes[i];
    cache_res_.insert(cache_res_.end(), route.begin(), route.end());
    cache_off_.push_back(static_cast<std::uint32_t>(cache_res_.size()));
    std::uint32_t key = kNoGroup;
    ResourceId shared = kNoResource;
    if (bytes[i] > 0 && !route.empty()) {
      GroupKey k{bytes[i], 0, 0, kInf};
      lone_rate(route, bytes[i], k.rate, k.latency_ns, k.cap);
      // One resource shared by n flows of the batch (and by nothing else), all other
      // resources of the route exclusive: under fair sharing the shared resource's share
      // capacity / n is the first to saturate when it is strictly below every other limit
      // of the route, and progressive filling then gives every one of the n flows exactly
      // that share. Flows with more shared resources take the general path. The shared
      // resource is not part of the key: flows with equal rates on different shared
      // resources (a ring step's links, each crossed by the same number of flows) form one
      // group, so the key count does not grow with the system.
      std::uint32_t shared_count = 0;
      for (ResourceId rid : route) {
        if (res_[rid].batch_uses > 1) {
          ++shared_count;
          shared = rid;
        }
      }
      bool all_fair = true;
      for (ResourceId rid : route)
        all_fair = all_fair && flow_[rid].arbitration == Arbitration::Fair;
      if (shared_count == 1 && all_fair) {
        const double share =
            specs_[shared].capacity_Bpns / static_cast<double>(res_[shared].batch_uses);
        bool below = share < k.cap;
        for (ResourceId rid : route)
          below = below && (rid == shared || share < specs_[rid].capacity_Bpns);
        k.rate = below ? share : 0.0;  // 0: not groupable
      } else if (shared_count > 0) {
        k.rate = 0.0;
      }
      // Fifo allocation zeroes rates below 1e-12 B/ns: leave such flows to the general path.
      if (k.rate >= 1e-12) {
        auto same_key = [&k](const GroupKey& o) {
          return o.bytes == k.bytes && o.rate == k.rate && o.latency_ns == k.latency_ns &&
                 o.cap == k.cap;
        };
        // Neighbours in a batch usually share a key: try the last one matched first (keys
        // are distinct, so the scan would find the same one).
        if (last_key < keys_.size() && same_key(keys_[last_key])) key = last_key;
        for (std::uint32_t j = 0; j < keys_.size() && key == kNoGroup; ++j) {
          if (same_key(keys_[j])) key = j;
        }
        constexpr std::size_t kMaxGroupsPerBatch = 64;  // beyond this, distinct flows go one by one
        if (key == kNoGroup && keys_.size() < kMaxGroupsPerBatch) {
          key = static_cast<std::uint32_t>(keys_.size());
          keys_.push_back(k);
        }
        last_key = key;
      }
    }
    cache_key_.push_back(key);
    cache_shared_.push_back(key == kNoGroup ? kNoResource : shared);
  }
  // A shared resource is grouped only if every flow of the batch crossing it has the same
  // key (else its flows' rates differ and the general path allocates them).
  for (std::size_t i = 0; i < routes.size(); ++i) {
    const std::uint32_t key = cache_key_[i];
    if (key == kNoGroup || cache_shared_[i] == kNoResource) continue;
    Res& r = res_[cache_shared_[i]];
    if (r.shared_key == kNoGroup || r.shared_mark != mark) {
      r.shared_mark = mark;
      r.shared_key = key;
    } else if (r.shared_key != key) {
      r.shared_key = kMixedKeys;
    }
  }
  for (std::size_t i = 0; i < routes.size(); ++i) {
    const std::uint32_t key = cache_key_[i];
    if (key == kNoGroup || cache_shared_[i] == kNoResource) continue;
    if (res_[cache_shared_[i]].shared_key != key) cache_key_[i] = kNoGroup;
  }
  // Flows crossing a shared resource whose other users are not groupable are not either.
  for (std::size_t i = 0; i < routes.size(); ++i) {
    if (cache_key_[i] != kNoGroup) continue;
    for (ResourceId rid : *routes[i]) {
      if (res_[rid].batch_uses > 1 && res_[rid].shared_mark == mark)
        res_[rid].shared_key = kMixedKeys;
    }
  }
  for (std::size_t i = 0; i < routes.size(); ++i) {
    const std::uint32_t key = cache_key_[i];
    if (key == kNoGroup || cache_shared_[i] == kNoResource) continue;
    if (res_[cache_shared_[i]].shared_key != key) cache_key_[i] = kNoGroup;
  }
  return true;
}

void FlowEngine::start_groups(double now_ns, const std::vector<const Route*>& routes,
                              const std::vector<std::uint64_t>& bytes, void* tag) {
  key_group_.assign(keys_.size(), kNoGroup);
  batch_groups_.clear();
  for (std::size_t i = 0; i < routes.size(); ++i) {
    const Route& route = *routes[i];
    const std::uint32_t key = cache_key_[i];
    bool independent = key != kNoGroup;
    const ResourceId shared = independent ? cache_shared_[i] : kNoResource;
    for (ResourceId rid : route) {
      const Res& r = res_[rid];
      // The shared resource may already belong to this batch's group of its flows.
      const bool mine = rid == shared && key_group_[key] != kNoGroup && r.group == key_group_[key];
      independent = independent && r.flows.empty() &&
                    (rid == shared ? (r.group == kNoGroup || mine)
                                   : (r.batch_uses == 1 && r.group == kNoGroup));
    }
    if (!independent) {
      start(now_ns, route, bytes[i], tag);
      continue;
    }
    const GroupKey& k = keys_[key];
    std::uint32_t gi = key_group_[key];
    if (gi == kNoGroup) {
      if (!free_groups_.empty()) {
        gi = free_groups_.back();
        free_groups_.pop_back();
      } else {
        gi = static_cast<std::uint32_t>(groups_.size());
        groups_.emplace_back();
      }
      key_group_[key] = gi;
      Group& g = groups_[gi];
      g.ids.clear();
      g.resources.clear();
      g.offsets.assign(1, 0);
      g.bytes = k.bytes;
      g.rate = k.rate;
      g.latency_ns = k.latency_ns;
      g.cap = k.cap;
      g.start_ns = now_ns;
      // reallocate(): remaining (= bytes, nothing drained yet) / rate from the start time.
      g.finish_ns = now_ns + static_cast<double>(k.bytes) / k.rate;
      g.tag = tag;
      g.state = State::Draining;
      batch_groups_.push_back(gi);
    }
    Group& g = groups_[gi];
    g.ids.push_back(next_id_++);
    for (ResourceId rid : route) {
      Res& r = res_[rid];
      integrate(r, now_ns);
      r.st.transfers++;
      r.bytes_started += k.bytes;
      if (r.group != gi) r.group_members = 0;
      ++r.group_members;
      r.st.max_concurrent = std::max<std::uint32_t>(r.st.max_concurrent, r.group_members);
      // As reallocate() sums the rates of a resource's flows: one after another from 0.
      set_sum_rate(rid, r.group == gi ? r.sum_rate + k.rate : 0.0 + k.rate);
      r.group = gi;
      g.resources.push_back(rid);
    }
    g.offsets.push_back(static_cast<std::uint32_t>(g.resources.size()));
    ++active_;
    ++grouped_flows_;
  }
  for (std::uint32_t gi : batch_groups_) {
    const Group& g = groups_[gi];
    group_drains_.push({g.finish_ns, g.ids.front(), gi, g.gen});
  }
}

void FlowEngine::ungroup(std::uint32_t gi) {
  // Every member becomes the flow start() and the lone allocation would have made: same id,
  // rate, start and finish; it has drained nothing that its (unchanged) t_ref does not show.
  Group& g = groups_[gi];
  for (ResourceId rid : g.resources) {
    res_[rid].flows.clear();
    res_[rid].weight = 0;
    res_[rid].group = kNoGroup;
  }
  for (std::size_t i = 0; i < g.ids.size(); ++i) {
    const std::uint32_t slot = alloc_slot();
    Flow& f = flows_[slot];
    f.id = g.ids[i];
    f.route.assign(g.resources.begin() + g.offsets[i], g.resources.begin() + g.offsets[i + 1]);
    f.pos.resize(f.route.size());
    f.bytes = g.bytes;
    f.remaining = static_cast<double>(g.bytes);
    f.rate = g.rate;
    f.t_ref = g.start_ns;
    f.start_ns = g.start_ns;
    f.latency_ns = g.latency_ns;
    f.cap = g.cap;
    f.epoch = 0;
    f.frozen_epoch = 0;
    f.finish_ns = kInf;
    f.heap_pos = kNotInHeap;
    f.state = State::Draining;
    f.tag = g.tag;
    f.repeats_left = 0;
    f.mult.clear();
    f.count = 1;
    for (std::size_t j = 0; j < f.route.size(); ++j) {
      Res& r = res_[f.route[j]];
      f.pos[j] = static_cast<std::uint32_t>(r.flows.size());
      r.flows.push_back(slot);
      ++r.weight;
    }
    drain_set(slot, g.finish_ns);
  }
  g.state = State::Free;
  ++g.gen;
  free_groups_.push_back(gi);
}

}  // namespace ipusim
