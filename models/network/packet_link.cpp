// One packet-model resource: round-robin (or fifo) service of ready hops, credits of its far
// end's per-flow buffer, statistics.
#include "models/network/packet_link.hpp"

#include <algorithm>

#include "sim/errors.hpp"

namespace ipusim {

PacketLink::PacketLink(ResourceId id, const ResourceSpec& spec, const ResourceFlow& flow,
                       PacketFabric& fabric)
    : id_(id),
      fabric_(fabric),
      capacity_Bpns_(spec.capacity_Bpns),
      latency_ns_(spec.latency_ns),
      // A chunk's size travels in 32 bits; the registry caps chunk_bytes at 2^30.
      chunk_(flow.chunk_bytes),
      credits_(flow.credits_bytes),
      fifo_(flow.arbitration == Arbitration::Fifo) {
  if (chunk_ == 0)
    throw SimulationError("packet model: resource '" + spec.name + "' has no chunk size");
}

PacketLink::HopRef PacketLink::join(FlowId id, std::uint32_t slot, std::uint32_t hop,
                                    std::uint64_t bytes, std::uint64_t arrived) {
  HopRef ref;
  if (!free_.empty()) {
    ref = free_.back();
    free_.pop_back();
  } else {
    ref = static_cast<HopRef>(hops_.size());
    hops_.emplace_back();
  }
  Hop& h = hops_[ref];
  h = Hop{};
  h.id = id;
  h.slot = slot;
  h.hop = hop;
  h.bytes = bytes;
  h.arrived = arrived;
  st_.transfers++;
  active_++;
  st_.max_concurrent = std::max(st_.max_concurrent, active_);
  return ref;
}

void PacketLink::leave(HopRef ref) { free_.push_back(ref); }

std::uint64_t PacketLink::sendable(const Hop& h) const {
  const std::uint64_t left = h.bytes - h.sent;
  if (left == 0) return 0;
  const std::uint64_t c = std::min(chunk_, left);
  if (h.arrived - h.sent < c) return 0;                     // the chunk has not fully arrived
  if (credits_ > 0 && h.buffered + c > credits_) return 0;  // no room downstream
  return c;
}

void PacketLink::offer(double t_ns, HopRef ref) {
  Hop& h = hops_[ref];
  if (h.queued || sendable(h) == 0) return;
  if (!busy_) {
    send(t_ns, ref);
    return;
  }
  h.queued = true;
  if (fifo_) {
    by_id_.push(Ready{h.id, ref});
  } else {
    rr_.push_back(Ready{h.id, ref});
  }
}

void PacketLink::send(double t_ns, HopRef ref) {
  Hop& h = hops_[ref];
  const std::uint64_t c = sendable(h);
  h.sent += c;
  if (credits_ > 0) h.buffered += c;
  busy_ = true;
  cur_ = ref;
  cur_size_ = static_cast<std::uint32_t>(c);
  fabric_.serialising_until(t_ns + static_cast<double>(c) / capacity_Bpns_, id_);
}

void PacketLink::dispatch(double t_ns) {
  for (;;) {
    Ready next{0, 0};
    if (fifo_) {
      if (by_id_.empty()) return;
      next = by_id_.top();
      by_id_.pop();
    } else {
      if (rr_.empty()) return;
      next = rr_.front();
      rr_.pop_front();
    }
    Hop& h = hops_[next.ref];
    h.queued = false;
    // A queued hop stays ready: only this link's own sends take its bytes or credits.
    if (sendable(h) > 0) {
      send(t_ns, next.ref);
      return;
    }
  }
}

void PacketLink::serialised(double t_ns) {
  const HopRef ref = cur_;
  const std::uint32_t c = cur_size_;
  st_.bytes += c;
  st_.busy_ns += static_cast<double>(c) / capacity_Bpns_;
  const Hop& h = hops_[ref];
  fabric_.chunk_sent(t_ns, id_, h.slot, h.hop, c);
  if (h.sent == h.bytes) --active_;
  // Round robin: the flow that just sent queues behind the others that are waiting (the link
  // still counts as busy here, so it cannot jump the queue).
  offer(t_ns, ref);
  busy_ = false;
  dispatch(t_ns);
}

std::uint32_t start_packet_flow(std::vector<PacketFlow>& flows,
                                std::vector<std::uint32_t>& free_slots, std::size_t num_links,
                                FlowId id, const Route& route, std::uint64_t bytes, double now_ns,
                                void* tag) {
  for (std::size_t i = 0; i < route.size(); ++i) {
    if (route[i] >= num_links) throw SimulationError("flow route names an unknown resource");
    for (std::size_t j = 0; j < i; ++j) {
      if (route[j] == route[i]) throw SimulationError("flow route crosses a resource twice");
    }
  }
  std::uint32_t slot;
  if (!free_slots.empty()) {
    slot = free_slots.back();
    free_slots.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(flows.size());
    flows.emplace_back();
  }
  PacketFlow& f = flows[slot];
  f.id = id;
  f.route.assign(route.begin(), route.end());
  f.hops.clear();
  f.bytes = bytes;
  f.delivered = 0;
  f.sent_last = 0;
  f.posted_last = 0;
  f.sent_first = 0;
  f.report_departure = false;
  f.start_ns = now_ns;
  f.tag = tag;
  f.live = true;
  return slot;
}

}  // namespace ipusim
