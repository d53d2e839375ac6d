// Max-min fair (progressive filling) flow engine; see flow_engine.hpp for the timing model.
#include "models/flow_engine.hpp"

#include <algorithm>

#include "sim/errors.hpp"

namespace ipusim {
namespace {

double route_bottleneck(const std::vector<ResourceSpec>& specs, const Route& route) {
  double cap = FlowEngine::kInf;
  for (ResourceId r : route) cap = std::min(cap, specs[r].capacity_Bpns);
  return cap;
}

}  // namespace

FlowEngine::FlowEngine(FlowEngineParams params) : params_(params) {}

ResourceId FlowEngine::add_resource(ResourceSpec spec) {
  if (!(spec.capacity_Bpns > 0)) {
    throw SimulationError("resource '" + spec.name + "' has no capacity");
  }
  specs_.push_back(std::move(spec));
  res_.emplace_back();
  return static_cast<ResourceId>(specs_.size() - 1);
}

ResourceStats FlowEngine::stats(ResourceId id, double now_ns) const {
  const Res& r = res_[id];
  ResourceStats s = r.st;
  const double dt = now_ns - r.t_ref;
  if (dt > 0) {
    s.bytes += r.sum_rate * dt;
    if (r.sum_rate > 0) s.busy_ns += dt;
  }
  return s;
}

double FlowEngine::path_latency_ns(const Route& route) const {
  double lat = 0;
  for (ResourceId r : route) lat += specs_[r].latency_ns;
  return lat;
}

double FlowEngine::lone_transfer_ns(const Route& route, std::uint64_t bytes) const {
  if (route.empty()) return 0.0;
  const double lat = path_latency_ns(route);
  double rate = route_bottleneck(specs_, route);
  if (params_.credits_bytes > 0 && lat > 0) {
    rate = std::min(rate, static_cast<double>(params_.credits_bytes) / (2.0 * lat));
  }
  const double chunk = static_cast<double>(std::min<std::uint64_t>(bytes, params_.chunk_bytes));
  const double fill = static_cast<double>(route.size() - 1) * chunk / route_bottleneck(specs_, route);
  return lat + fill + static_cast<double>(bytes) / rate;
}

std::uint32_t FlowEngine::start(double now_ns, const Route& route, std::uint64_t bytes) {
  for (std::size_t i = 0; i < route.size(); ++i) {
    if (route[i] >= specs_.size()) throw SimulationError("flow route names an unknown resource");
    for (std::size_t j = 0; j < i; ++j) {
      if (route[j] == route[i]) {
        throw SimulationError("flow route crosses resource '" + specs_[route[i]].name + "' twice");
      }
    }
  }
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
  }
  Flow& f = flows_[slot];
  f.id = next_id_++;
  f.finish_ns = kInf;
  f.heap_pos = kNotInHeap;
  f.route.assign(route.begin(), route.end());
  f.pos.resize(route.size());
  f.bytes = bytes;
  f.remaining = static_cast<double>(bytes);
  f.rate = 0;
  f.t_ref = now_ns;
  f.start_ns = now_ns;
  ++active_;
  if (route.empty()) {  // same IPU: nothing crosses a link
    f.latency_ns = 0;
    f.state = State::InFlight;
    arrivals_.push({now_ns, f.id, slot});
    return slot;
  }
  const double lat = path_latency_ns(route);
  const double bottleneck = route_bottleneck(specs_, route);
  const double chunk = static_cast<double>(std::min<std::uint64_t>(bytes, params_.chunk_bytes));
  f.latency_ns = lat + static_cast<double>(route.size() - 1) * chunk / bottleneck;
  f.cap = (params_.credits_bytes > 0 && lat > 0)
              ? static_cast<double>(params_.credits_bytes) / (2.0 * lat)
              : kInf;
  if (bytes == 0) {
    f.state = State::InFlight;
    arrivals_.push({now_ns + f.latency_ns, f.id, slot});
    return slot;
  }
  f.state = State::Draining;
  for (std::size_t i = 0; i < route.size(); ++i) {
    Res& r = res_[route[i]];
    f.pos[i] = static_cast<std::uint32_t>(r.flows.size());
    r.flows.push_back(slot);
    r.st.transfers++;
    r.st.max_concurrent = std::max<std::uint32_t>(r.st.max_concurrent,
                                                  static_cast<std::uint32_t>(r.flows.size()));
    if (!r.dirty) {
      r.dirty = true;
      dirty_.push_back(route[i]);
    }
  }
  return slot;
}

void FlowEngine::integrate(Res& r, double now_ns) {
  const double dt = now_ns - r.t_ref;
  if (dt > 0) {
    r.st.bytes += r.sum_rate * dt;
    if (r.sum_rate > 0) r.st.busy_ns += dt;
  }
  r.t_ref = now_ns;
}

void FlowEngine::remove_from_resources(std::uint32_t slot, double now_ns) {
  Flow& f = flows_[slot];
  for (std::size_t i = 0; i < f.route.size(); ++i) {
    const ResourceId rid = f.route[i];
    Res& r = res_[rid];
    integrate(r, now_ns);
    const std::uint32_t at = f.pos[i];
    const std::uint32_t last = r.flows.back();
    r.flows[at] = last;
    if (last != slot) {
      Flow& moved = flows_[last];
      for (std::size_t j = 0; j < moved.route.size(); ++j) {
        if (moved.route[j] == rid) {
          moved.pos[j] = at;
          break;
        }
      }
    }
    r.flows.pop_back();
    r.sum_rate = r.flows.empty() ? 0.0 : std::max(0.0, r.sum_rate - f.rate);
    if (!r.dirty) {
      r.dirty = true;
      dirty_.push_back(rid);
    }
  }
}

void FlowEngine::advance(double now_ns, std::vector<Arrival>& arrivals) {
  while (!drain_heap_.empty()) {
    const std::uint32_t slot = drain_heap_.front();
    Flow& f = flows_[slot];
    if (f.finish_ns > now_ns + kTolNs) break;
    drain_remove(slot);
    remove_from_resources(slot, now_ns);
    f.state = State::InFlight;
    f.remaining = 0;
    arrivals_.push({f.finish_ns + f.latency_ns, f.id, slot});
  }
  while (!arrivals_.empty()) {
    const TimedEntry e = arrivals_.top();
    if (e.t > now_ns + kTolNs) break;
    arrivals_.pop();
    Flow& f = flows_[e.slot];
    arrivals.push_back({f.id, e.slot, f.start_ns, e.t, f.bytes});
    f.state = State::Free;
    free_slots_.push_back(e.slot);
    --active_;
  }
}

bool FlowEngine::drain_less(std::uint32_t a, std::uint32_t b) const {
  const Flow& fa = flows_[a];
  const Flow& fb = flows_[b];
  return fa.finish_ns != fb.finish_ns ? fa.finish_ns < fb.finish_ns : fa.id < fb.id;
}

void FlowEngine::drain_sift_up(std::uint32_t i) {
  const std::uint32_t slot = drain_heap_[i];
  while (i > 0) {
    const std::uint32_t parent = (i - 1) / 2;
    if (!drain_less(slot, drain_heap_[parent])) break;
    drain_heap_[i] = drain_heap_[parent];
    flows_[drain_heap_[i]].heap_pos = i;
    i = parent;
  }
  drain_heap_[i] = slot;
  flows_[slot].heap_pos = i;
}

void FlowEngine::drain_sift_down(std::uint32_t i) {
  const std::uint32_t slot = drain_heap_[i];
  const std::uint32_t n = static_cast<std::uint32_t>(drain_heap_.size());
  for (;;) {
    std::uint32_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && drain_less(drain_heap_[child + 1], drain_heap_[child])) ++child;
    if (!drain_less(drain_heap_[child], slot)) break;
    drain_heap_[i] = drain_heap_[child];
    flows_[drain_heap_[i]].heap_pos = i;
    i = child;
  }
  drain_heap_[i] = slot;
  flows_[slot].heap_pos = i;
}

void FlowEngine::drain_set(std::uint32_t slot, double finish_ns) {
  Flow& f = flows_[slot];
  f.finish_ns = finish_ns;
  if (f.heap_pos == kNotInHeap) {
    drain_heap_.push_back(slot);
    drain_sift_up(static_cast<std::uint32_t>(drain_heap_.size() - 1));
    return;
  }
  drain_sift_up(f.heap_pos);
  drain_sift_down(flows_[slot].heap_pos);
}

void FlowEngine::drain_remove(std::uint32_t slot) {
  Flow& f = flows_[slot];
  const std::uint32_t i = f.heap_pos;
  if (i == kNotInHeap) return;
  f.heap_pos = kNotInHeap;
  const std::uint32_t last = drain_heap_.back();
  drain_heap_.pop_back();
  if (last == slot) return;
  drain_heap_[i] = last;
  flows_[last].heap_pos = i;
  drain_sift_up(i);
  drain_sift_down(flows_[last].heap_pos);
}

void FlowEngine::freeze(std::uint32_t slot, double rate) {
  Flow& f = flows_[slot];
  f.rate = rate;
  f.frozen_epoch = epoch_;
  for (ResourceId rid : f.route) {
    Res& r = res_[rid];
    r.rem = std::max(0.0, r.rem - rate);
    --r.unf;
  }
}

void FlowEngine::allocate_fair(double /*now_ns*/) {
  for (ResourceId rid : comp_res_) {
    res_[rid].rem = specs_[rid].capacity_Bpns;
    res_[rid].unf = static_cast<std::uint32_t>(res_[rid].flows.size());
  }
  // Fast path: a flow alone on every resource of its route gets its bottleneck rate.
  for (std::uint32_t slot : comp_flows_) {
    const Flow& f = flows_[slot];
    bool alone = true;
    double rate = f.cap;
    for (ResourceId rid : f.route) {
      if (res_[rid].flows.size() != 1) {
        alone = false;
        break;
      }
      rate = std::min(rate, specs_[rid].capacity_Bpns);
    }
    if (alone) freeze(slot, rate);
  }
  // Progressive filling: repeatedly saturate the resource (or credit cap) with the smallest
  // fair share. Shares only grow as flows freeze, so stale heap entries are re-pushed.
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
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), cmp);
    const ShareEntry e = heap.back();
    heap.pop_back();
    if (e.is_flow) {
      if (flows_[e.index].frozen_epoch != epoch_) freeze(e.index, flows_[e.index].cap);
      continue;
    }
    Res& r = res_[e.index];
    if (r.unf == 0) continue;
    const double share = r.rem / r.unf;
    if (share > e.share * (1 + 1e-12) + 1e-18) {
      heap.push_back({share, e.index, false});
      std::push_heap(heap.begin(), heap.end(), cmp);
      continue;
    }
    for (std::uint32_t slot : r.flows) {
      if (flows_[slot].frozen_epoch != epoch_) freeze(slot, share);
    }
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
    for (ResourceId rid : f.route) res_[rid].rem = std::max(0.0, res_[rid].rem - rate);
  }
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
  for (std::uint32_t slot : comp_flows_) {
    Flow& f = flows_[slot];
    f.remaining = std::max(0.0, f.remaining - f.rate * (now_ns - f.t_ref));
    f.t_ref = now_ns;
  }
  if (params_.arbitration == Arbitration::Fair) {
    allocate_fair(now_ns);
  } else {
    allocate_fifo();
  }
  for (ResourceId rid : comp_res_) {
    Res& r = res_[rid];
    double sum = 0;
    for (std::uint32_t slot : r.flows) sum += flows_[slot].rate;
    r.sum_rate = sum;
  }
  for (std::uint32_t slot : comp_flows_) {
    Flow& f = flows_[slot];
    if (f.remaining <= 0) {
      drain_set(slot, now_ns);
    } else if (f.rate > 0) {
      drain_set(slot, now_ns + f.remaining / f.rate);
    } else {
      drain_remove(slot);  // stalled behind earlier flows (fifo)
      f.finish_ns = kInf;
    }
  }
}

double FlowEngine::next_event_ns() {
  double t = kInf;
  if (!drain_heap_.empty()) t = flows_[drain_heap_.front()].finish_ns;
  if (!arrivals_.empty()) t = std::min(t, arrivals_.top().t);
  return t;
}

}  // namespace ipusim
