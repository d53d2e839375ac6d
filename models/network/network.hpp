#pragma once
// The system's one network: a FlowEngine driven by a single SC_METHOD that sleeps until the
// next drain end or arrival. Starts at the same timestamp are batched (one reallocation per
// delta cycle), so the cost is per flow start/end, never per byte, chunk or tile.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

#include "models/network/flow_engine.hpp"
#include "sim/stats.hpp"

namespace ipusim {

/// A transfer to start: its route and payload.
struct TransferRequest {
  Route route;
  std::uint64_t bytes = 0;
};

/// When a transfer started and when its last byte arrived.
struct TransferResult {
  FlowId id = 0;
  double start_ns = 0;
  double end_ns = 0;
  std::uint64_t bytes = 0;
  double duration_ns() const { return end_ns - start_ns; }
};

/// Flow-level network of bandwidth resources (SystemC wrapper around FlowEngine).
class Network : public sc_core::sc_module, public StatsProvider {
 public:
  using Callback = std::function<void(const TransferResult&)>;

  SC_HAS_PROCESS(Network);
  /// Takes the resource table (ids in order) and the engine options.
  Network(sc_core::sc_module_name name, const std::vector<ResourceSpec>& resources, FlowEngineParams params);

  /// Starts a transfer now; `on_arrival` runs (inside the network's method, at the arrival
  /// time) when its last byte has arrived. It may start further transfers.
  void start(const TransferRequest& req, Callback on_arrival);
  /// Blocking: starts one transfer and waits for it. Call from an SC_THREAD only.
  TransferResult transfer(const TransferRequest& req);
  /// Blocking: starts all transfers at once and waits until the last one arrives.
  std::vector<TransferResult> transfer_all(const std::vector<TransferRequest>& reqs);

  /// Blocking, lean form of transfer_all for large BSP steps: starts `bytes[i]` along
  /// `*routes[i]` for every i at once and waits until the last arrives. No per-transfer
  /// results or callbacks (a flat 4096-IPU ring plays 33 M transfers through this).
  void transfer_batch(const std::vector<const Route*>& routes, const std::vector<std::uint64_t>& bytes);

  const FlowEngine& engine() const { return engine_; }
  /// Oracle for an idle network: latency + fill + bytes / bottleneck.
  double lone_transfer_ns(const Route& route, std::uint64_t bytes) const {
    return engine_.lone_transfer_ns(route, bytes);
  }
  /// Stats of one resource up to now.
  ResourceStats resource_stats(ResourceId id) const;
  /// Number of network wake-ups so far (simulator-speed metric).
  std::uint64_t wakeups() const { return wakeups_; }

  /// Per used resource: bytes, busy_ns, utilisation (bytes / (capacity x now)), transfers.
  void collect_stats(Json& out) const override;

 private:
  void wake();
  void schedule_next();
  /// Trace counters: utilisation of each resource kind after a wake.
  void trace_utilisation(double now);

  FlowEngine engine_;
  sc_core::sc_event wake_event_;
  std::vector<Callback> callbacks_;          // indexed by engine slot
  /// Outstanding transfers of one transfer_batch() call and the event its caller waits on.
  struct Batch {
    std::size_t pending = 0;
    sc_core::sc_event done;
  };
  std::vector<Arrival> arrivals_;            // scratch
  std::vector<std::pair<Callback, TransferResult>> ready_;  // scratch
  double traced_util_[FlowEngine::kNumKinds] = {0, 0, 0, 0, 0, 0};
  bool in_wake_ = false;
  bool delta_pending_ = false;
  std::uint64_t wakeups_ = 0;
};

}  // namespace ipusim
