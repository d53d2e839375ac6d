// Chunk-level network: the fabric between PacketLinks (routes, chunk and credit delivery) and
// the one event calendar.
#include "models/network/packet_engine.hpp"

#include <cmath>

#include "sim/errors.hpp"

namespace ipusim {

ResourceId PacketEngine::add_resource(const ResourceSpec& spec, const ResourceFlow& flow) {
  const auto id = static_cast<ResourceId>(links_.size());
  links_.emplace_back(id, spec, flow, static_cast<PacketFabric&>(*this));
  last_activation_ns_.push_back(-1.0);
  return id;
}

double PacketEngine::chunk_hops_of(const Route& route, std::uint64_t bytes) const {
  double n = 0;
  for (ResourceId r : route)
    n += std::ceil(static_cast<double>(bytes) / static_cast<double>(links_[r].chunk_bytes()));
  return n;
}

void PacketEngine::push(double t, EventKind kind, std::uint32_t a, std::uint32_t hop,
                        std::uint32_t size, FlowId id) {
  events_.push(Event{t, seq_++, id, kind, a, hop, size});
}

void PacketEngine::activate(ResourceId link, double t) {
  // Events are processed in time order: a link has no event before its last activation.
  if (last_activation_ns_[link] == t) return;
  last_activation_ns_[link] = t;
  ++link_activations_;
}

std::uint32_t PacketEngine::start(double now_ns, const Route& route, std::uint64_t bytes,
                                  void* tag) {
  const std::uint32_t slot =
      start_packet_flow(flows_, free_slots_, links_.size(), next_id_++, route, bytes, now_ns, tag);
  Flow& f = flows_[slot];
  ++active_;
  if (route.empty() || bytes == 0) {
    // Nothing to carry: the flow arrives after the route's latency (none for the same IPU).
    double lat = 0;
    for (ResourceId r : route) lat += links_[r].latency_ns();
    for (ResourceId r : route) links_[r].count_empty_transfer();
    push(now_ns + lat, EventKind::Complete, slot, 0, 0);
    return slot;
  }
  f.hops.resize(route.size());
  for (std::uint32_t h = 0; h < route.size(); ++h)
    f.hops[h] = links_[route[h]].join(f.id, slot, h, bytes, h == 0 ? bytes : 0);
  links_[route[0]].offer(now_ns, f.hops[0]);
  return slot;
}

void PacketEngine::serialising_until(double done_ns, ResourceId link) {
  push(done_ns, EventKind::LinkDone, link, 0, 0);
}

void PacketEngine::chunk_sent(double t_ns, ResourceId link, std::uint32_t slot, std::uint32_t hop,
                              std::uint32_t bytes) {
  ++chunk_hops_;
  const Flow& f = flows_[slot];
  push(t_ns + links_[link].latency_ns(), EventKind::ChunkArrive, slot, hop, bytes);
  // The chunk has left the buffer in front of this hop: its credit goes back upstream.
  if (hop > 0) {
    const PacketLink& up = links_[f.route[hop - 1]];
    if (up.credits_bytes() > 0)
      push(t_ns + up.latency_ns(), EventKind::CreditReturn, slot, hop - 1, bytes, f.id);
  }
}

void PacketEngine::finish(double t, std::uint32_t slot, std::vector<Arrival>* arrivals) {
  Flow& f = flows_[slot];
  if (arrivals) arrivals->push_back({f.id, slot, f.start_ns, t, f.bytes, f.tag, 1});
  for (std::size_t h = 0; h < f.hops.size(); ++h) links_[f.route[h]].leave(f.hops[h]);
  f.live = false;
  --active_;
  free_slots_.push_back(slot);
}

void PacketEngine::process(const Event& e, std::vector<Arrival>* arrivals) {
  switch (e.kind) {
    case EventKind::LinkDone:
      activate(e.a, e.t);
      links_[e.a].serialised(e.t);
      break;
    case EventKind::ChunkArrive: {
      Flow& f = flows_[e.a];
      const std::uint32_t last = static_cast<std::uint32_t>(f.route.size() - 1);
      if (e.hop == last) {
        // The destination consumes on arrival: the credit goes straight back.
        const PacketLink& l = links_[f.route[last]];
        activate(f.route[last], e.t);
        if (l.credits_bytes() > 0)
          push(e.t + l.latency_ns(), EventKind::CreditReturn, e.a, last, e.size, f.id);
        f.delivered += e.size;
        if (f.delivered == f.bytes) finish(e.t, e.a, arrivals);
        break;
      }
      const ResourceId next = f.route[e.hop + 1];
      activate(next, e.t);
      links_[next].arrived(e.t, f.hops[e.hop + 1], e.size);
      break;
    }
    case EventKind::CreditReturn: {
      Flow& f = flows_[e.a];
      if (!f.live || f.id != e.id) break;  // the flow has completed: nothing waits for this credit
      activate(f.route[e.hop], e.t);
      links_[f.route[e.hop]].credit(e.t, f.hops[e.hop], e.size);
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
