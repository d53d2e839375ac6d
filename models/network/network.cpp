// Network module: one SC_METHOD woken at the next completion time.
#include "models/network/network.hpp"

#include <algorithm>
#include <cmath>

#include "sim/sim_time.hpp"
#include "sim/trace.hpp"

namespace ipusim {

Network::Network(sc_core::sc_module_name name, const std::vector<ResourceSpec>& resources,
                 FlowEngineParams params)
    : sc_core::sc_module(name), engine_(params), wake_event_("wake_event") {
  for (const ResourceSpec& r : resources) engine_.add_resource(r);
  SC_METHOD(wake);
  sensitive << wake_event_;
  dont_initialize();
}

void Network::start(const TransferRequest& req, Callback on_arrival) {
  const std::uint32_t slot = engine_.start(now_ns(), req.route, req.bytes);
  if (callbacks_.size() <= slot) callbacks_.resize(slot + 1);
  callbacks_[slot] = std::move(on_arrival);
  // Batch: all starts of this delta cycle are allocated together in the next one.
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

void Network::transfer_batch(const std::vector<const Route*>& routes, const std::vector<std::uint64_t>& bytes) {
  if (routes.empty()) return;
  Batch batch;
  batch.pending = routes.size();
  // Batch flows arrive tagged with their Batch (a fast-path group arrives as one entry).
  engine_.start_batch(now_ns(), routes, bytes, &batch);
  if (!in_wake_ && !delta_pending_) {
    delta_pending_ = true;
    wake_event_.notify(sc_core::SC_ZERO_TIME);
  }
  sc_core::wait(batch.done);
}

void Network::wake() {
  ++wakeups_;
  delta_pending_ = false;
  in_wake_ = true;
  const double t = now_ns();
  for (;;) {
    arrivals_.clear();
    engine_.advance(t, arrivals_);
    // Take every callback out before running any: a callback may start a flow that reuses
    // the slot of a later arrival of the same batch.
    ready_.clear();
    for (const Arrival& a : arrivals_) {
      if (a.tag) {
        Batch* batch = static_cast<Batch*>(a.tag);
        batch->pending -= a.count;
        if (batch->pending == 0) batch->done.notify(sc_core::SC_ZERO_TIME);
        continue;
      }
      ready_.emplace_back(std::move(callbacks_[a.slot]), TransferResult{a.id, a.start_ns, a.end_ns, a.bytes});
      callbacks_[a.slot] = nullptr;
    }
    for (auto& [cb, result] : ready_) {
      if (cb) cb(result);
    }
    engine_.reallocate(t);
    const double next = engine_.next_event_ns();
    if (next > t + FlowEngine::kTolNs) break;
  }
  in_wake_ = false;
  if (TraceWriter::instance().enabled()) trace_utilisation(t);
  schedule_next();
}

void Network::trace_utilisation(double now) {
  // One counter track per resource kind: the fraction of the kind's total capacity in use,
  // written only when it changed (wakes come in time order, so the counters are monotonic).
  static const char* const kNames[FlowEngine::kNumKinds] = {"ipu_link", "gateway_link", "ddr",
                                                            "gw_link",  "gw_switch",    "host_link"};
  static const TraceTier kTiers[FlowEngine::kNumKinds] = {TraceTier::IpuLink, TraceTier::GwLink, TraceTier::Ddr,
                                                          TraceTier::GwLink,  TraceTier::GwLink, TraceTier::Host};
  for (std::size_t k = 0; k < FlowEngine::kNumKinds; ++k) {
    const auto kind = static_cast<ResourceKind>(k);
    const double cap = engine_.kind_capacity_Bpns(kind);
    if (cap <= 0) continue;
    const double u = engine_.kind_rate_Bpns(kind) / cap;
    if (u == traced_util_[k]) continue;
    traced_util_[k] = u;
    TraceWriter::instance().counter("utilisation", std::string(kNames[k]) + " utilisation", now, u, kTiers[k]);
  }
}

void Network::schedule_next() {
  const double next = engine_.next_event_ns();
  wake_event_.cancel();
  delta_pending_ = false;
  if (next == FlowEngine::kInf) return;
  const sc_core::sc_time target = ns_to_sc(next);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (target <= now) {
    delta_pending_ = true;
    wake_event_.notify(sc_core::SC_ZERO_TIME);
  } else {
    wake_event_.notify(target - now);
  }
}

ResourceStats Network::resource_stats(ResourceId id) const { return engine_.stats(id, now_ns()); }

void Network::collect_stats(Json& out) const {
  const double now = now_ns();
  out["flows"] = engine_.flows_started();
  out["wakeups"] = wakeups_;
  Json res = Json::object();
  for (ResourceId id = 0; id < engine_.num_resources(); ++id) {
    const ResourceStats s = engine_.stats(id, now);
    if (s.transfers == 0) continue;
    const ResourceSpec& spec = engine_.resource(id);
    const double util = now > 0 ? s.bytes / (spec.capacity_Bpns * now) : 0.0;
    // Bytes are integrated rate x time: round away the floating-point dust.
    res[spec.name] = {{"bytes", static_cast<std::uint64_t>(std::llround(s.bytes))},
                      {"busy_ns", s.busy_ns},
                      {"utilisation", util},
                      {"transfers", s.transfers},
                      {"max_concurrent", s.max_concurrent}};
  }
  out["resources"] = std::move(res);
}

}  // namespace ipusim
