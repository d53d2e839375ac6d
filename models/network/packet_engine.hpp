#pragma once
// Cycle-approximate packet engine (plain C++, no SystemC): the `packet` network model. Every
// resource (link direction, DDR, switch) is a PacketLink (packet_link.hpp) that serialises
// chunks one at a time at its capacity and owns its queue, arbitration, credits and
// statistics; a chunk reaches the next hop one resource latency after it has been sent
// (store-and-forward of one chunk per hop, chunk size per tier, re-chunked at tier changes).
// The engine is the links' fabric: it knows the flows' routes, carries chunks and credits
// between neighbouring links and keeps the one event calendar, ordered by (time, insertion).
// The simulator's `packet` model drives the same PacketLinks as SystemC modules with a process
// each (packet_link_module.hpp); this engine runs them without SystemC for the tests and
// benches that time fixed traffic (tests/support/network/engine_driver.*). The two agree
// except at exact ties between different links' events, which each orders its own way.
//
// Per hop i of a flow: the hop may send its next chunk, of min(chunk_i, bytes not yet sent on
// it), once that many bytes have arrived at its input (the source has them all) and the
// receiver buffer at the hop's far end, credits_i bytes per flow, has room for it (0 =
// unbounded). Bytes leave that buffer when the next hop has sent them (the destination
// consumes on arrival); their credit is back at the sender one hop latency later. A resource
// with several flows ready serves them round-robin, one chunk each (fair), or the earliest
// flow first (fifo). Per-flow buffers keep flows from blocking each other, so the model
// cannot deadlock on rings.
//
// The engine is driven by the caller's clock like FlowEngine: advance(now) processes every
// event due by then; run_ahead(horizon) processes internal events (chunk hops, credits)
// before the caller's next external activity, stopping at the first flow completion, so the
// caller wakes once per flow completion rather than once per chunk.
#include <cstdint>
#include <queue>
#include <vector>

#include "models/network/flow_engine.hpp"
#include "models/network/packet_link.hpp"

namespace ipusim {

/// Chunk-level network of the same resources as a FlowEngine.
class PacketEngine final : private PacketFabric {
 public:
  /// Time tolerance (1 ps, the SystemC resolution) for "due now".
  static constexpr double kTolNs = FlowEngine::kTolNs;
  static constexpr double kInf = FlowEngine::kInf;

  PacketEngine() = default;
  PacketEngine(const PacketEngine&) = delete;  // the links hold a reference to it
  PacketEngine& operator=(const PacketEngine&) = delete;

  /// Adds a resource with its tier's flow control (chunk_bytes must be > 0).
  ResourceId add_resource(const ResourceSpec& spec, const ResourceFlow& flow);
  std::size_t num_resources() const { return links_.size(); }
  /// The resource's link (queue, arbitration, credits, stats).
  const PacketLink& link(ResourceId id) const { return links_[id]; }

  /// Starts a flow at `now_ns`; its arrival is reported by advance(). Returns its slot.
  std::uint32_t start(double now_ns, const Route& route, std::uint64_t bytes, void* tag = nullptr);
  /// Processes every event due at `now_ns` (within kTolNs) and appends the flows that
  /// completed; their slots are free after this call.
  void advance(double now_ns, std::vector<Arrival>& arrivals);
  /// Processes internal events strictly before `horizon_ns`, stopping before the first event
  /// that would complete a flow. Nothing outside the engine can observe these events.
  void run_ahead(double horizon_ns);
  /// Time of the next event, or kInf.
  double next_event_ns() const { return events_.empty() ? kInf : events_.top().t; }

  /// Chunks, bytes and busy time of a resource so far (counted when a chunk has been sent).
  ResourceStats stats(ResourceId id) const { return links_[id].stats(); }
  std::size_t active_flows() const { return active_; }
  std::uint64_t flows_started() const { return next_id_; }
  /// Chunk transmissions so far, over all resources (simulator-speed metric).
  std::uint64_t chunk_hops() const { return chunk_hops_; }
  /// Link activations so far: distinct (link, event time) pairs at which a link had an event
  /// (end of serialisation, chunk arrival at its input or its far end, credit return), i.e.
  /// how often a link with a process of its own, handling everything due at one instant in one
  /// activation, would be woken (simulator-speed metric). An upper bound of the link modules'
  /// count, which take a chunk or credit reaching a busy link at its next activation.
  std::uint64_t link_activations() const { return link_activations_; }
  /// Chunk transmissions a transfer will need: sum over its hops of ceil(bytes / chunk).
  double chunk_hops_of(const Route& route, std::uint64_t bytes) const;

 private:
  enum class EventKind : std::uint8_t { LinkDone, ChunkArrive, CreditReturn, Complete };
  struct Event {
    double t;
    std::uint64_t seq;  ///< insertion order: ties are processed first in, first out
    FlowId id;          ///< CreditReturn: the flow (its slot may have been reused since)
    EventKind kind;
    std::uint32_t a;     ///< LinkDone: resource; others: flow slot
    std::uint32_t hop;   ///< ChunkArrive / CreditReturn: hop index
    std::uint32_t size;  ///< bytes of the chunk or credit
    bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  using Flow = PacketFlow;

  void serialising_until(double done_ns, ResourceId link) override;
  void chunk_sent(double t_ns, ResourceId link, std::uint32_t slot, std::uint32_t hop,
                  std::uint32_t bytes) override;
  void push(double t, EventKind kind, std::uint32_t a, std::uint32_t hop, std::uint32_t size,
            FlowId id = 0);
  void process(const Event& e, std::vector<Arrival>* arrivals);
  /// Counts an activation of `link` at `t` unless it already had one at that time.
  void activate(ResourceId link, double t);
  void finish(double t, std::uint32_t slot, std::vector<Arrival>* arrivals);

  std::vector<PacketLink> links_;
  std::vector<double> last_activation_ns_;  ///< per link, for link_activations()
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_slots_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::uint64_t seq_ = 0;
  std::uint64_t next_id_ = 0;
  std::uint64_t chunk_hops_ = 0;
  std::uint64_t link_activations_ = 0;
  std::size_t active_ = 0;
};

}  // namespace ipusim
