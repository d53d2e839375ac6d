#pragma once
// The interface every network model implements (plain C++, no SystemC), and the table of
// models chosen by name with `/sim/network_model`. The Network module (network.hpp) owns one
// NetworkEngine and drives it from its SystemC process; the runtime asks the Network for
// capabilities (can_replay(), can_stream()) and never which model runs.
//
// Adding a model: implement NetworkEngine in its own file, give it a `register_..._model()`
// that appends its NetworkModelInfo, and call that from network_models() (network_engine.cpp).
// The registry's `/sim/network_model` choices and help are generated from the table.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/network/flow_engine.hpp"
#include "sim/json.hpp"

namespace ipusim {

/// Which model times the transfers (a name from network_models()), and its budget. No
/// defaults here: both come from the registry (`/sim/network_model`,
/// `/sim/packet_max_chunk_hops`) through HwParams.
struct NetworkOptions {
  std::string model;
  /// Models with a work budget (packet): most work (chunk hops) the run's transfers may need
  /// in total; refused beyond.
  double max_chunk_hops{};
};

/// What a model hands its arrivals to and asks about the rest of the simulation (the Network).
class NetworkHost {
 public:
  virtual ~NetworkHost() = default;
  /// Runs the arrivals' callbacks (they may start further transfers on the model).
  virtual void deliver(const std::vector<Arrival>& arrivals) = 0;
  /// Picoseconds until any other process's next activity (SystemC's pending activity).
  virtual std::uint64_t ps_to_next_activity() const = 0;
  /// Asks for a run() in the next delta cycle (a model whose own processes completed a flow).
  virtual void wake_soon() = 0;
};

/// One network model: times transfers over the network's resource table. Times are engine
/// times (ns, or whole ps) counted from the Network's time origin.
class NetworkEngine {
 public:
  /// run()'s "nothing to resume": the Network schedules its next wake at next_event_ns().
  static constexpr std::uint64_t kNoResume = ~std::uint64_t{0};
  virtual ~NetworkEngine() = default;

  /// Called once by the Network that drives the model (models with processes of their own keep
  /// it to ask for wakes).
  virtual void attach(NetworkHost& /*host*/) {}
  /// The model's name in the table.
  virtual const char* name() const = 0;
  /// Models that give each resource a module with a process of its own (packet): makes
  /// resource `id`'s module, named `name`, under the module being constructed (SystemC's
  /// current module: the resource's machine, gateway or the system) and returns true. Others
  /// return false (the caller then makes a LinkModule, a view onto the resource).
  virtual bool place(ResourceId /*id*/, const std::string& /*name*/) { return false; }
  /// Places every resource not placed by then under the current module (the Network, before
  /// the end of elaboration: a Network built without a hardware hierarchy, as in the tests).
  virtual void place_rest() {}
  /// True when a batch started on an idle network is timed from its own start and a replayed
  /// interval's use can be credited (credit_replay()): repeated steps may then be replayed
  /// from a record (step memo, collective cache) instead of simulated.
  virtual bool can_replay() const = 0;
  /// True when start_stream() runs repeats inside the model.
  virtual bool can_stream() const = 0;
  /// True when transfers are admitted against a work budget (work_of(), refusal()).
  virtual bool has_work_budget() const { return false; }
  /// Budget work of one transfer (packet: chunk hops); 0 without a budget.
  virtual double work_of(const Route& /*route*/, std::uint64_t /*bytes*/) const { return 0; }
  /// Why traffic needing `planned` work by `now_ns` is refused above `limit` (what to change).
  virtual std::string refusal(double /*planned*/, double /*limit*/, double /*now_ns*/) const {
    return {};
  }

  /// Starts a transfer; its arrival is handed to the host by run(). Returns its slot.
  virtual std::uint32_t start(double now_ns, const Route& route, std::uint64_t bytes,
                              void* tag) = 0;
  /// Asks for a departure record (Arrival::departed) of the transfer just started in `slot`
  /// (bytes > 0, non-empty route): handed to the host when its last byte has left the source
  /// (its first resource's latency and its sending done), before its arrival.
  virtual void report_departure(std::uint32_t slot) = 0;
  /// Starts `count` back-to-back repeats of a transfer (only if can_stream()).
  virtual std::uint32_t start_stream(double now_ns, const Route& route, std::uint64_t bytes,
                                     std::uint64_t count, void* tag);
  /// Starts `bytes[i]` along `*routes[i]` for every i, all tagged `tag`.
  virtual void start_batch(double now_ns, const std::vector<const Route*>& routes,
                           const std::vector<std::uint64_t>& bytes, void* tag) = 0;
  /// True when nothing is in flight and nothing is pending, and the time origin may move.
  virtual bool idle() = 0;
  /// Engine time of the next event, or FlowEngine::kInf.
  virtual double next_event_ns() = 0;
  /// One wake at engine time `now_ps` (the origin is at absolute `origin_ps`): processes what
  /// is due, hands arrivals to `host`, and runs ahead what no one else can observe. Returns
  /// the engine time (ps) at which the next wake must resume, or kNoResume.
  virtual std::uint64_t run(std::uint64_t now_ps, std::uint64_t origin_ps, NetworkHost& host) = 0;

  /// Bytes, busy time, transfers and peak concurrency of a resource up to `now_ns`.
  virtual ResourceStats resource_stats(ResourceId id, double now_ns) const = 0;
  /// Transfers started so far.
  virtual std::uint64_t flows_started() const = 0;
  /// Credits a replayed interval's flows and per-resource use (only if can_replay()).
  virtual void credit_replay(std::uint64_t flows,
                             const std::vector<std::pair<ResourceId, ResourceStats>>& resources);
  /// The model's own figures for `stats.system.network` (beside model, flows).
  virtual void collect_stats(Json& /*out*/) const {}
};

/// One row of the model table.
struct NetworkModelInfo {
  const char* name;
  /// One paragraph for `/sim/network_model`'s help.
  const char* help;
  /// True when the model moves chunks: every tier needs chunk_bytes > 0 and credits_bytes of
  /// 0 or at least the largest chunk (checked when the parameters are read).
  bool moves_chunks;
  /// Builds the model over `resources` (the resource table, which is also the fluid solver).
  std::unique_ptr<NetworkEngine> (*make)(FlowEngine& resources, const NetworkOptions& options);
};

/// Appends the `fluid` model's row (fluid_network.cpp).
void register_fluid_model(std::vector<NetworkModelInfo>& table);
/// Appends the `packet` model's row (packet_network.cpp).
void register_packet_model(std::vector<NetworkModelInfo>& table);

/// The table of network models, the default (`fluid`) first.
const std::vector<NetworkModelInfo>& network_models();
/// The row named `name`; throws SimulationError listing the names if there is none.
const NetworkModelInfo& network_model(const std::string& name);

}  // namespace ipusim
