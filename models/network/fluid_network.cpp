// The `fluid` network model: the FlowEngine's max-min sharing behind the NetworkEngine
// interface, with the time-origin replay, streams and run-ahead it supports.
#include <memory>

#include "models/network/network_engine.hpp"
#include "sim/trace.hpp"

namespace ipusim {
namespace {

/// Flow-level model: one global max-min solver (sharing is global by nature).
class FluidNetwork final : public NetworkEngine {
 public:
  explicit FluidNetwork(FlowEngine& engine) : engine_(engine) {
    // Only trace counters read the per-kind rate sums (trace_utilisation()).
    engine_.keep_kind_rates(TraceWriter::instance().enabled());
  }

  const char* name() const override { return "fluid"; }
  bool can_replay() const override { return true; }
  bool can_stream() const override { return true; }

  std::uint32_t start(double now_ns, const Route& route, std::uint64_t bytes, void* tag) override {
    return engine_.start(now_ns, route, bytes, tag);
  }
  void report_departure(std::uint32_t slot) override { engine_.report_departure(slot); }
  std::uint32_t start_stream(double now_ns, const Route& route, std::uint64_t bytes,
                             std::uint64_t count, void* tag) override {
    return engine_.start_stream(now_ns, route, bytes, count, tag);
  }
  void start_batch(double now_ns, const std::vector<const Route*>& routes,
                   const std::vector<std::uint64_t>& bytes, void* tag) override {
    // Batch flows arrive tagged (a fast-path group arrives as one entry).
    engine_.start_batch(now_ns, routes, bytes, tag);
  }
  bool idle() override {
    return engine_.active_flows() == 0 && engine_.next_event_ns() == FlowEngine::kInf;
  }
  double next_event_ns() override { return engine_.next_event_ns(); }
  std::uint64_t run(std::uint64_t now_ps, std::uint64_t origin_ps, NetworkHost& host) override;

  ResourceStats resource_stats(ResourceId id, double now_ns) const override {
    return engine_.stats(id, now_ns);
  }
  std::uint64_t flows_started() const override { return engine_.flows_started(); }
  void credit_replay(std::uint64_t flows,
                     const std::vector<std::pair<ResourceId, ResourceStats>>& resources) override {
    engine_.credit_flows(flows);
    for (const auto& [id, delta] : resources) engine_.credit_stats(id, delta);
  }

 private:
  /// While streams run: processes the engine's instants that concern no one else (drain
  /// ends, stream restarts) before any other process's next activity, exactly as the wakes
  /// SystemC would give them. Returns the engine time (ps) of an instant it had to leave half
  /// done (an arrival became due in it), which a wake must resume at exactly that time; else
  /// kNoResume.
  std::uint64_t run_ahead(std::uint64_t now_ps, std::uint64_t origin_ps, NetworkHost& host);
  /// Trace counters: utilisation of each resource kind after a wake.
  void trace_utilisation(double now);

  FlowEngine& engine_;
  std::vector<Arrival> arrivals_;  // scratch
  double traced_util_[FlowEngine::kNumKinds] = {};
};

std::uint64_t FluidNetwork::run(std::uint64_t now_ps, std::uint64_t origin_ps, NetworkHost& host) {
  const double t = static_cast<double>(now_ps) * 1e-3;
  for (;;) {
    arrivals_.clear();
    engine_.advance(t, arrivals_);
    host.deliver(arrivals_);
    engine_.reallocate(t);
    const double next = engine_.next_event_ns();
    if (next > t + FlowEngine::kTolNs) break;
  }
  if (TraceWriter::instance().enabled())
    trace_utilisation(static_cast<double>(origin_ps + now_ps) * 1e-3);
  return engine_.active_streams() > 0 ? run_ahead(now_ps, origin_ps, host) : kNoResume;
}

std::uint64_t FluidNetwork::run_ahead(std::uint64_t now_ps, std::uint64_t origin_ps,
                                      NetworkHost& host) {
  // Up to the next activity of any other process, nobody can start a flow or observe one, so
  // instants where no arrival is due (drain ends, stream restarts) need no SystemC wake: run
  // them here at the times the Network would wake at (ns_to_sc rounds to whole ps).
  const std::uint64_t idle_ps = host.ps_to_next_activity();
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
    for (;;) {  // run()'s loop at t
      arrivals_.clear();
      engine_.advance(t, arrivals_);  // appends nothing: checked above
      engine_.reallocate(t);
      next = engine_.next_event_ns();
      if (next > t + FlowEngine::kTolNs) break;
      if (!engine_.only_internal_events_due(t)) return t_ps;
    }
    if (tracing) trace_utilisation(static_cast<double>(origin_ps + t_ps) * 1e-3);
  }
  return kNoResume;
}

void FluidNetwork::trace_utilisation(double now) {
  // One counter track per resource kind: the fraction of the kind's total capacity in use,
  // written only when it changed (wakes come in time order, so the counters are monotonic).
  for (std::size_t k = 0; k < FlowEngine::kNumKinds; ++k) {
    const auto kind = static_cast<ResourceKind>(k);
    const double cap = engine_.kind_capacity_Bpns(kind);
    if (cap <= 0) continue;
    const double u = engine_.kind_rate_Bpns(kind) / cap;
    if (u == traced_util_[k]) continue;
    traced_util_[k] = u;
    TraceWriter::instance().counter("utilisation",
                                    std::string(link_tier(kind).name) + " utilisation", now, u,
                                    link_trace_tier(kind));
  }
}

std::unique_ptr<NetworkEngine> make_fluid(FlowEngine& resources, const NetworkOptions&) {
  return std::make_unique<FluidNetwork>(resources);
}

}  // namespace

void register_fluid_model(std::vector<NetworkModelInfo>& table) {
  table.push_back(
      {"fluid", "fluid: flow-level max-min sharing, fast, for Pods of Pods.", false, &make_fluid});
}

}  // namespace ipusim
