// The `packet` network model: the PacketEngine's chunks, round robin and credits behind the
// NetworkEngine interface, with its chunk-hop budget.
#include <cstdio>
#include <memory>
#include <string>

#include "models/network/network_engine.hpp"
#include "models/network/packet_engine.hpp"

namespace ipusim {
namespace {

/// Chunk-level model over the same resource table.
class PacketNetwork final : public NetworkEngine {
 public:
  explicit PacketNetwork(const FlowEngine& resources) {
    for (ResourceId id = 0; id < resources.num_resources(); ++id)
      packet_.add_resource(resources.resource(id), resources.flow_control(id));
  }

  const char* name() const override { return "packet"; }
  // Its times are absolute (no time origin) and it has no record of a step to credit.
  bool can_replay() const override { return false; }
  bool can_stream() const override { return false; }
  bool has_work_budget() const override { return true; }
  double work_of(const Route& route, std::uint64_t bytes) const override {
    return packet_.chunk_hops_of(route, bytes);
  }
  std::string refusal(double planned, double limit, double now_ns) const override;

  std::uint32_t start(double now_ns, const Route& route, std::uint64_t bytes, void* tag) override {
    return packet_.start(now_ns, route, bytes, tag);
  }
  void start_batch(double now_ns, const std::vector<const Route*>& routes,
                   const std::vector<std::uint64_t>& bytes, void* tag) override {
    for (std::size_t i = 0; i < routes.size(); ++i)
      packet_.start(now_ns, *routes[i], bytes[i], tag);
  }
  bool idle() override { return false; }  // never moves the time origin
  double next_event_ns() override { return packet_.next_event_ns(); }
  std::uint64_t run(std::uint64_t now_ps, std::uint64_t origin_ps, NetworkHost& host) override;

  ResourceStats resource_stats(ResourceId id, double /*now_ns*/) const override {
    return packet_.stats(id);
  }
  std::uint64_t flows_started() const override { return packet_.flows_started(); }
  void collect_stats(Json& out) const override {
    out["chunk_hops"] = packet_.chunk_hops();
    out["link_activations"] = packet_.link_activations();
  }

 private:
  PacketEngine packet_;
  std::vector<Arrival> arrivals_;  // scratch
};

std::uint64_t PacketNetwork::run(std::uint64_t now_ps, std::uint64_t /*origin_ps*/,
                                 NetworkHost& host) {
  const double t = static_cast<double>(now_ps) * 1e-3;
  for (;;) {
    arrivals_.clear();
    packet_.advance(t, arrivals_);
    if (arrivals_.empty()) break;
    // Callbacks may start flows now (zero-latency ones complete at once: loop).
    host.deliver(arrivals_);
  }
  // Chunk hops before the next outside activity (or flow completion) cannot be observed by
  // anyone: run them now instead of waking SystemC for each.
  packet_.run_ahead(t + static_cast<double>(host.ps_to_next_activity()) * 1e-3);
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
