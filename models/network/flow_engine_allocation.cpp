// Max-min fair allocation (progressive filling, fifo, mixed) of the flows whose resources changed,
// and the indexed drain heap it keys by finish time; see flow_engine.hpp for the timing model.
#include <algorithm>
#include <functional>

#include "models/network/flow_engine.hpp"

namespace ipusim {

void FlowEngine::drain_sift_up(std::uint32_t i) {
  const DrainEntry e = drain_heap_[i];
  while (i > 0) {
    const std::uint32_t parent = (i - 1) / 2;
    if (!drain_less(e, drain_heap_[parent])) break;
    drain_heap_[i] = drain_heap_[parent];
    flows_[drain_heap_[i].slot].heap_pos = i;
    i = parent;
  }
  drain_heap_[i] = e;
  flows_[e.slot].heap_pos = i;
}

void FlowEngine::drain_sift_down(std::uint32_t i) {
  const DrainEntry e = drain_heap_[i];
  const std::uint32_t n = static_cast<std::uint32_t>(drain_heap_.size());
  for (;;) {
    std::uint32_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && drain_less(drain_heap_[child + 1], drain_heap_[child])) ++child;
    if (!drain_less(drain_heap_[child], e)) break;
    drain_heap_[i] = drain_heap_[child];
    flows_[drain_heap_[i].slot].heap_pos = i;
    i = child;
  }
  drain_heap_[i] = e;
  flows_[e.slot].heap_pos = i;
}

void FlowEngine::drain_heapify() {
  for (std::uint32_t i = static_cast<std::uint32_t>(drain_heap_.size() / 2); i-- > 0;)
    drain_sift_down(i);
}

void FlowEngine::drain_set(std::uint32_t slot, double finish_ns) {
  Flow& f = flows_[slot];
  f.finish_ns = finish_ns;
  if (f.heap_pos == kNotInHeap) {
    drain_heap_.push_back({finish_ns, f.id, slot});
    drain_sift_up(static_cast<std::uint32_t>(drain_heap_.size() - 1));
    return;
  }
  DrainEntry& e = drain_heap_[f.heap_pos];
  const bool earlier = finish_ns < e.finish_ns;
  e.finish_ns = finish_ns;
  if (earlier) {
    drain_sift_up(f.heap_pos);
  } else {
    drain_sift_down(f.heap_pos);
  }
}

void FlowEngine::drain_remove(std::uint32_t slot) {
  Flow& f = flows_[slot];
  const std::uint32_t i = f.heap_pos;
  if (i == kNotInHeap) return;
  f.heap_pos = kNotInHeap;
  const DrainEntry last = drain_heap_.back();
  drain_heap_.pop_back();
  if (last.slot == slot) return;
  drain_heap_[i] = last;
  flows_[last.slot].heap_pos = i;
  drain_sift_up(i);
  drain_sift_down(flows_[last.slot].heap_pos);
}

void FlowEngine::freeze(std::uint32_t slot, double rate) {
  Flow& f = flows_[slot];
  f.rate = rate;
  f.frozen_epoch = epoch_;
  for (std::size_t i = 0; i < f.route.size(); ++i) {
    Res& r = res_[f.route[i]];
    const std::uint32_t m = mult_at(f, i);  // 1 but for a folded flow: rate x 1 is exact
    r.rem = std::max(0.0, r.rem - rate * m);
    r.unf -= m;
  }
}

void FlowEngine::allocate_fair(double /*now_ns*/) {
  for (ResourceId rid : comp_res_) {
    res_[rid].rem = specs_[rid].capacity_Bpns;
    res_[rid].unf = res_[rid].weight;
  }
  // Fast path: a flow alone on every resource of its route gets its bottleneck rate.
  for (std::uint32_t slot : comp_flows_) {
    const Flow& f = flows_[slot];
    bool alone = true;
    double rate = f.cap;
    for (ResourceId rid : f.route) {
      if (res_[rid].weight != 1) {  // one flow, weight 1
        alone = false;
        break;
      }
      rate = std::min(rate, specs_[rid].capacity_Bpns);
    }
    if (alone) freeze(slot, rate);
  }
  // Progressive filling by levels: the smallest fair share (or credit cap) is the level; every
  // resource whose share is within 1e-12 (relative) of it is tight, and every unfrozen flow on a
  // tight resource (or whose cap is the level) freezes at the smallest tight share it crosses,
  // all from the state before the level (freeze_level()). Shares only grow as flows freeze, so
  // stale heap entries are re-pushed with their current share before they count.
  std::vector<ShareEntry>& heap = heap_;
  heap.clear();
  const auto cmp = std::greater<ShareEntry>();
  for (ResourceId rid : comp_res_) {
    const Res& r = res_[rid];
    if (r.unf > 0) heap.push_back({r.rem / r.unf, rid, false});
  }
  for (std::uint32_t slot : comp_flows_) {
    const Flow& f = flows_[slot];
    if (f.frozen_epoch != epoch_ && f.cap < kInf) heap.push_back({f.cap, slot, true});
  }
  std::make_heap(heap.begin(), heap.end(), cmp);
  auto pop = [&heap, &cmp] {
    std::pop_heap(heap.begin(), heap.end(), cmp);
    const ShareEntry e = heap.back();
    heap.pop_back();
    return e;
  };
  auto push = [&heap, &cmp](const ShareEntry& e) {
    heap.push_back(e);
    std::push_heap(heap.begin(), heap.end(), cmp);
  };
  while (!heap.empty()) {
    const ShareEntry e = pop();
    const std::uint64_t mark = ++level_counter_;
    tight_.clear();
    capped_.clear();
    double level = e.share;
    if (e.is_flow) {
      if (flows_[e.index].frozen_epoch == epoch_) continue;
      capped_.push_back(e.index);
    } else {
      Res& r = res_[e.index];
      if (r.unf == 0) continue;
      level = r.rem / r.unf;
      if (level > e.share) {  // stale: count it at its current share
        push({level, e.index, false});
        continue;
      }
      r.level_mark = mark;
      r.level_share = level;
      tight_.push_back(e.index);
    }
    const double limit = level * (1 + 1e-12) + 1e-18;
    while (!heap.empty() && heap.front().share <= limit) {
      const ShareEntry t = pop();
      if (t.is_flow) {
        if (flows_[t.index].frozen_epoch != epoch_) capped_.push_back(t.index);
        continue;
      }
      Res& r = res_[t.index];
      if (r.unf == 0 || r.level_mark == mark) continue;
      const double share = r.rem / r.unf;
      if (share > limit) {
        push({share, t.index, false});  // above the limit: not popped again in this level
        continue;
      }
      r.level_mark = mark;
      r.level_share = share;
      tight_.push_back(t.index);
    }
    freeze_level(mark);
  }
}

void FlowEngine::freeze_level(std::uint64_t mark) {
  // Rates first, every one from the state before the level, so the order of the tight
  // resources and of their flows cannot change a bit.
  level_flows_.clear();
  auto take = [this, mark](std::uint32_t slot) {
    Flow& f = flows_[slot];
    if (f.frozen_epoch == epoch_) return;
    double v = f.cap;
    for (ResourceId rid : f.route) {
      const Res& r = res_[rid];
      if (r.level_mark == mark) v = std::min(v, r.level_share);
    }
    f.rate = v;
    f.frozen_epoch = epoch_;
    level_flows_.push_back(slot);
  };
  for (ResourceId rid : tight_)
    for (std::uint32_t slot : res_[rid].flows) take(slot);
  for (std::uint32_t slot : capped_) take(slot);
  if (level_flows_.empty()) return;
  // Then the capacity they take: on each resource, value x (summed weight of the flows frozen
  // at that value) once per value, in ascending value. A folded flow of weight m and m flows
  // give the same bits (m subtractions of one value in a row would not: 10 - 3 x (1.0/3) is 9,
  // three subtractions give 8.999999999999998).
  const double v0 = flows_[level_flows_.front()].rate;
  bool one_value = true;
  for (std::uint32_t slot : level_flows_) one_value = one_value && flows_[slot].rate == v0;
  if (one_value) {   // the usual level: one value, weights summed per resource
    tight_.clear();  // reused: the resources the level's flows cross
    for (std::uint32_t slot : level_flows_) {
      const Flow& f = flows_[slot];
      for (std::size_t i = 0; i < f.route.size(); ++i) {
        Res& r = res_[f.route[i]];
        if (r.cut_mark != mark) {
          r.cut_mark = mark;
          r.level_w = 0;
          tight_.push_back(f.route[i]);
        }
        r.level_w += mult_at(f, i);
      }
    }
    for (ResourceId rid : tight_) {
      Res& r = res_[rid];
      r.rem = std::max(0.0, r.rem - v0 * static_cast<double>(r.level_w));
      r.unf -= r.level_w;
    }
    return;
  }
  cuts_.clear();
  for (std::uint32_t slot : level_flows_) {
    const Flow& f = flows_[slot];
    for (std::size_t i = 0; i < f.route.size(); ++i)
      cuts_.push_back({f.route[i], f.rate, mult_at(f, i)});
  }
  std::sort(cuts_.begin(), cuts_.end(), [](const Cut& a, const Cut& b) {
    return a.rid != b.rid ? a.rid < b.rid : a.value < b.value;
  });
  for (std::size_t i = 0; i < cuts_.size();) {
    std::uint32_t w = 0;
    std::size_t j = i;
    for (; j < cuts_.size() && cuts_[j].rid == cuts_[i].rid && cuts_[j].value == cuts_[i].value;
         ++j)
      w += cuts_[j].w;
    Res& r = res_[cuts_[i].rid];
    r.rem = std::max(0.0, r.rem - cuts_[i].value * static_cast<double>(w));
    r.unf -= w;
    i = j;
  }
}

void FlowEngine::allocate_fifo() {
  for (ResourceId rid : comp_res_) res_[rid].rem = specs_[rid].capacity_Bpns;
  std::sort(comp_flows_.begin(), comp_flows_.end(),
            [this](std::uint32_t a, std::uint32_t b) { return flows_[a].id < flows_[b].id; });
  for (std::uint32_t slot : comp_flows_) {
    Flow& f = flows_[slot];
    double rate = f.cap;
    for (ResourceId rid : f.route) rate = std::min(rate, res_[rid].rem);
    if (rate < 1e-12) rate = 0;
    f.rate = rate;
    for (std::size_t i = 0; i < f.route.size(); ++i)
      res_[f.route[i]].rem = std::max(0.0, res_[f.route[i]].rem - rate * mult_at(f, i));
  }
}

void FlowEngine::allocate_mixed() {
  // Tiers with different arbitration in one component have no canonical max-min answer.
  // Greedy, in start order: a flow takes what is left on its fifo resources and its equal
  // share of what is left on its fair ones (remaining capacity / flows not yet served).
  for (ResourceId rid : comp_res_) {
    res_[rid].rem = specs_[rid].capacity_Bpns;
    res_[rid].unf = res_[rid].weight;
  }
  std::sort(comp_flows_.begin(), comp_flows_.end(),
            [this](std::uint32_t a, std::uint32_t b) { return flows_[a].id < flows_[b].id; });
  for (std::uint32_t slot : comp_flows_) {
    Flow& f = flows_[slot];
    double rate = f.cap;
    for (ResourceId rid : f.route) {
      const Res& r = res_[rid];
      rate = std::min(rate, flow_[rid].arbitration == Arbitration::Fifo
                                ? r.rem
                                : r.rem / std::max<std::uint32_t>(1, r.unf));
    }
    if (rate < 1e-12) rate = 0;
    f.rate = rate;
    for (std::size_t i = 0; i < f.route.size(); ++i) {
      Res& r = res_[f.route[i]];
      const std::uint32_t m = mult_at(f, i);
      r.rem = std::max(0.0, r.rem - rate * m);
      r.unf -= std::min(r.unf, m);
    }
  }
}

bool FlowEngine::uniform_rate(double& rate) const {
  // Every flow of the component over the same resources, all fair: progressive filling
  // saturates the route's smallest capacity / n (or the common credit cap first) for all n
  // flows at once, so each gets min(cap, min over the route of capacity / n): the value
  // allocate_fair() computes (capacity / 1 is exact for a lone flow), in O(n + route).
  // A flow of the component crosses only resources of the component, each at most once
  // (validate_route), so a route as long as the number of the component's resources in use
  // crosses all of them: when every route does, every flow crosses the same resources (in
  // whatever order, which max-min fairness and the min below do not see).
  if (comp_flows_.empty()) return false;
  const Flow& first = flows_[comp_flows_.front()];
  std::size_t hops = 0;
  for (ResourceId rid : comp_res_) {
    if (res_[rid].flows.empty()) continue;  // a dirty resource its last flow just left
    if (res_[rid].weight != res_[rid].flows.size()) return false;  // a folded flow
    if (fifo_resources_ > 0 && flow_[rid].arbitration != Arbitration::Fair) return false;
    ++hops;
  }
  for (std::uint32_t slot : comp_flows_) {
    if (flows_[slot].route.size() != hops) return false;
  }
  const double n = static_cast<double>(static_cast<std::uint32_t>(comp_flows_.size()));
  rate = first.cap;
  for (ResourceId rid : first.route) rate = std::min(rate, specs_[rid].capacity_Bpns / n);
  return true;
}

void FlowEngine::reallocate(double now_ns) {
  if (dirty_.empty()) return;
  ++epoch_;
  comp_flows_.clear();
  comp_res_.clear();
  stack_.clear();
  for (ResourceId rid : dirty_) {
    Res& r = res_[rid];
    r.dirty = false;
    if (r.epoch != epoch_) {
      r.epoch = epoch_;
      stack_.push_back(rid);
      comp_res_.push_back(rid);
    }
  }
  dirty_.clear();
  // Everything connected to a changed resource through shared flows may change rate.
  while (!stack_.empty()) {
    const ResourceId rid = stack_.back();
    stack_.pop_back();
    for (std::uint32_t slot : res_[rid].flows) {
      Flow& f = flows_[slot];
      if (f.epoch == epoch_) continue;
      f.epoch = epoch_;
      comp_flows_.push_back(slot);
      for (ResourceId r2 : f.route) {
        if (res_[r2].epoch != epoch_) {
          res_[r2].epoch = epoch_;
          stack_.push_back(r2);
          comp_res_.push_back(r2);
        }
      }
    }
  }
  for (ResourceId rid : comp_res_) integrate(res_[rid], now_ns);
  double uniform = 0;
  if (uniform_rate(uniform)) {
    // One rate for all (see uniform_rate()): drain, re-rate and sum in one pass. Every
    // resource in use carries all n flows, and n additions of one value give the same sum in
    // any order, so each resource's total equals the per-resource sum below.
    double sum = 0;
    for (std::uint32_t slot : comp_flows_) {
      Flow& f = flows_[slot];
      f.remaining = std::max(0.0, f.remaining - f.rate * (now_ns - f.t_ref));
      f.t_ref = now_ns;
      f.rate = uniform;
      sum += uniform;
    }
    for (ResourceId rid : comp_res_) set_sum_rate(rid, res_[rid].flows.empty() ? 0.0 : sum);
  } else {
    for (std::uint32_t slot : comp_flows_) {
      Flow& f = flows_[slot];
      f.remaining = std::max(0.0, f.remaining - f.rate * (now_ns - f.t_ref));
      f.t_ref = now_ns;
    }
    std::size_t fifo = 0;
    if (fifo_resources_ > 0) {
      for (ResourceId rid : comp_res_) fifo += flow_[rid].arbitration == Arbitration::Fifo;
    }
    if (fifo == 0) {
      allocate_fair(now_ns);
    } else if (fifo == comp_res_.size()) {
      allocate_fifo();
    } else {
      allocate_mixed();
    }
    for (ResourceId rid : comp_res_) {
      double sum = 0;
      for (std::uint32_t slot : res_[rid].flows) {
        const Flow& f = flows_[slot];
        sum += f.mult.empty() ? f.rate : f.rate * mult_on(f, rid);
      }
      set_sum_rate(rid, sum);
    }
  }
  // Re-keying most of the drain heap (a saturated link's flows): set the keys, heapify once.
  const bool rebuild = comp_flows_.size() >= 4 && 2 * comp_flows_.size() >= drain_heap_.size();
  for (std::uint32_t slot : comp_flows_) {
    Flow& f = flows_[slot];
    double finish_ns;
    if (f.remaining <= 0) {
      finish_ns = now_ns;
    } else if (f.rate > 0) {
      finish_ns = now_ns + f.remaining / f.rate;
    } else {
      drain_remove(slot);  // stalled behind earlier flows (fifo)
      f.finish_ns = kInf;
      continue;
    }
    if (!rebuild) {
      drain_set(slot, finish_ns);
    } else if (f.heap_pos == kNotInHeap) {
      f.finish_ns = finish_ns;
      f.heap_pos = static_cast<std::uint32_t>(drain_heap_.size());
      drain_heap_.push_back({finish_ns, f.id, slot});
    } else {
      f.finish_ns = finish_ns;
      drain_heap_[f.heap_pos].finish_ns = finish_ns;
    }
  }
  // One rate for all (a uniform component) keeps the finish order of the flows already in
  // the heap, and a restarted flow (appended last) usually finishes last: the keys often
  // still form a heap, and then heapify would move nothing.
  if (rebuild && !drain_is_heap()) drain_heapify();
}

bool FlowEngine::drain_is_heap() const {
  const DrainEntry* h = drain_heap_.data();
  for (std::size_t i = drain_heap_.size(); i-- > 1;) {
    if (drain_less(h[i], h[(i - 1) / 2])) return false;
  }
  return true;
}

}  // namespace ipusim
