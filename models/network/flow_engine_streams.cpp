// Streams: back-to-back repeats of one transfer restarting inside the engine, and the check
// that lets the network run internal instants ahead of SystemC.
#include "models/network/flow_engine.hpp"
#include "sim/errors.hpp"

namespace ipusim {

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
  if (!departures_.empty() && departures_.top().t <= due) return false;
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

}  // namespace ipusim
