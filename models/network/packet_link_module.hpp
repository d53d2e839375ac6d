#pragma once
// The packet model's links as SystemC modules: each PacketLinkModule owns one PacketLink
// (queue, arbitration, credits, statistics), a calendar of its own and one SC_METHOD,
// sensitive only to its own sc_event and woken only when it has work (end of serialisation,
// a chunk arriving at its input or far end, a credit coming back). It is its link's port: it
// posts sent chunks to the next hop's module and credits to the previous hop's. Everything due
// at one instant is handled in one activation, in an order that does not depend on SystemC's
// order of processes: (time, posting instant and delta cycle, posting link, posting order);
// events posted at the current instant and delta wait for the next delta. A chunk or credit
// reaching a busy link wakes nothing: it is handled, in that order, at its next activation.
#include <cstdint>
#include <functional>
#include <queue>
#include <systemc>
#include <tuple>
#include <vector>

#include "models/network/flow_engine.hpp"
#include "models/network/packet_link.hpp"
#include "sim/stats.hpp"

namespace ipusim {

class PacketLinkModule;

/// The flows of the packet model, shared by its link modules.
struct PacketFlowTable {
  using Flow = PacketFlow;
  std::vector<Flow> flows;
  std::vector<std::uint32_t> free_slots;
  std::vector<PacketLinkModule*> links;  ///< by resource id
  std::vector<Arrival> completed;        ///< flows completed since the network's last wake
  std::function<void()> on_complete;     ///< asks the network for a wake (a flow completed)
  std::uint64_t next_id = 0;
  std::uint64_t chunk_hops = 0;
  std::uint64_t activations = 0;
  std::size_t active = 0;
  /// While a link's process runs: its instant (ps) and delta cycle, the stamp of what it posts.
  bool running = false;
  std::uint64_t now_ps = 0, delta = 0;
  /// Frees a completed flow's slot and hops and records its arrival at `t_ns`.
  void finish(double t_ns, std::uint32_t slot);
  /// Records the departure of the flow in `slot` at `t_ns` (Arrival::departed; it keeps its slot).
  void depart(double t_ns, std::uint32_t slot);
};

/// One link of the packet model as a module with its own process, placed where its hardware
/// is (under its machine, gateway or the system; see PacketNetwork::place) and reporting its
/// statistics there.
class PacketLinkModule : public sc_core::sc_module, public StatsProvider, private PacketFabric {
 public:
  SC_HAS_PROCESS(PacketLinkModule);
  PacketLinkModule(sc_core::sc_module_name name, ResourceId id, const ResourceSpec& spec,
                   const ResourceFlow& flow, PacketFlowTable& table);

  PacketLink& link() { return link_; }
  const PacketLink& link() const { return link_; }
  /// For a used link: `bytes`, `busy_ns`, `utilisation`, `transfers`, `max_concurrent` (what a
  /// LinkModule reports); nothing for an idle one.
  void collect_stats(Json& out) const override;

  enum class Kind : std::uint8_t { ChunkArrive, Deliver, CreditReturn, Depart };
  /// Schedules, for `t_ns`, `size` bytes of hop `hop` of the flow in `slot` arriving at this
  /// link's input (ChunkArrive), at its far end (Deliver), their credit (CreditReturn, flow
  /// `id`), or the flow's last byte having left its first hop (Depart). `origin` and `seq` identify
  /// the posting link and its posting order.
  void post(double t_ns, Kind kind, std::uint32_t slot, std::uint32_t hop, std::uint32_t size,
            FlowId id, ResourceId origin, std::uint64_t seq);

 private:
  enum class EventKind : std::uint8_t { LinkDone, ChunkArrive, Deliver, CreditReturn, Depart };
  struct Event {
    double t;
    std::uint64_t posted_ps;     ///< instant it was posted
    std::uint64_t posted_delta;  ///< delta cycle it was posted in
    ResourceId origin;
    std::uint64_t seq;
    EventKind kind;
    std::uint32_t slot, hop, size;
    FlowId id;
    bool operator>(const Event& o) const {
      return std::tie(t, posted_ps, posted_delta, origin, seq) >
             std::tie(o.t, o.posted_ps, o.posted_delta, o.origin, o.seq);
    }
  };
  void serialising_until(double done_ns, ResourceId link) override;
  void chunk_sent(double t_ns, ResourceId link, std::uint32_t slot, std::uint32_t hop,
                  std::uint32_t bytes) override;
  void push(Event e);
  void notify_for(double t_ns);
  /// Asks for a wake at the next event that needs one (a credit only while the link is idle).
  void schedule_wake();
  void run();
  void process(const Event& e);

  ResourceId id_;
  double capacity_Bpns_;
  PacketLink link_;
  PacketFlowTable& table_;
  static constexpr std::uint64_t kNoWake = ~std::uint64_t{0};
  std::uint64_t posted_ = 0;         ///< events this link has posted (its posting order)
  std::uint64_t wake_ps_ = kNoWake;  ///< instant of the pending wake
  bool running_ = false;             ///< inside run(): its end asks for the next wake
  /// Ends of serialisation and deliveries at the far end: each wakes the process when due.
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> calendar_;
  /// Chunks arriving at the input and credit returns, kept apart: while the link is busy they
  /// cannot start a send (only serialised() can), so they change only a hop's counters and the
  /// ready queue, and handling them at the link's next activation, in the same (time, posting)
  /// order among the link's events and each with its own time, gives the same state. Only an
  /// idle link is woken for one.
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> lazy_;
  sc_core::sc_event wake_;
};

}  // namespace ipusim
