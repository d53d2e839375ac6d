// Flow engine core: resources, flow starts, drain ends and arrivals. The max-min allocation is
// in flow_engine_allocation.cpp, the batch fast paths in flow_engine_batch.cpp, streams in
// flow_engine_streams.cpp; see flow_engine.hpp for the timing model.
#include "models/network/flow_engine.hpp"

#include <algorithm>
#include <cmath>

#include "sim/errors.hpp"

namespace ipusim {
namespace {
/// Appends to `out` every entry of the min-heap `heap` whose time (`time_of`) is <= `due`,
/// walking only those (a due entry's parent is due too); `stack` is scratch.
template <class Entry, class TimeOf>
void collect_due(const std::vector<Entry>& heap, double due, TimeOf time_of,
                 std::vector<Entry>& out, std::vector<std::uint32_t>& stack) {
  const std::size_t n = heap.size();
  stack.clear();
  if (n > 0) stack.push_back(0);
  while (!stack.empty()) {
    const std::uint32_t i = stack.back();
    stack.pop_back();
    if (time_of(heap[i]) > due) continue;  // nor is any of its descendants
    out.push_back(heap[i]);
    for (std::uint32_t c = 2 * i + 1; c <= 2 * i + 2 && c < n; ++c) stack.push_back(c);
  }
}

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
  kind_cap_[static_cast<std::size_t>(spec.kind)] += spec.capacity_Bpns;
  ResourceFlow f;
  f.chunk_bytes = spec.chunk_bytes.value_or(params_.chunk_bytes);
  f.credits_bytes = spec.credits_bytes.value_or(params_.credits_bytes);
  f.arbitration = spec.arbitration.value_or(params_.arbitration);
  if (f.arbitration == Arbitration::Fifo) ++fifo_resources_;
  flow_.push_back(f);
  specs_.push_back(std::move(spec));
  res_.emplace_back();
  return static_cast<ResourceId>(specs_.size() - 1);
}

ResourceStats FlowEngine::stats(ResourceId id, double now_ns) const {
  const Res& r = res_[stats_id(id)];  // folded: the representative's are everyone's
  ResourceStats s = r.st;
  std::uint64_t busy_ps = r.busy_ps;
  const double dt = now_ns - r.t_ref;
  if (dt > 0) {
    s.bytes += r.sum_rate * dt;
    if (r.sum_rate > 0) busy_ps += round_count(dt * 1e3);
  }
  s.busy_ns = static_cast<double>(busy_ps) * 1e-3;
  // Idle: every flow started on it has drained all its bytes, so the exact total holds.
  if (r.flows.empty() && r.group == kNoGroup) s.bytes = static_cast<double>(r.bytes_started);
  return s;
}

void FlowEngine::credit_stats(ResourceId id, const ResourceStats& delta) {
  if (stats_id(id) != id) return;  // folded: credited once, on the representative
  Res& r = res_[id];
  r.st.bytes += delta.bytes;
  r.bytes_started += round_count(delta.bytes);
  r.busy_ps += round_count(delta.busy_ns * 1e3);
  r.st.transfers += delta.transfers;
  r.st.max_concurrent = std::max(r.st.max_concurrent, delta.max_concurrent);
}

double FlowEngine::path_latency_ns(const Route& route) const {
  double lat = 0;
  for (ResourceId r : route) lat += specs_[r].latency_ns;
  return lat;
}

void FlowEngine::route_timing(const Route& route, std::uint64_t bytes, double& latency_ns,
                              double& cap) const {
  // Sums of whole chunk sizes are exact in a double, so a route whose tiers share one chunk
  // size gives bit for bit (hops - 1) x chunk / bottleneck.
  const double lat = path_latency_ns(route);
  std::uint64_t fill_bytes = 0;
  for (std::size_t i = 1; i < route.size(); ++i)
    fill_bytes += std::min<std::uint64_t>(bytes, flow_[route[i]].chunk_bytes);
  latency_ns = lat + static_cast<double>(fill_bytes) / route_bottleneck(specs_, route);
  cap = kInf;
  for (ResourceId r : route) {
    const ResourceFlow& f = flow_[r];
    if (f.credits_bytes > 0 && specs_[r].latency_ns > 0) {
      cap = std::min(cap, static_cast<double>(f.credits_bytes) / (2.0 * specs_[r].latency_ns));
    }
  }
}

double FlowEngine::lone_transfer_ns(const Route& route, std::uint64_t bytes) const {
  if (route.empty()) return 0.0;
  double latency_ns = 0, cap = kInf;
  route_timing(route, bytes, latency_ns, cap);
  const double rate = std::min(route_bottleneck(specs_, route), cap);
  return latency_ns + static_cast<double>(bytes) / rate;
}

void FlowEngine::validate_route(const Route& route) const {
  for (std::size_t i = 0; i < route.size(); ++i) {
    if (route[i] >= specs_.size()) throw SimulationError("flow route names an unknown resource");
    for (std::size_t j = 0; j < i; ++j) {
      if (route[j] == route[i]) {
        throw SimulationError("flow route crosses resource '" + specs_[route[i]].name + "' twice");
      }
    }
  }
}

std::uint32_t FlowEngine::alloc_slot() {
  if (!free_slots_.empty()) {
    const std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  flows_.emplace_back();
  return static_cast<std::uint32_t>(flows_.size() - 1);
}

void FlowEngine::init_flow(Flow& f, double now_ns, std::uint64_t bytes, void* tag) {
  f.finish_ns = kInf;
  f.heap_pos = kNotInHeap;
  f.bytes = bytes;
  f.remaining = static_cast<double>(bytes);
  f.rate = 0;
  f.t_ref = now_ns;
  f.start_ns = now_ns;
  f.tag = tag;
  f.repeats_left = 0;
  f.report_departure = false;
  f.fold_src.reset();
}

std::uint32_t FlowEngine::start(double now_ns, const Route& route, std::uint64_t bytes, void* tag) {
  validate_route(route);
  // Folded flows stand for symmetric traffic only: a single flow over resources breaks it.
  if (cells_ && !route.empty()) unfold();
  // A grouped flow on this route stops being independent: give it back its own state first.
  for (ResourceId rid : route) {
    if (res_[rid].group != kNoGroup) ungroup(res_[rid].group);
  }
  const std::uint32_t slot = alloc_slot();
  Flow& f = flows_[slot];
  f.id = next_id_++;
  init_flow(f, now_ns, bytes, tag);
  f.route.assign(route.begin(), route.end());
  f.pos.resize(route.size());
  f.mult.clear();
  f.count = 1;
  ++active_;
  if (route.empty()) {  // same IPU: nothing crosses a link
    f.latency_ns = 0;
    f.state = State::InFlight;
    arrivals_.push({now_ns, f.id, slot});
    return slot;
  }
  route_timing(route, bytes, f.latency_ns, f.cap);
  if (bytes == 0) {
    f.state = State::InFlight;
    arrivals_.push({now_ns + f.latency_ns, f.id, slot});
    return slot;
  }
  f.state = State::Draining;
  join_resources(slot);
  return slot;
}

void FlowEngine::join_resources(std::uint32_t slot) {
  Flow& f = flows_[slot];
  for (std::size_t i = 0; i < f.route.size(); ++i) {
    const ResourceId rid = f.route[i];
    Res& r = res_[rid];
    const std::uint32_t m = mult_at(f, i);  // a folded flow stands for m flows here
    f.pos[i] = static_cast<std::uint32_t>(r.flows.size());
    r.flows.push_back(slot);
    r.weight += m;
    r.st.transfers += m;
    r.bytes_started += f.bytes * m;
    r.st.max_concurrent = std::max<std::uint32_t>(r.st.max_concurrent, r.weight);
    if (!r.dirty) {
      r.dirty = true;
      dirty_.push_back(rid);
    }
  }
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
    const std::uint32_t m = mult_at(f, i);
    r.weight -= m;
    set_sum_rate(rid, r.flows.empty() ? 0.0 : std::max(0.0, r.sum_rate - f.rate * m));
    if (!r.dirty) {
      r.dirty = true;
      dirty_.push_back(rid);
    }
  }
}

void FlowEngine::end_drain(std::uint32_t slot, double now_ns) {
  Flow& f = flows_[slot];
  remove_from_resources(slot, now_ns);
  f.state = State::InFlight;
  f.remaining = 0;
  (f.repeats_left > 0 ? restarts_ : arrivals_).push({f.finish_ns + f.latency_ns, f.id, slot});
  // The last byte leaves the source once its first resource's access (that resource's
  // latency) and the drain are done; the other latencies and the fill are flight.
  if (f.report_departure)
    departures_.push({f.finish_ns + specs_[f.route.front()].latency_ns, f.id, slot});
}

bool FlowEngine::bulk_cheaper(std::size_t k, std::size_t n) {
  // k pops sift over the heap's depth each; the bulk form sorts the k and compacts and
  // heapifies the n (about 2n steps). A finer cost model (sort compares against sift steps)
  // measured no better on the GPT-3 pod256 step (callgrind).
  std::size_t depth = 0;
  for (std::size_t m = n; m > 1; m >>= 1) ++depth;
  return k >= 16 && k * depth >= 2 * n;
}

bool FlowEngine::end_due_drains_at_once(double now_ns) {
  // Many drains ending at one instant (a superstep's flows) from a large heap: k pops cost
  // k sift-downs over its whole depth; collecting them (a walk over the due entries only),
  // sorting them into the order the pops would give, and compacting plus heapifying the rest
  // once costs O(k log k + n). Same flows, same order, so the same state: the heap's layout is
  // not observable (its keys are distinct: ties break by id).
  const std::size_t n = drain_heap_.size();
  if (n < 64) return false;
  due_.clear();
  collect_due(
      drain_heap_, now_ns + kTolNs, [](const DrainEntry& e) { return e.finish_ns; }, due_, stack_);
  if (!bulk_cheaper(due_.size(), n)) return false;
  std::sort(due_.begin(), due_.end(),
            [](const DrainEntry& a, const DrainEntry& b) { return drain_less(a, b); });
  for (const DrainEntry& e : due_) flows_[e.slot].heap_pos = kNotInHeap;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const DrainEntry e = drain_heap_[i];
    if (flows_[e.slot].heap_pos == kNotInHeap) continue;
    drain_heap_[kept] = e;
    flows_[e.slot].heap_pos = static_cast<std::uint32_t>(kept);
    ++kept;
  }
  drain_heap_.resize(kept);
  drain_heapify();
  for (const DrainEntry& e : due_) end_drain(e.slot, now_ns);
  return true;
}

void FlowEngine::advance(double now_ns, std::vector<Arrival>& arrivals) {
  if (!end_due_drains_at_once(now_ns)) {
    while (!drain_heap_.empty()) {
      const std::uint32_t slot = drain_heap_.front().slot;
      if (flows_[slot].finish_ns > now_ns + kTolNs) break;
      drain_remove(slot);
      end_drain(slot, now_ns);
    }
  }
  clean_group_heaps();
  while (!group_drains_.empty() && group_drains_.top().t <= now_ns + kTolNs) {
    const GroupEntry e = group_drains_.top();
    group_drains_.pop();
    Group& g = groups_[e.group];
    // What remove_from_resources does for a flow alone on its resources.
    for (ResourceId rid : g.resources) {
      Res& r = res_[rid];
      integrate(r, now_ns);
      set_sum_rate(rid, 0.0);
      r.group = kNoGroup;
    }
    g.state = State::InFlight;
    group_arrivals_.push({g.finish_ns + g.latency_ns, g.ids.front(), e.group, g.gen});
    clean_group_heaps();
  }
  // Streams restart first, in (time, id) order: the only flows a callback starts while a
  // stream runs are the stream's own repeats (microbenchmark), so ids follow the same order.
  while (!restarts_.empty() && restarts_.top().t <= now_ns + kTolNs) {
    const std::uint32_t slot = restarts_.top().slot;
    restarts_.pop();
    restart(slot, now_ns);
  }
  // Departures before arrivals: a flow's departure is never later than its arrival, and its
  // slot stays valid until the arrival is reported.
  while (!departures_.empty() && departures_.top().t <= now_ns + kTolNs) {
    const TimedEntry e = departures_.top();
    departures_.pop();
    const Flow& f = flows_[e.slot];
    Arrival a{f.id, e.slot, f.start_ns, e.t, f.bytes, f.tag, 1};
    a.departed = true;
    arrivals.push_back(a);
  }
  // Arrivals in (time, id) order, flows and groups merged. Nothing below adds an arrival, so
  // the due flows are taken out of their heap first (in that order).
  take_due_arrivals(now_ns + kTolNs);
  std::size_t next = 0;
  for (;;) {
    const bool flow_due = next < due_arrivals_.size();
    const bool group_due = !group_arrivals_.empty() && group_arrivals_.top().t <= now_ns + kTolNs;
    if (!flow_due && !group_due) break;
    if (group_due && (!flow_due || due_arrivals_[next].t > group_arrivals_.top().t ||
                      (due_arrivals_[next].t == group_arrivals_.top().t &&
                       due_arrivals_[next].id > group_arrivals_.top().id))) {
      const GroupEntry e = group_arrivals_.top();
      group_arrivals_.pop();
      Group& g = groups_[e.group];
      const auto n = static_cast<std::uint32_t>(g.ids.size());
      arrivals.push_back({g.ids.front(), Arrival::kGroupSlot, g.start_ns, e.t, g.bytes, g.tag, n});
      active_ -= n;
      g.state = State::Free;
      ++g.gen;
      free_groups_.push_back(e.group);
      continue;
    }
    const TimedEntry e = due_arrivals_[next++];
    Flow& f = flows_[e.slot];
    arrivals.push_back({f.id, e.slot, f.start_ns, e.t, f.bytes, f.tag, f.count});
    f.state = State::Free;
    if (f.fold_src) f.fold_src.reset();  // its batch's record is needed no more
    free_slots_.push_back(e.slot);
    active_ -= f.count;
  }
}

void FlowEngine::take_due_arrivals(double due_ns) {
  // As end_due_drains_at_once(): with many due in a large heap, one sort of the due entries
  // plus one heapify of the rest is cheaper than a pop (a sift over the whole depth) each.
  due_arrivals_.clear();
  std::vector<TimedEntry>& heap = arrivals_.items();
  const std::size_t n = heap.size();
  if (n >= 64) {
    collect_due(
        heap, due_ns, [](const TimedEntry& e) { return e.t; }, due_arrivals_, stack_);
    if (bulk_cheaper(due_arrivals_.size(), n)) {
      std::sort(due_arrivals_.begin(), due_arrivals_.end(),
                [](const TimedEntry& a, const TimedEntry& b) { return b > a; });
      heap.erase(std::remove_if(heap.begin(), heap.end(),
                                [due_ns](const TimedEntry& e) { return e.t <= due_ns; }),
                 heap.end());
      std::make_heap(heap.begin(), heap.end(), std::greater<TimedEntry>());
      return;
    }
    due_arrivals_.clear();
  }
  while (!arrivals_.empty() && arrivals_.top().t <= due_ns) {
    due_arrivals_.push_back(arrivals_.top());
    arrivals_.pop();
  }
}

void FlowEngine::clean_group_heaps() {
  while (!group_drains_.empty()) {
    const GroupEntry& e = group_drains_.top();
    const Group& g = groups_[e.group];
    if (g.gen == e.gen && g.state == State::Draining) break;
    group_drains_.pop();
  }
}

double FlowEngine::next_event_ns() {
  double t = kInf;
  if (!drain_heap_.empty()) t = drain_heap_.front().finish_ns;
  if (!arrivals_.empty()) t = std::min(t, arrivals_.top().t);
  if (!restarts_.empty()) t = std::min(t, restarts_.top().t);
  if (!departures_.empty()) t = std::min(t, departures_.top().t);
  clean_group_heaps();
  if (!group_drains_.empty()) t = std::min(t, group_drains_.top().t);
  if (!group_arrivals_.empty()) t = std::min(t, group_arrivals_.top().t);
  return t;
}

}  // namespace ipusim
