// Offline driver of the two network engines (no SystemC).
#include "tests/support/network/engine_driver.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "models/network/packet_engine.hpp"

namespace ipusim {
namespace {

/// Transfer indices in start order (ties in the given order).
std::vector<std::size_t> start_order(const std::vector<TimedTransfer>& transfers) {
  std::vector<std::size_t> order(transfers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return transfers[a].start_ns < transfers[b].start_ns;
  });
  return order;
}

void* tag_of(std::size_t i) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(i + 1)); }
std::size_t index_of(void* tag) {
  return static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(tag)) - 1;
}

/// The event loop both engines share: next time = the earlier of the next start and the
/// engine's next event; arrivals first, then the starts due, then `settle`.
template <class Engine, class Settle>
PatternResult drive(Engine& e, const std::vector<TimedTransfer>& transfers, Settle settle) {
  PatternResult out;
  out.end_ns.assign(transfers.size(), 0.0);
  const std::vector<std::size_t> order = start_order(transfers);
  std::size_t next = 0;
  std::vector<Arrival> arrivals;
  for (;;) {
    const double next_start =
        next < order.size() ? transfers[order[next]].start_ns : FlowEngine::kInf;
    const double t = std::min(next_start, e.next_event_ns());
    if (t == FlowEngine::kInf) break;
    arrivals.clear();
    e.advance(t, arrivals);
    for (const Arrival& a : arrivals) {
      out.end_ns[index_of(a.tag)] = a.end_ns;
      out.makespan_ns = std::max(out.makespan_ns, a.end_ns);
    }
    while (next < order.size() && transfers[order[next]].start_ns <= t + FlowEngine::kTolNs) {
      const TimedTransfer& tr = transfers[order[next]];
      e.start(t, tr.route, tr.bytes, tag_of(order[next]));
      ++next;
    }
    settle(t);
    ++out.events;
  }
  return out;
}

}  // namespace

PatternResult run_pattern(NetworkModel model, const std::vector<ResourceSpec>& resources,
                          const FlowEngineParams& params,
                          const std::vector<TimedTransfer>& transfers) {
  FlowEngine fluid(params);
  for (const ResourceSpec& r : resources) fluid.add_resource(r);
  if (model == NetworkModel::Fluid) {
    return drive(fluid, transfers, [&](double t) { fluid.reallocate(t); });
  }
  PacketEngine packet;
  for (ResourceId id = 0; id < fluid.num_resources(); ++id)
    packet.add_resource(fluid.resource(id), fluid.flow_control(id));
  PatternResult r = drive(packet, transfers, [](double) {});
  r.events = packet.chunk_hops();
  return r;
}

}  // namespace ipusim
