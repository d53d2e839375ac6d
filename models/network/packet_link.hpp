#pragma once
// One resource of the packet model (a link direction, gateway link, DDR, GW-Link, switch or
// host link) as a self-contained state machine (plain C++, no SystemC): it owns its ready
// queue and arbitration (round robin or fifo), the chunk it is serialising, the credit window
// of the receiver buffer at its far end, the per-flow state of every flow crossing it and its
// statistics. It sees the rest of the network only through its port, a PacketFabric: it hands
// each sent chunk to the fabric (which delivers it to the flow's next hop one latency later and
// returns the credit upstream) and asks the fabric to call serialised() when a chunk's
// serialisation ends. The PacketEngine is the fabric and the event calendar of all links.
#include <cstdint>
#include <deque>
#include <queue>
#include <vector>

#include "models/network/flow_engine.hpp"

namespace ipusim {

/// What a PacketLink is connected to: the calendar and the links next to it on each route.
class PacketFabric {
 public:
  virtual ~PacketFabric() = default;
  /// `link` has started serialising a chunk; call its serialised() at `done_ns`.
  virtual void serialising_until(double done_ns, ResourceId link) = 0;
  /// `link` has sent `bytes` of hop `hop` of the flow in `slot` at `t_ns`: deliver them to the
  /// flow's next hop (or destination) one latency later and return their credit upstream.
  virtual void chunk_sent(double t_ns, ResourceId link, std::uint32_t slot, std::uint32_t hop,
                          std::uint32_t bytes) = 0;
};

/// One packet-model resource: queue, arbitration, credits and statistics of its own.
class PacketLink {
 public:
  /// Index of a flow's hop in this link's table (valid from join() to leave()).
  using HopRef = std::uint32_t;

  /// `spec` and `flow` give its rate, latency, chunk, credits and arbitration (chunk > 0).
  PacketLink(ResourceId id, const ResourceSpec& spec, const ResourceFlow& flow,
             PacketFabric& fabric);

  double latency_ns() const { return latency_ns_; }
  std::uint64_t chunk_bytes() const { return chunk_; }
  /// Receiver buffer per flow at the far end in bytes (0 = unbounded: no credits travel).
  std::uint64_t credits_bytes() const { return credits_; }
  /// Bytes, busy time, transfers and peak concurrency so far (counted when a chunk is sent).
  const ResourceStats& stats() const { return st_; }
  /// True while a chunk is being serialised: then nothing but serialised() can start a send,
  /// so an arrival or credit changes only the hop's counters and the ready queue, never a time.
  bool busy() const { return busy_; }

  /// Counts a transfer that carries no bytes across this link.
  void count_empty_transfer() { st_.transfers++; }
  /// Hop `hop` of flow `id` (engine slot `slot`, `bytes` in all, `arrived` of them already at
  /// this link's input) starts crossing this link; returns its reference.
  HopRef join(FlowId id, std::uint32_t slot, std::uint32_t hop, std::uint64_t bytes,
              std::uint64_t arrived);
  /// The flow has completed: forgets its hop (never queued by then).
  void leave(HopRef ref);

  /// Queues the hop (or starts it at once on an idle link) if it can send a chunk now.
  void offer(double t_ns, HopRef ref);
  /// `bytes` of the hop's flow have arrived at this link's input.
  void arrived(double t_ns, HopRef ref, std::uint32_t bytes) {
    hops_[ref].arrived += bytes;
    offer(t_ns, ref);
  }
  /// `bytes` of the hop's flow have left the buffer at this link's far end.
  void credit(double t_ns, HopRef ref, std::uint32_t bytes) {
    hops_[ref].buffered -= bytes;
    offer(t_ns, ref);
  }
  /// The chunk being serialised has been sent (the time serialising_until() named).
  void serialised(double t_ns);

 private:
  struct Hop {
    FlowId id = 0;
    std::uint32_t slot = 0;      ///< engine slot of the flow
    std::uint32_t hop = 0;       ///< index of this link on the flow's route
    std::uint64_t bytes = 0;     ///< the flow's payload
    std::uint64_t sent = 0;      ///< bytes whose transmission on this link has started
    std::uint64_t arrived = 0;   ///< bytes arrived at this link's input (first hop: all)
    std::uint64_t buffered = 0;  ///< bytes held against the receiver buffer at the far end
    bool queued = false;         ///< waiting in the ready queue
  };
  /// A ready hop waiting for the link, with its flow id for fifo order.
  struct Ready {
    FlowId id;
    HopRef ref;
    bool operator>(const Ready& o) const { return id > o.id; }
  };

  /// Bytes the hop may send now (0 if it must wait for its input or for credits).
  std::uint64_t sendable(const Hop& h) const;
  void send(double t_ns, HopRef ref);
  /// Starts the next ready hop's chunk on the idle link, if there is one.
  void dispatch(double t_ns);

  ResourceId id_;
  PacketFabric& fabric_;
  double capacity_Bpns_;
  double latency_ns_;
  std::uint64_t chunk_;
  std::uint64_t credits_;
  bool fifo_;
  bool busy_ = false;
  HopRef cur_ = 0;
  std::uint32_t cur_size_ = 0;
  std::uint32_t active_ = 0;  ///< flows with bytes still to send on it
  std::vector<Hop> hops_;
  std::vector<HopRef> free_;
  std::deque<Ready> rr_;  ///< round-robin ready queue (fair)
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> by_id_;  ///< fifo
  ResourceStats st_;
};

/// A flow of the packet model: its route, its hop in each link of it and its progress (one
/// struct for the link modules' PacketFlowTable and the test/bench PacketEngine).
struct PacketFlow {
  FlowId id = 0;
  Route route;
  std::vector<PacketLink::HopRef> hops;  ///< the flow's hop in each link of its route
  std::uint64_t bytes = 0;
  std::uint64_t delivered = 0;
  /// Bytes sent by the last hop and posted to the destination (link modules: without credits,
  /// only the last chunk is posted, carrying all; nothing else happens at the destination).
  std::uint64_t sent_last = 0, posted_last = 0;
  /// report_departure(): the first hop's bytes sent so far, and whether the flow wants a
  /// departure record when its last chunk has left the first hop (its latency included).
  std::uint64_t sent_first = 0;
  bool report_departure = false;
  double start_ns = 0;
  void* tag = nullptr;
  bool live = false;
};

/// The slot of a new flow `id` on `route` in `flows` (a freed slot if there is one), its
/// fields set for a start at `now_ns` (no hops joined yet). Throws SimulationError if the route
/// names a resource at or above `num_links` or crosses one twice.
std::uint32_t start_packet_flow(std::vector<PacketFlow>& flows,
                                std::vector<std::uint32_t>& free_slots, std::size_t num_links,
                                FlowId id, const Route& route, std::uint64_t bytes, double now_ns,
                                void* tag);

}  // namespace ipusim
