// Network module: one SC_METHOD woken at the next completion time (fluid) or at the next
// flow completion or outside activity (packet).
#include "models/network/network.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/errors.hpp"
#include "sim/sim_time.hpp"
#include "sim/trace.hpp"

namespace ipusim {

Network::Network(sc_core::sc_module_name name, const std::vector<ResourceSpec>& resources,
                 FlowEngineParams params, NetworkOptions options)
    : sc_core::sc_module(name), engine_(params), options_(options), wake_event_("wake_event") {
  for (const ResourceSpec& r : resources) engine_.add_resource(r);
  if (options_.model == NetworkModel::Packet) {
    packet_ = std::make_unique<PacketEngine>();
    for (ResourceId id = 0; id < engine_.num_resources(); ++id) {
      packet_->add_resource(engine_.resource(id), engine_.flow_control(id));
    }
  }
  SC_METHOD(wake);
  sensitive << wake_event_;
  dont_initialize();
}

bool Network::admit(double chunk_hops) {
  if (!refusal_.empty()) return false;
  planned_chunk_hops_ += chunk_hops;
  if (planned_chunk_hops_ <= options_.max_chunk_hops) return true;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.3g chunk hops by simulated time %.0f ns", planned_chunk_hops_,
                now_ns());
  refusal_ = std::string("/sim/network_model: packet: the transfers started need an estimated ") +
             buf +
             " (sum over transfers of hops x bytes / chunk_bytes of each hop's tier), above "
             "/sim/packet_max_chunk_hops = " +
             std::to_string(static_cast<unsigned long long>(options_.max_chunk_hops)) +
             ". Use sim.network_model=fluid for a system or message this large, raise the tiers' "
             "chunk_bytes "
             "(e.g. --set ipu_link.chunk_bytes=4096), or raise sim.packet_max_chunk_hops";
  sc_core::sc_stop();
  return false;
}

void Network::start(const TransferRequest& req, Callback on_arrival) {
  std::uint32_t slot;
  if (packet_) {
    if (!admit(packet_->chunk_hops_of(req.route, req.bytes))) return;
    slot = packet_->start(now_ns(), req.route, req.bytes);
  } else {
    rebase_if_idle();
    slot = engine_.start(engine_now_ns(), req.route, req.bytes);
  }
  if (callbacks_.size() <= slot) callbacks_.resize(slot + 1);
  callbacks_[slot] = std::move(on_arrival);
  // Batch: all starts of this delta cycle are allocated together in the next one.
  if (!in_wake_ && !delta_pending_) {
    delta_pending_ = true;
    wake_event_.notify(sc_core::SC_ZERO_TIME);
  }
}

void Network::start_stream(const TransferRequest& req, std::uint64_t count,
                           Callback on_last_arrival) {
  if (packet_) throw SimulationError("Network::start_stream: the packet model has no streams");
  rebase_if_idle();
  const std::uint32_t slot = engine_.start_stream(engine_now_ns(), req.route, req.bytes, count);
  if (callbacks_.size() <= slot) callbacks_.resize(slot + 1);
  callbacks_[slot] = std::move(on_last_arrival);
  if (!in_wake_ && !delta_pending_) {
    delta_pending_ = true;
    wake_event_.notify(sc_core::SC_ZERO_TIME);
  }
}

TransferResult Network::transfer(const TransferRequest& req) { return transfer_all({req}).front(); }

std::vector<TransferResult> Network::transfer_all(const std::vector<TransferRequest>& reqs) {
  std::vector<TransferResult> results(reqs.size());
  if (reqs.empty()) return results;
  std::size_t pending = reqs.size();
  sc_core::sc_event done;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    start(reqs[i], [&results, &pending, &done, i](const TransferResult& r) {
      results[i] = r;
      if (--pending == 0) done.notify(sc_core::SC_ZERO_TIME);
    });
  }
  sc_core::wait(done);
  return results;
}

void Network::transfer_batch(const std::vector<const Route*>& routes,
                             const std::vector<std::uint64_t>& bytes) {
  if (routes.empty()) return;
  Batch batch;
  batch.pending = routes.size();
  if (packet_) {
    double hops = 0;
    for (std::size_t i = 0; i < routes.size(); ++i)
      hops += packet_->chunk_hops_of(*routes[i], bytes[i]);
    if (!admit(hops)) {
      sc_core::wait(batch.done);  // never notified: the run has been stopped
      return;
    }
    for (std::size_t i = 0; i < routes.size(); ++i)
      packet_->start(now_ns(), *routes[i], bytes[i], &batch);
  } else {
    // Batch flows arrive tagged with their Batch (a fast-path group arrives as one entry).
    rebase_if_idle();
    engine_.start_batch(engine_now_ns(), routes, bytes, &batch);
  }
  if (!in_wake_ && !delta_pending_) {
    delta_pending_ = true;
    wake_event_.notify(sc_core::SC_ZERO_TIME);
  }
  sc_core::wait(batch.done);
}

double Network::next_event_ns() {
  return packet_ ? packet_->next_event_ns() : engine_.next_event_ns();
}

double Network::engine_now_ns() const {
  return static_cast<double>(sc_core::sc_time_stamp().value() - origin_ps_) * 1e-3;
}

bool Network::idle() {
  return !packet_ && engine_.active_flows() == 0 && engine_.next_event_ns() == FlowEngine::kInf;
}

void Network::rebase_if_idle() {
  // Idle, every resource's total rate is 0, so the engine's per-resource reference times
  // carry no state that a new origin could change (integrate() skips negative intervals).
  if (in_wake_ || !idle()) return;
  origin_ps_ = sc_core::sc_time_stamp().value();
}

void Network::deliver_arrivals() {
  // Take every callback out before running any: a callback may start a flow that reuses the
  // slot of a later arrival of the same batch.
  ready_.clear();
  for (const Arrival& a : arrivals_) {
    if (a.tag) {
      Batch* batch = static_cast<Batch*>(a.tag);
      batch->pending -= a.count;
      if (batch->pending == 0) batch->done.notify(sc_core::SC_ZERO_TIME);
      continue;
    }
    const double origin_ns = static_cast<double>(origin_ps_) * 1e-3;  // 0 in the packet model
    ready_.emplace_back(
        std::move(callbacks_[a.slot]),
        TransferResult{a.id, origin_ns + a.start_ns, origin_ns + a.end_ns, a.bytes});
    callbacks_[a.slot] = nullptr;
  }
  for (auto& [cb, result] : ready_) {
    if (cb) cb(result);
  }
}

void Network::wake_packet() {
  const double t = now_ns();
  for (;;) {
    arrivals_.clear();
    packet_->advance(t, arrivals_);
    if (arrivals_.empty()) break;
    // Callbacks may start flows now (zero-latency ones complete at once: loop).
    deliver_arrivals();
  }
  // Chunk hops before the next outside activity (or flow completion) cannot be observed by
  // anyone: run them now instead of waking SystemC for each.
  const sc_core::sc_time idle =
      sc_core::sc_time_to_pending_activity(sc_core::sc_get_curr_simcontext());
  packet_->run_ahead(t + static_cast<double>(idle.value()) * 1e-3);
}

void Network::wake() {
  ++wakeups_;
  if (packet_) {
    delta_pending_ = false;
    in_wake_ = true;
    wake_packet();
    in_wake_ = false;
    schedule_next();
    return;
  }
  delta_pending_ = false;
  in_wake_ = true;
  const double t = engine_now_ns();
  for (;;) {
    arrivals_.clear();
    engine_.advance(t, arrivals_);
    deliver_arrivals();
    engine_.reallocate(t);
    const double next = engine_.next_event_ns();
    if (next > t + FlowEngine::kTolNs) break;
  }
  if (TraceWriter::instance().enabled()) trace_utilisation(now_ns());
  const std::uint64_t resume_ps = engine_.active_streams() > 0 ? run_ahead() : kNoResume;
  in_wake_ = false;
  if (resume_ps == kNoResume) return schedule_next();
  wake_event_.cancel();
  delta_pending_ = false;
  wake_event_.notify(sc_core::sc_time(
      static_cast<double>(origin_ps_ + resume_ps - sc_core::sc_time_stamp().value()),
      sc_core::SC_PS));
}

std::uint64_t Network::run_ahead() {
  // Up to the next activity of any other process, nobody can start a flow or observe one, so
  // instants where no arrival is due (drain ends, stream restarts) need no SystemC wake: run
  // them here at the times schedule_next() would wake at (ns_to_sc rounds to whole ps).
  const std::uint64_t now_ps = sc_core::sc_time_stamp().value() - origin_ps_;
  const std::uint64_t idle_ps =
      sc_core::sc_time_to_pending_activity(sc_core::sc_get_curr_simcontext()).value();
  const std::uint64_t horizon_ps = idle_ps > kNoResume - now_ps ? kNoResume : now_ps + idle_ps;
  // At most this many instants per wake: SystemC then runs, so run limits and progress see time
  // pass.
  constexpr int kMaxInstants = 1 << 16;
  double next = engine_.next_event_ns();  // then carried over from the instant before
  const bool tracing = TraceWriter::instance().enabled();
  for (int i = 0; i < kMaxInstants; ++i) {
    if (next == FlowEngine::kInf) break;
    const auto t_ps = static_cast<std::uint64_t>(static_cast<long long>(next * 1000.0 + 0.5));
    // Strictly before the horizon: at it, SystemC's process order decides who goes first.
    if (t_ps >= horizon_ps || !engine_.only_internal_events_due(static_cast<double>(t_ps) * 1e-3))
      break;
    const double t = static_cast<double>(t_ps) * 1e-3;
    for (;;) {  // wake()'s loop at t
      arrivals_.clear();
      engine_.advance(t, arrivals_);  // appends nothing: checked above
      engine_.reallocate(t);
      next = engine_.next_event_ns();
      if (next > t + FlowEngine::kTolNs) break;
      if (!engine_.only_internal_events_due(t)) return t_ps;
    }
    if (tracing) trace_utilisation(static_cast<double>(origin_ps_ + t_ps) * 1e-3);
  }
  return kNoResume;
}

void Network::trace_utilisation(double now) {
  // One counter track per resource kind: the fraction of the kind's total capacity in use,
  // written only when it changed (wakes come in time order, so the counters are monotonic).
  static const char* const kNames[FlowEngine::kNumKinds] = {
      "ipu_link", "gateway_link", "ddr", "gw_link", "gw_switch", "host_link"};
  static const TraceTier kTiers[FlowEngine::kNumKinds] = {TraceTier::IpuLink, TraceTier::GwLink,
                                                          TraceTier::Ddr,     TraceTier::GwLink,
                                                          TraceTier::GwLink,  TraceTier::Host};
  for (std::size_t k = 0; k < FlowEngine::kNumKinds; ++k) {
    const auto kind = static_cast<ResourceKind>(k);
    const double cap = engine_.kind_capacity_Bpns(kind);
    if (cap <= 0) continue;
    const double u = engine_.kind_rate_Bpns(kind) / cap;
    if (u == traced_util_[k]) continue;
    traced_util_[k] = u;
    TraceWriter::instance().counter("utilisation", std::string(kNames[k]) + " utilisation", now, u,
                                    kTiers[k]);
  }
}

void Network::schedule_next() {
  const double next = next_event_ns();
  wake_event_.cancel();
  delta_pending_ = false;
  if (next == FlowEngine::kInf) return;
  // The fluid engine's times count from origin_ps_ (0 in the packet model).
  const sc_core::sc_time target =
      ns_to_sc(next) + sc_core::sc_time(static_cast<double>(origin_ps_), sc_core::SC_PS);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (target <= now) {
    delta_pending_ = true;
    wake_event_.notify(sc_core::SC_ZERO_TIME);
  } else {
    wake_event_.notify(target - now);
  }
}

void Network::credit_replay(std::uint64_t flows, std::uint64_t wakeups,
                            const std::vector<std::pair<ResourceId, ResourceStats>>& resources) {
  engine_.credit_flows(flows);
  wakeups_ += wakeups;
  for (const auto& [id, delta] : resources) engine_.credit_stats(id, delta);
}

ResourceStats Network::resource_stats(ResourceId id) const {
  return packet_ ? packet_->stats(id) : engine_.stats(id, engine_now_ns());
}

void write_resource_stats(Json& out, const ResourceStats& s, double capacity_Bpns, double now_ns) {
  if (s.transfers == 0) return;
  // Bytes and busy time are integrated rate x time in the fluid model: round away the
  // floating-point dust (to whole bytes and to the kernel's 1 ps), so the figures do not depend
  // on the order of the sums (a collective replayed from the executor's cache adds its
  // original's totals at once; playing it again adds them step by step).
  const double bytes = static_cast<double>(std::llround(s.bytes));
  out["bytes"] = static_cast<std::uint64_t>(bytes);
  out["busy_ns"] = static_cast<double>(std::llround(s.busy_ns * 1000.0)) / 1000.0;
  out["utilisation"] = now_ns > 0 ? bytes / (capacity_Bpns * now_ns) : 0.0;
  out["transfers"] = s.transfers;
  out["max_concurrent"] = s.max_concurrent;
}

void Network::collect_stats(Json& out) const {
  out["model"] = to_string(options_.model);
  out["flows"] = packet_ ? packet_->flows_started() : engine_.flows_started();
  // Wake-ups are a simulator-speed figure (wakeups()), not a result: a collective replayed
  // from the executor's cache gives the same result with fewer, so they stay out of the report.
  if (packet_) out["chunk_hops"] = packet_->chunk_hops();
  if (report_resources_) {
    const double now = now_ns();
    Json res = Json::object();
    // Resource names are unique: append to the ordered object directly instead of looking
    // each name up (operator[] scans the object: quadratic in the resources used, most of the
    // wall time of a 4096-IPU collective). Same keys in the same order.
    auto& entries = res.get_ref<Json::object_t&>();
    for (ResourceId id = 0; id < engine_.num_resources(); ++id) {
      Json r = Json::object();
      write_resource_stats(r, resource_stats(id), engine_.resource(id).capacity_Bpns, now);
      if (!r.empty()) entries.emplace_back(engine_.resource(id).name, std::move(r));
    }
    out["resources"] = std::move(res);
  }
}

}  // namespace ipusim
