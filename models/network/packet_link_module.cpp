// Packet links as modules: one calendar and one SC_METHOD per link.
#include "models/network/packet_link_module.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "models/network/network.hpp"
#include "sim/sim_time.hpp"

namespace ipusim {

void PacketFlowTable::finish(double t_ns, std::uint32_t slot) {
  Flow& f = flows[slot];
  completed.push_back({f.id, slot, f.start_ns, t_ns, f.bytes, f.tag, 1});
  for (std::size_t h = 0; h < f.hops.size(); ++h) links[f.route[h]]->link().leave(f.hops[h]);
  f.live = false;
  --active;
  free_slots.push_back(slot);
  if (on_complete) on_complete();
}

void PacketFlowTable::depart(double t_ns, std::uint32_t slot) {
  const Flow& f = flows[slot];
  Arrival a{f.id, slot, f.start_ns, t_ns, f.bytes, f.tag, 1};
  a.departed = true;
  completed.push_back(a);
  if (on_complete) on_complete();
}

PacketLinkModule::PacketLinkModule(sc_core::sc_module_name name, ResourceId id,
                                   const ResourceSpec& spec, const ResourceFlow& flow,
                                   PacketFlowTable& table)
    : sc_core::sc_module(name),
      id_(id),
      capacity_Bpns_(spec.capacity_Bpns),
      link_(id, spec, flow, static_cast<PacketFabric&>(*this)),
      table_(table),
      wake_("wake") {
  SC_METHOD(run);
  sensitive << wake_;
  dont_initialize();
}

void PacketLinkModule::collect_stats(Json& out) const {
  write_resource_stats(out, link_.stats(), capacity_Bpns_, now_ns());
}

void PacketLinkModule::push(Event e) {
  // Inside a link's activation the instant and delta are the ones it runs at (asking the
  // kernel for them per event cost more than the event); outside (a flow started by the
  // Network) ask the kernel.
  if (table_.running) {
    e.posted_ps = table_.now_ps;
    e.posted_delta = table_.delta;
  } else {
    e.posted_ps = sc_core::sc_time_stamp().value();
    e.posted_delta = sc_core::sc_delta_count();
  }
  // The link's own activation asks for its next wake once, at its end (schedule_wake()): a
  // wake asked for here could be replaced by an earlier one before the activation ends, and
  // SystemC keeps every replaced timed notification in its queue until its time.
  if (e.kind == EventKind::CreditReturn || e.kind == EventKind::ChunkArrive) {
    lazy_.push(e);
    // A busy link ends its serialisation (an event of its own) before it can send again; if
    // it turns idle first, schedule_wake() at the end of that activation asks for this event.
    if (!running_ && !link_.busy()) notify_for(e.t);
    return;
  }
  calendar_.push(e);
  if (!running_) notify_for(e.t);
}

void PacketLinkModule::schedule_wake() {
  // While busy the calendar holds at least this link's end of serialisation.
  if (!calendar_.empty()) notify_for(calendar_.top().t);
  if (!link_.busy() && !lazy_.empty()) notify_for(lazy_.top().t);
}

void PacketLinkModule::notify_for(double t_ns) {
  // An sc_event keeps only its earliest pending notification: skip the later ones.
  const auto at_ps = static_cast<std::uint64_t>(std::llround(t_ns * 1000.0));
  const std::uint64_t now_ps = table_.running ? table_.now_ps : sc_core::sc_time_stamp().value();
  if (wake_ps_ != kNoWake && wake_ps_ >= now_ps && at_ps >= wake_ps_) return;
  wake_ps_ = std::max(at_ps, now_ps);
  if (at_ps <= now_ps) {
    wake_.notify(sc_core::SC_ZERO_TIME);
  } else {
    wake_.notify(sc_core::sc_time::from_value(at_ps - now_ps));
  }
}

void PacketLinkModule::post(double t_ns, Kind kind, std::uint32_t slot, std::uint32_t hop,
                            std::uint32_t size, FlowId id, ResourceId origin, std::uint64_t seq) {
  const EventKind k = kind == Kind::ChunkArrive ? EventKind::ChunkArrive
                      : kind == Kind::Deliver   ? EventKind::Deliver
                      : kind == Kind::Depart    ? EventKind::Depart
                                                : EventKind::CreditReturn;
  push(Event{t_ns, 0, 0, origin, seq, k, slot, hop, size, id});
}

void PacketLinkModule::serialising_until(double done_ns, ResourceId) {
  push(Event{done_ns, 0, 0, id_, posted_++, EventKind::LinkDone, 0, 0, 0, 0});
}

void PacketLinkModule::chunk_sent(double t_ns, ResourceId, std::uint32_t slot, std::uint32_t hop,
                                  std::uint32_t bytes) {
  ++table_.chunk_hops;
  PacketFlowTable::Flow& f = table_.flows[slot];
  const double arrive_ns = t_ns + link_.latency_ns();
  // The source's last chunk is out once the first hop has sent it and its latency (the
  // source's access) has passed: posted before a Deliver of the same instant, so reported first.
  if (hop == 0 && f.report_departure) {
    f.sent_first += bytes;
    if (f.sent_first == f.bytes) post(arrive_ns, Kind::Depart, slot, 0, 0, f.id, id_, posted_++);
  }
  if (hop + 1 < f.route.size()) {
    table_.links[f.route[hop + 1]]->post(arrive_ns, Kind::ChunkArrive, slot, hop + 1, bytes, f.id,
                                         id_, posted_++);
  } else {
    f.sent_last += bytes;
    if (link_.credits_bytes() > 0 || f.sent_last == f.bytes) {
      post(arrive_ns, Kind::Deliver, slot, hop,
           static_cast<std::uint32_t>(f.sent_last - f.posted_last), f.id, id_, posted_++);
      f.posted_last = f.sent_last;
    }
  }
  // The chunk has left the buffer in front of this hop: its credit goes back upstream.
  if (hop > 0) {
    PacketLinkModule& up = *table_.links[f.route[hop - 1]];
    if (up.link().credits_bytes() > 0)
      up.post(t_ns + up.link().latency_ns(), Kind::CreditReturn, slot, hop - 1, bytes, f.id, id_,
              posted_++);
  }
}

void PacketLinkModule::run() {
  ++table_.activations;
  wake_ps_ = kNoWake;
  const std::uint64_t now_ps = sc_core::sc_time_stamp().value();
  const std::uint64_t delta = sc_core::sc_delta_count();
  const double now_ns = static_cast<double>(now_ps) * 1e-3;
  running_ = true;
  table_.running = true;
  table_.now_ps = now_ps;
  table_.delta = delta;
  for (;;) {
    // The two queues merged: the next event in (time, posting) order.
    const bool from_lazy = !lazy_.empty() && (calendar_.empty() || calendar_.top() > lazy_.top());
    auto& queue = from_lazy ? lazy_ : calendar_;
    if (queue.empty()) break;
    const Event& top = queue.top();
    if (top.t > now_ns + FlowEngine::kTolNs) break;
    // Posted at this very instant and delta: left for the next delta, whatever the order in
    // which SystemC ran this link and the poster.
    if (top.posted_ps == now_ps && top.posted_delta == delta) break;
    const Event e = top;
    queue.pop();
    process(e);
  }
  running_ = false;
  schedule_wake();
  table_.running = false;
}

void PacketLinkModule::process(const Event& e) {
  PacketFlowTable::Flow& f = table_.flows[e.slot];
  switch (e.kind) {
    case EventKind::LinkDone:
      link_.serialised(e.t);
      break;
    case EventKind::ChunkArrive:
      link_.arrived(e.t, f.hops[e.hop], e.size);
      break;
    case EventKind::Deliver:
      // The destination consumes on arrival: the credit goes straight back.
      if (link_.credits_bytes() > 0)
        post(e.t + link_.latency_ns(), Kind::CreditReturn, e.slot, e.hop, e.size, f.id, id_,
             posted_++);
      f.delivered += e.size;
      if (f.delivered == f.bytes) table_.finish(e.t, e.slot);
      break;
    case EventKind::CreditReturn:
      if (!f.live || f.id != e.id) break;  // the flow has completed: nothing waits for it
      link_.credit(e.t, f.hops[e.hop], e.size);
      break;
    case EventKind::Depart:
      table_.depart(e.t, e.slot);
      break;
  }
}

}  // namespace ipusim
