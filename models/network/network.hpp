#pragma once
// The system's one network: a SystemC module driving one network model (a NetworkEngine from
// the table in network_engine.hpp, chosen by `/sim/network_model`) from a single SC_METHOD
// that sleeps until the model's next event. Starts at the same timestamp are batched (one
// wake per delta cycle). The runtime asks capabilities (can_replay(), can_stream()), never
// which model runs.
// - fluid (default, fluid_network.cpp): a FlowEngine, one global max-min solver; the cost is
//   per flow start/end, never per byte, chunk or tile.
// - packet (packet_network.cpp): a PacketLinkModule per resource (packet_link_module.hpp),
//   each with its own calendar and SC_METHOD; the Network's wake only starts flows and hands
//   completed ones to their callbacks.
// The LinkModules of the hierarchy are views onto the resources of this network.
//
// Time origin (models that can_replay()): the engine works in ns since the start of the
// current busy period. When a transfer starts on an idle network (no flow in flight, no event
// pending), the engine's origin moves to that instant, so a batch started on an idle network
// gives the same floating-point times, durations and per-resource increments whenever it
// starts. That is what lets a BSP step that repeats the previous step's traffic be replayed
// exactly (runtime/exec/step_memo.*). Other models keep the origin at 0.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "models/network/flow_engine.hpp"
#include "models/network/network_engine.hpp"
#include "models/params/hw_params.hpp"
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

/// Writes one used resource's `bytes`, `busy_ns`, `utilisation` (bytes / (capacity x now)),
/// `transfers` and `max_concurrent` into `out` (nothing for an unused one).
void write_resource_stats(Json& out, const ResourceStats& s, double capacity_Bpns, double now_ns);

/// Network of bandwidth resources (SystemC module around one NetworkEngine).
class Network : public sc_core::sc_module, public StatsProvider, private NetworkHost {
 public:
  using Callback = std::function<void(const TransferResult&)>;

  SC_HAS_PROCESS(Network);
  /// Takes the resource table (ids in order) and the model's name and options; throws
  /// SimulationError for an unknown model.
  Network(sc_core::sc_module_name name, std::vector<ResourceSpec> resources,
          FlowEngineParams params, NetworkOptions options);

  /// Starts a transfer now; `on_arrival` runs (inside the network's method, at the arrival
  /// time) when its last byte has arrived. It may start further transfers.
  void start(const TransferRequest& req, Callback on_arrival);
  /// Starts a posted transfer now (bytes > 0, non-empty route; SimulationError else):
  /// `on_left` runs when its last byte has left the source (its first resource's latency, the
  /// source's access, and its sending done; TransferResult::end_ns is that instant), then
  /// `on_arrival` when its last byte has arrived. A posted sender starts its next transfer on
  /// `on_left`, not waiting for the flight.
  void start_posted(const TransferRequest& req, Callback on_left, Callback on_arrival);
  /// Blocking form of start_posted(): returns (with the departure) once the bytes have left;
  /// `on_arrival` runs later, at the arrival. Call from an SC_THREAD only.
  TransferResult send(const TransferRequest& req, Callback on_arrival);
  /// Models that can_stream(): starts `count` transfers of `req` back to back
  /// (FlowEngine::start_stream), each at the instant its predecessor arrives: the times and stats
  /// of chaining start() from each arrival's callback, but only the last arrival runs
  /// `on_last_arrival`, and the repeats run inside the network without a SystemC wake each (see
  /// run_ahead()). Needs bytes > 0 and a non-empty route.
  void start_stream(const TransferRequest& req, std::uint64_t count, Callback on_last_arrival);
  /// Blocking: starts one transfer and waits for it. Call from an SC_THREAD only.
  TransferResult transfer(const TransferRequest& req);
  /// Blocking: starts all transfers at once and waits until the last one arrives.
  std::vector<TransferResult> transfer_all(const std::vector<TransferRequest>& reqs);

  /// Blocking, lean form of transfer_all for large BSP steps: starts `bytes[i]` along
  /// `*routes[i]` for every i at once and waits until the last arrives. No per-transfer
  /// results or callbacks (a flat 4096-IPU ring plays 33 M transfers through this).
  void transfer_batch(const std::vector<const Route*>& routes,
                      const std::vector<std::uint64_t>& bytes);

  /// Blocking: starts a batch whose folding the caller recorded before, in compact form
  /// (FlowEngine::start_prefolded: one route and size per class) and waits until its `flows`
  /// flows have arrived. Only while folding(): the caller (a collective played before) skips
  /// listing and checking the whole batch again. SimulationError when folding is off.
  void transfer_batch_folded(const std::vector<const Route*>& routes,
                             const std::vector<std::uint64_t>& bytes, const FoldedBatch& folded,
                             std::uint64_t flows);
  /// Blocking: the same for a whole batch folded before (`record` is FlowEngine::fold_record()
  /// of `routes` and `bytes`, which stay valid until it arrives); its flows can be unfolded.
  void transfer_batch_folded(const std::vector<const Route*>& routes,
                             const std::vector<std::uint64_t>& bytes,
                             const std::shared_ptr<const FoldRecord>& record, std::uint64_t flows);
  /// The folding of a whole batch for transfer_batch_folded() (FlowEngine::fold_record()):
  /// nullptr when it is not symmetric or the network does not fold.
  std::shared_ptr<const FoldRecord> fold_record(const std::vector<const Route*>& routes,
                                                const std::vector<std::uint64_t>& bytes) {
    return engine_.fold_record(routes, bytes);
  }
  /// True while the fluid engine folds symmetric batches (set_fold()).
  bool folding() const { return engine_.folding(); }
  /// Batches started through transfer_batch_folded() so far (for run_info and tests).
  std::uint64_t prefolded_batches() const { return prefolded_batches_; }

  /// The resource table (names, capacities, flow control) in every model; in the fluid model
  /// also its solver, in the others it carries no flows.
  const FlowEngine& engine() const { return engine_; }
  /// The model's name (`/sim/network_model`).
  const char* model_name() const { return model_->name(); }
  /// A batch started on an idle network is timed from its own start, and a replayed
  /// interval's use can be credited (credit_replay()): steps may be replayed from a record.
  bool can_replay() const { return model_->can_replay(); }
  /// start_stream() runs repeats inside the model.
  bool can_stream() const { return model_->can_stream(); }
  /// False in systems too large for a LinkModule per resource: their machines, gateways and
  /// the system then report their links' stats themselves (LinkStatsGroup, see System).
  void set_link_modules(bool on) { link_modules_ = on; }
  bool link_modules() const { return link_modules_; }
  /// Called by the module that owns resource `id` (its machine, gateway or the system) while
  /// it is constructed: in a model with a module per resource (packet), makes it there, named
  /// `name`, and returns true; otherwise false (the caller makes a LinkModule or aggregates).
  bool place(ResourceId id, const std::string& name) { return model_->place(id, name); }
  /// Non-empty when the packet model refused the traffic (over /sim/packet_max_chunk_hops):
  /// the simulation was stopped and this says why, with the estimate and what to change.
  const std::string& refusal() const { return refusal_; }
  /// Oracle for an idle network: latency + fill + bytes / bottleneck.
  double lone_transfer_ns(const Route& route, std::uint64_t bytes) const {
    return engine_.lone_transfer_ns(route, bytes);
  }
  /// Stats of one resource up to now.
  ResourceStats resource_stats(ResourceId id) const;
  /// True in a model that can_replay() when no flow is draining or in flight and no event is
  /// pending: a batch started now is timed from its own start (see the time origin above).
  bool idle();
  /// Fluid model with fast paths: folds symmetric batches onto the representatives of `cells`
  /// (FlowEngine::set_fold; a resource's stats are then its representative's). False, and
  /// nothing changes, in another model, without fast paths, or on a busy network.
  bool set_fold(std::shared_ptr<const ResourceCells> cells);
  /// Number of network wake-ups so far (simulator-speed metric).
  std::uint64_t wakeups() const { return wakeups_; }
  /// Models that can_replay(): credits a replayed interval's use (flows started, wake-ups and
  /// per-resource stats deltas) as if it had been simulated; see FlowEngine::credit_stats.
  void credit_replay(std::uint64_t flows, std::uint64_t wakeups,
                     const std::vector<std::pair<ResourceId, ResourceStats>>& resources);

  /// `model`, `flows`, `wakeups` (and `chunk_hops` in the packet model); per-resource stats
  /// are reported by the LinkModules.
  void collect_stats(Json& out) const override;

 private:
  /// Places the resources no hardware module has placed under the network itself.
  void before_end_of_elaboration() override { model_->place_rest(); }
  void wake();
  /// Completes this wake's arrivals: batch counters, then every callback (taken out first).
  void deliver(const std::vector<Arrival>& arrivals) override;
  std::uint64_t ps_to_next_activity() const override;
  void wake_soon() override { notify_delta(); }
  void schedule_next();
  /// Models with a work budget: adds the work of new transfers to it; false (and the run
  /// stopped, refusal() set) when the budget is exceeded.
  bool admit(double work);
  /// The engine's time (ns since origin_ps_) of the current simulated time.
  double engine_now_ns() const;
  /// Moves the engine's time origin to now if the network is idle (not inside a wake, whose
  /// loop holds the engine time of its start).
  void rebase_if_idle();
  /// Wakes SystemC in the next delta cycle unless a wake is running or already due.
  void notify_delta();

  FlowEngine engine_;
  NetworkOptions options_;
  std::unique_ptr<NetworkEngine> model_;
  double planned_work_ = 0;
  bool link_modules_ = true;
  std::string refusal_;
  sc_core::sc_event wake_event_;
  std::vector<Callback> callbacks_;       // indexed by engine slot
  std::vector<Callback> left_callbacks_;  // start_posted(): indexed by engine slot
  /// Outstanding transfers of one transfer_batch() call and the event its caller waits on.
  struct Batch {
    std::size_t pending = 0;
    sc_core::sc_event done;
  };
  std::vector<std::pair<Callback, TransferResult>> ready_;  // scratch
  bool in_wake_ = false;
  bool delta_pending_ = false;
  std::uint64_t wakeups_ = 0;
  /// Starts a batch folded before (`start` is given the batch's tag) and waits for its
  /// `flows` arrivals: the common part of both transfer_batch_folded().
  void play_folded(std::uint64_t flows, const std::function<void(void*)>& start);
  std::uint64_t prefolded_batches_ = 0;
  std::uint64_t origin_ps_ = 0;  ///< simulated time (ps) of the engine's time 0
};

}  // namespace ipusim
