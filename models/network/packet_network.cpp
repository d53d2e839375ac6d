// The `packet` network model: one PacketLinkModule per resource (its PacketLink's queue,
// arbitration, credits and statistics, its own calendar and SC_METHOD) behind the
// NetworkEngine interface, with its chunk-hop budget. Each module is made where its hardware
// is, by the machine, gateway or system that owns the resource (place()). The Network's own
// wake only starts flows and delivers completions.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <queue>
#include <string>

#include "models/network/link_module.hpp"
#include "models/network/network_engine.hpp"
#include "models/network/packet_link_module.hpp"
#include "sim/errors.hpp"

namespace ipusim {
namespace {

/// Chunk-level model over the same resource table, one module and process per resource.
class PacketNetwork final : public NetworkEngine {
 public:
  explicit PacketNetwork(const FlowEngine& resources)
      : resources_(resources), modules_(resources.num_resources()) {
    table_.links.assign(resources.num_resources(), nullptr);
  }

  const char* name() const override { return "packet"; }
  bool place(ResourceId id, const std::string& name) override {
    if (id >= modules_.size() || modules_[id])
      throw SimulationError("packet model: resource " + std::to_string(id) +
                            " is unknown or placed twice");
    const ResourceSpec& spec = resources_.resource(id);
    modules_[id] = std::make_unique<PacketLinkModule>(name.c_str(), id, spec,
                                                      resources_.flow_control(id), table_);
    table_.links[id] = modules_[id].get();
    return true;
  }
  void place_rest() override {
    for (ResourceId id = 0; id < modules_.size(); ++id)
      if (!modules_[id]) place(id, link_module_name(resources_.resource(id).name));
  }
  void attach(NetworkHost& host) override {
    table_.on_complete = [&host] { host.wake_soon(); };
  }
  // Its times are absolute (no time origin) and it has no record of a step to credit.
  bool can_replay() const override { return false; }
  bool can_stream() const override { return false; }
  bool has_work_budget() const override { return true; }
  double work_of(const Route& route, std::uint64_t bytes) const override {
    double n = 0;
    for (ResourceId r : route)
      n += std::ceil(static_cast<double>(bytes) /
                     static_cast<double>(table_.links[r]->link().chunk_bytes()));
    return n;
  }
  std::string refusal(double planned, double limit, double now_ns) const override;

  std::uint32_t start(double now_ns, const Route& route, std::uint64_t bytes, void* tag) override;
  void report_departure(std::uint32_t slot) override { table_.flows[slot].report_departure = true; }
  void start_batch(double now_ns, const std::vector<const Route*>& routes,
                   const std::vector<std::uint64_t>& bytes, void* tag) override {
    for (std::size_t i = 0; i < routes.size(); ++i) start(now_ns, *routes[i], bytes[i], tag);
  }
  bool idle() override { return false; }  // never moves the time origin
  double next_event_ns() override {
    if (!table_.completed.empty()) return 0;  // due now
    return empty_.empty() ? FlowEngine::kInf : empty_.top().first;
  }
  std::uint64_t run(std::uint64_t now_ps, std::uint64_t origin_ps, NetworkHost& host) override;

  ResourceStats resource_stats(ResourceId id, double /*now_ns*/) const override {
    return table_.links[id]->link().stats();
  }
  std::uint64_t flows_started() const override { return table_.next_id; }
  void collect_stats(Json& out) const override {
    out["chunk_hops"] = table_.chunk_hops;
    out["link_activations"] = table_.activations;
  }

 private:
  const FlowEngine& resources_;
  PacketFlowTable table_;
  std::vector<std::unique_ptr<PacketLinkModule>> modules_;  ///< by resource id, once placed
  /// Transfers that carry nothing: (arrival time, slot), completed by the Network's wake.
  std::priority_queue<std::pair<double, std::uint32_t>,
                      std::vector<std::pair<double, std::uint32_t>>, std::greater<>>
      empty_;
  std::vector<Arrival> arrivals_;  // scratch
};

std::uint32_t PacketNetwork::start(double now_ns, const Route& route, std::uint64_t bytes,
                                   void* tag) {
  const std::uint32_t slot = start_packet_flow(table_.flows, table_.free_slots, table_.links.size(),
                                               table_.next_id++, route, bytes, now_ns, tag);
  PacketFlowTable::Flow& f = table_.flows[slot];
  ++table_.active;
  if (route.empty() || bytes == 0) {
    // Nothing to carry: the flow arrives after the route's latency (none for the same IPU).
    double lat = 0;
    for (ResourceId r : route) lat += table_.links[r]->link().latency_ns();
    for (ResourceId r : route) table_.links[r]->link().count_empty_transfer();
    empty_.push({now_ns + lat, slot});
    return slot;
  }
  f.hops.resize(route.size());
  for (std::uint32_t h = 0; h < route.size(); ++h)
    f.hops[h] = table_.links[route[h]]->link().join(f.id, slot, h, bytes, h == 0 ? bytes : 0);
  table_.links[route[0]]->link().offer(now_ns, f.hops[0]);
  return slot;
}

std::uint64_t PacketNetwork::run(std::uint64_t now_ps, std::uint64_t /*origin_ps*/,
                                 NetworkHost& host) {
  const double t = static_cast<double>(now_ps) * 1e-3;
  for (;;) {
    while (!empty_.empty() && empty_.top().first <= t + FlowEngine::kTolNs) {
      table_.finish(empty_.top().first, empty_.top().second);
      empty_.pop();
    }
    if (table_.completed.empty()) break;
    // Completions of one instant in flow order, whatever the order their links ran in (a
    // flow's departure before its arrival).
    arrivals_.swap(table_.completed);
    table_.completed.clear();
    std::sort(arrivals_.begin(), arrivals_.end(), [](const Arrival& a, const Arrival& b) {
      return a.id != b.id ? a.id < b.id : a.departed > b.departed;
    });
    // Callbacks may start flows now (zero-latency ones complete at once: loop).
    host.deliver(arrivals_);
  }
  return kNoResume;
}

std::string PacketNetwork::refusal(double planned, double limit, double now_ns) const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.3g chunk hops by simulated time %.0f ns", planned, now_ns);
  return std::string("/sim/network_model: packet: the transfers started need an estimated ") + buf +
         " (sum over transfers of hops x bytes / chunk_bytes of each hop's tier), above "
         "/sim/packet_max_chunk_hops = " +
         std::to_string(static_cast<unsigned long long>(limit)) +
         ". Use sim.network_model=fluid for a system or message this large, raise the tiers' "
         "chunk_bytes "
         "(e.g. --set ipu_link.chunk_bytes=4096), or raise sim.packet_max_chunk_hops";
}

std::unique_ptr<NetworkEngine> make_packet(FlowEngine& resources, const NetworkOptions&) {
  return std::make_unique<PacketNetwork>(resources);
}

}  // namespace

void register_packet_model(std::vector<NetworkModelInfo>& table) {
  table.push_back({"packet",
                   "packet: every link direction, DDR and switch moves chunks (chunk_bytes of its "
                   "tier) round-robin between flows, with per-flow receiver buffers and credit "
                   "back-pressure (credits_bytes), per-hop latency and store-and-forward of one "
                   "chunk per hop; slower, for Pod16-sized systems and for checking fluid.",
                   true, &make_packet});
}

}  // namespace ipusim
