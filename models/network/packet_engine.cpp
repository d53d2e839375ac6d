// Chunk-level network: round-robin (or fifo) links, per-flow receiver buffers with credits.
#include "models/network/packet_engine.hpp"

#include <algorithm>
#include <cmath>

#include "sim/errors.hpp"

namespace ipusim {

ResourceId PacketEngine::add_resource(const ResourceSpec& spec, const ResourceFlow& flow) {
  if (flow.chunk_bytes == 0)
    throw SimulationError("packet model: resource '" + spec.name + "' has no chunk size");
  Link l;
  l.capacity_Bpns = spec.capacity_Bpns;
  l.latency_ns = spec.latency_ns;
  // A chunk's size travels in 32 bits; the registry caps chunk_bytes at 2^30.
  l.chunk = flow.chunk_bytes;
  l.credits = flow.credits_bytes;
  l.fifo = flow.arbitration == Arbitration::Fifo;
  links_.push_back(std::move(l));
  return static_cast<ResourceId>(links_.size() - 1);
}

double PacketEngine::chunk_hops_of(const Route& route, std::uint64_t bytes) const {
  double n = 0;
  for (ResourceId r : route)
    n += std::ceil(static_cast<double>(bytes) / static_cast<double>(links_[r].chunk));
  return n;
}

void PacketEngine::push(double t, EventKind kind, std::uint32_t a, std::uint32_t hop,
                        std::uint32_t size, FlowId id) {
  events_.push(Event{t, seq_++, id, kind, a, hop, size});
}

std::uint32_t PacketEngine::start(double now_ns, const Route& route, std::uint64_t bytes,
                                  void* tag) {
  for (std::size_t i = 0; i < route.size(); ++i) {
    if (route[i] >= links_.size()) throw SimulationError("flow route names an unknown resource");
    for (std::size_t j = 0; j < i; ++j) {
      if (route[j] == route[i]) throw SimulationError("flow route crosses a resource twice");
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
  f.route.assign(route.begin(), route.end());
  f.hops.assign(route.size(), Hop{});
  f.bytes = bytes;
  f.delivered = 0;
  f.start_ns = now_ns;
  f.tag = tag;
  f.live = true;
  ++active_;
  if (route.empty() || bytes == 0) {
    // Nothing to carry: the flow arrives after the route's latency (none for the same IPU).
    double lat = 0;
    for (ResourceId r : route) lat += links_[r].latency_ns;
    for (ResourceId r : route) links_[r].st.transfers++;
    push(now_ns + lat, EventKind::Complete, slot, 0, 0);
    return slot;
  }
  f.hops[0].arrived = bytes;
  for (ResourceId r : route) {
    Link& l = links_[r];
    l.st.transfers++;
    l.active++;
    l.st.max_concurrent = std::max(l.st.max_concurrent, l.active);
  }
  offer(now_ns, slot, 0);
  return slot;
}

std::uint64_t PacketEngine::sendable(std::uint32_t slot, std::uint32_t h) const {
  const Flow& f = flows_[slot];
  const Hop& hop = f.hops[h];
  const Link& l = links_[f.route[h]];
  const std::uint64_t left = f.bytes - hop.sent;
  if (left == 0) return 0;
  const std::uint64_t c = std::min(l.chunk, left);
  if (hop.arrived - hop.sent < c) return 0;  // the chunk has not fully arrived yet
  if (l.credits > 0 && hop.buffered + c > l.credits) return 0;  // no room downstream
  return c;
}

void PacketEngine::offer(double t, std::uint32_t slot, std::uint32_t h) {
  Flow& f = flows_[slot];
  Hop& hop = f.hops[h];
  if (hop.queued || sendable(slot, h) == 0) return;
  const ResourceId r = f.route[h];
  Link& l = links_[r];
  if (!l.busy) {
    send(t, r, slot, h);
    return;
  }
  hop.queued = true;
  if (l.fifo) {
    l.by_id.push(Ready{f.id, slot, h});
  } else {
    l.rr.push_back(Ready{f.id, slot, h});
  }
}

void PacketEngine::send(double t, ResourceId r, std::uint32_t slot, std::uint32_t h) {
  Flow& f = flows_[slot];
  Hop& hop = f.hops[h];
  Link& l = links_[r];
  const std::uint64_t c = sendable(slot, h);
  hop.sent += c;
  if (l.credits > 0) hop.buffered += c;
  l.busy = true;
  l.cur_slot = slot;
  l.cur_hop = h;
  l.cur_size = static_cast<std::uint32_t>(c);
  push(t + static_cast<double>(c) / l.capacity_Bpns, EventKind::LinkDone, r, 0, 0);
}

void PacketEngine::dispatch(double t, ResourceId r) {
  Link& l = links_[r];
  for (;;) {
    Ready next{0, 0, 0};
    if (l.fifo) {
      if (l.by_id.empty()) return;
      next = l.by_id.top();
      l.by_id.pop();
    } else {
      if (l.rr.empty()) return;
      next = l.rr.front();
      l.rr.pop_front();
    }
    flows_[next.slot].hops[next.hop].queued = false;
    // A queued hop stays ready: only this resource's own sends take its bytes or credits.
    if (sendable(next.slot, next.hop) > 0) {
      send(t, r, next.slot, next.hop);
      return;
    }
  }
}

void PacketEngine::finish(double t, std::uint32_t slot, std::vector<Arrival>* arrivals) {
  Flow& f = flows_[slot];
  if (arrivals) arrivals->push_back({f.id, slot, f.start_ns, t, f.bytes, f.tag, 1});
  f.live = false;
  --active_;
  free_slots_.push_back(slot);
}

void PacketEngine::process(const Event& e, std::vector<Arrival>* arrivals) {
  switch (e.kind) {
    case EventKind::LinkDone: {
      Link& l = links_[e.a];
      const std::uint32_t slot = l.cur_slot, h = l.cur_hop, c = l.cur_size;
      l.st.bytes += c;
      l.st.busy_ns += static_cast<double>(c) / l.capacity_Bpns;
      ++chunk_hops_;
      Flow& f = flows_[slot];
      push(e.t + l.latency_ns, EventKind::ChunkArrive, slot, h, c);
      // The chunk has left the buffer in front of this hop: its credit goes back upstream.
      if (h > 0 && links_[f.route[h - 1]].credits > 0) {
        push(e.t + links_[f.route[h - 1]].latency_ns, EventKind::CreditReturn, slot, h - 1, c,
             f.id);
      }
      if (f.hops[h].sent == f.bytes) --l.active;
      // Round robin: the flow that just sent queues behind the others that are waiting (the
      // resource still counts as busy here, so it cannot jump the queue).
      offer(e.t, slot, h);
      l.busy = false;
      dispatch(e.t, e.a);
      break;
    }
    case EventKind::ChunkArrive: {
      Flow& f = flows_[e.a];
      const std::uint32_t last = static_cast<std::uint32_t>(f.route.size() - 1);
      if (e.hop == last) {
        // The destination consumes on arrival: the credit goes straight back.
        if (links_[f.route[last]].credits > 0) {
          push(e.t + links_[f.route[last]].latency_ns, EventKind::CreditReturn, e.a, last, e.size,
               f.id);
        }
        f.delivered += e.size;
        if (f.delivered == f.bytes) finish(e.t, e.a, arrivals);
        break;
      }
      f.hops[e.hop + 1].arrived += e.size;
      offer(e.t, e.a, e.hop + 1);
      break;
    }
    case EventKind::CreditReturn: {
      Flow& f = flows_[e.a];
      if (!f.live || f.id != e.id) break;  // the flow has completed: nothing waits for this credit
      f.hops[e.hop].buffered -= e.size;
      offer(e.t, e.a, e.hop);
      break;
    }
    case EventKind::Complete:
      finish(e.t, e.a, arrivals);
      break;
  }
}

void PacketEngine::advance(double now_ns, std::vector<Arrival>& arrivals) {
  while (!events_.empty() && events_.top().t <= now_ns + kTolNs) {
    const Event e = events_.top();
    events_.pop();
    process(e, &arrivals);
  }
}

void PacketEngine::run_ahead(double horizon_ns) {
  while (!events_.empty() && events_.top().t < horizon_ns) {
    const Event& top = events_.top();
    if (top.kind == EventKind::Complete) return;
    if (top.kind == EventKind::ChunkArrive) {
      const Flow& f = flows_[top.a];
      if (top.hop + 1 == f.route.size() && f.delivered + top.size == f.bytes)
        return;  // completes a flow
    }
    const Event e = top;
    events_.pop();
    process(e, nullptr);
  }
}

}  // namespace ipusim
