// Max-min fair (progressive filling) flow engine; see flow_engine.hpp for the timing model.
#include "models/network/flow_engine.hpp"

#include <algorithm>
#include <cmath>

#include "sim/errors.hpp"

namespace ipusim {
namespace {

/// static_cast<uint64_t>(std::llround(x)) for a count (picoseconds, bytes), without the libm
/// call for 0 <= x < 2^52 (hot in integrate() and credit_stats()): the truncation is exact
/// there and so is x - whole, so halves round away from zero as llround does.
std::uint64_t round_count(double x) {
  if (!(x >= 0 && x < 4503599627370496.0)) return static_cast<std::uint64_t>(std::llround(x));
  const auto whole = static_cast<std::uint64_t>(x);
  return x - static_cast<double>(whole) >= 0.5 ? whole + 1 : whole;
}

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
  const Res& r = res_[id];
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

std::uint32_t FlowEngine::start(double now_ns, const Route& route, std::uint64_t bytes, void* tag) {
  validate_route(route);
  // A grouped flow on this route stops being independent: give it back its own state first.
  for (ResourceId rid : route) {
    if (res_[rid].group != kNoGroup) ungroup(res_[rid].group);
  }
  const std::uint32_t slot = alloc_slot();
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
  f.tag = tag;
  f.repeats_left = 0;
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
    f.pos[i] = static_cast<std::uint32_t>(r.flows.size());
    r.flows.push_back(slot);
    r.st.transfers++;
    r.bytes_started += f.bytes;
    r.st.max_concurrent =
        std::max<std::uint32_t>(r.st.max_concurrent, static_cast<std::uint32_t>(r.flows.size()));
    if (!r.dirty) {
      r.dirty = true;
      dirty_.push_back(rid);
    }
  }
}

std::uint32_t FlowEngine::start_stream(double now_ns, const Route& route, std::uint64_t bytes,
                                       std::uint64_t count, void* tag) {
  if (bytes == 0 || route.empty()) {
    throw SimulationError(
        "a stream of transfers needs bytes > 0 and a route over at least one resource");
  }
  const std::uint32_t slot = start(now_ns, route, bytes, tag);
  flows_[slot].repeats_left = count > 1 ? count - 1 : 0;
  if (flows_[slot].repeats_left > 0) ++streams_;
  return slot;
}

void FlowEngine::restart(std::uint32_t slot, double now_ns) {
  // start() for the same route and bytes: ungroup what the route touches, take a new id, and
  // join the resources in the same order a callback's start() would (after this instant's
  // drain ends). Latency and credit cap depend on route and bytes only: they are unchanged.
  for (std::size_t i = 0; i < flows_[slot].route.size(); ++i) {
    const ResourceId rid = flows_[slot].route[i];  // ungroup() may grow flows_: index anew
    if (res_[rid].group != kNoGroup) ungroup(res_[rid].group);
  }
  Flow& f = flows_[slot];
  if (--f.repeats_left == 0) --streams_;
  f.id = next_id_++;
  f.finish_ns = kInf;
  f.heap_pos = kNotInHeap;
  f.remaining = static_cast<double>(f.bytes);
  f.rate = 0;
  f.t_ref = now_ns;
  f.start_ns = now_ns;
  f.state = State::Draining;
  join_resources(slot);
}

bool FlowEngine::only_internal_events_due(double now_ns) {
  const double due = now_ns + kTolNs;
  if (!arrivals_.empty() && arrivals_.top().t <= due) return false;
  clean_group_heaps();
  if (!group_drains_.empty() && group_drains_.top().t <= due) return false;
  if (!group_arrivals_.empty() && group_arrivals_.top().t <= due) return false;
  // A drain due now whose flow arrives by now too (zero latency) and does not restart.
  if (drain_heap_.empty()) return true;
  {
    // The usual case without the walk below: only the root is due (one flow ends).
    const Flow& root = flows_[drain_heap_[0].slot];
    if (root.finish_ns > due) return true;
    if (root.repeats_left == 0 && root.finish_ns + root.latency_ns <= due) return false;
    const std::size_t n = drain_heap_.size();
    if ((n < 2 || drain_heap_[1].finish_ns > due) && (n < 3 || drain_heap_[2].finish_ns > due))
      return true;
  }
  stack_.clear();
  stack_.push_back(0);
  while (!stack_.empty()) {
    const std::uint32_t i = stack_.back();
    stack_.pop_back();
    const Flow& f = flows_[drain_heap_[i].slot];
    if (f.finish_ns > due) continue;  // nor is any of its heap descendants
    if (f.repeats_left == 0 && f.finish_ns + f.latency_ns <= due) return false;
    for (std::uint32_t c = 2 * i + 1; c <= 2 * i + 2 && c < drain_heap_.size(); ++c)
      stack_.push_back(c);
  }
  return true;
}

void FlowEngine::integrate(Res& r, double now_ns) {
  const double dt = now_ns - r.t_ref;
  if (dt > 0) {
    r.st.bytes += r.sum_rate * dt;
    if (r.sum_rate > 0) r.busy_ps += round_count(dt * 1e3);
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
    set_sum_rate(rid, r.flows.empty() ? 0.0 : std::max(0.0, r.sum_rate - f.rate));
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
    arrivals.push_back({f.id, e.slot, f.start_ns, e.t, f.bytes, f.tag, 1});
    f.state = State::Free;
    free_slots_.push_back(e.slot);
    --active_;
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
  if (!params_.fast_paths || !any_route_idle(routes)) {
    // Without an idle route no flow of the batch can be grouped (starting flows only makes
    // resources busier), and start() one by one is what the analysis below would end in.
    for (std::size_t i = 0; i < routes.size(); ++i) start(now_ns, *routes[i], bytes[i], tag);
    return;
  }
  // Collective steps repeat the previous step's routes and sizes (a ring's 2(R-1) steps):
  // then the resource use counts and the lone rates of the last batch still hold.
  bool same = cache_mark_ == batch_counter_ && bytes == cache_bytes_;
  for (std::size_t i = 0; same && i < routes.size(); ++i) {
    const Route& route = *routes[i];
    same = route.size() == cache_off_[i + 1] - cache_off_[i] &&
           std::equal(route.begin(), route.end(), cache_res_.begin() + cache_off_[i]);
  }
  if (!same) {
    // Count how often the batch uses each resource (a resource used twice is shared).
    const std::uint64_t mark = ++batch_counter_;
    for (const Route* route : routes) {
      for (ResourceId rid : *route) {
        if (rid >= res_.size()) {  // let start() report it, at the same flow as without fast paths
          for (std::size_t i = 0; i < routes.size(); ++i) start(now_ns, *routes[i], bytes[i], tag);
          return;
        }
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
          constexpr std::size_t kMaxGroupsPerBatch =
              64;  // beyond this, distinct flows go one by one
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
  }
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
    for (std::size_t j = 0; j < f.route.size(); ++j) {
      Res& r = res_[f.route[j]];
      f.pos[j] = static_cast<std::uint32_t>(r.flows.size());
      r.flows.push_back(slot);
    }
    drain_set(slot, g.finish_ns);
  }
  g.state = State::Free;
  ++g.gen;
  free_groups_.push_back(gi);
}

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

void FlowEngine::allocate_mixed() {
  // Tiers with different arbitration in one component have no canonical max-min answer.
  // Greedy, in start order: a flow takes what is left on its fifo resources and its equal
  // share of what is left on its fair ones (remaining capacity / flows not yet served).
  for (ResourceId rid : comp_res_) {
    res_[rid].rem = specs_[rid].capacity_Bpns;
    res_[rid].unf = static_cast<std::uint32_t>(res_[rid].flows.size());
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
    for (ResourceId rid : f.route) {
      res_[rid].rem = std::max(0.0, res_[rid].rem - rate);
      if (res_[rid].unf > 0) --res_[rid].unf;
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
      for (std::uint32_t slot : res_[rid].flows) sum += flows_[slot].rate;
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

double FlowEngine::next_event_ns() {
  double t = kInf;
  if (!drain_heap_.empty()) t = drain_heap_.front().finish_ns;
  if (!arrivals_.empty()) t = std::min(t, arrivals_.top().t);
  if (!restarts_.empty()) t = std::min(t, restarts_.top().t);
  clean_group_heaps();
  if (!group_drains_.empty()) t = std::min(t, group_drains_.top().t);
  if (!group_arrivals_.empty()) t = std::min(t, group_arrivals_.top().t);
  return t;
}

}  // namespace ipusim
