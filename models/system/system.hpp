#pragma once
// A whole simulated system (one IPU-Machine up to 64 Pod64 racks) and its builder. The
// System owns the module tree (domains, machines, IPUs, gateways), the one Network and the
// SyncController, and answers the topology queries the collectives layer and the runtime need.
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "models/ipu/ipu.hpp"
#include "models/ipu/sync.hpp"
#include "models/network/network.hpp"
#include "models/network/routing.hpp"
#include "models/params/hw_params.hpp"
#include "models/system/gateway.hpp"
#include "models/system/machine.hpp"
#include "sim/clock.hpp"
#include "sim/stats.hpp"

namespace ipusim {

class ConfigDoc;

/// The simulated system: hardware modules plus topology queries.
class System : public sc_core::sc_module, public StatsProvider {
 public:
  System(sc_core::sc_module_name name, const HwParams& params);
  ~System() override;

  const HwParams& params() const { return params_; }
  const ChipParams& chip() const { return params_.chip; }
  /// The IPU clock domain (cycles <-> ns).
  const ClockDomain& clock() const { return clock_; }
  double clock_GHz() const { return clock_.freq_GHz(); }
  Fidelity fidelity() const { return params_.system.fidelity; }

  std::uint32_t num_ipus() const { return topo_.num_ipus(); }
  std::uint32_t num_machines() const { return topo_.num_machines(); }
  std::uint32_t num_ilds() const { return topo_.num_ilds(); }
  std::uint32_t ild_size_ipus() const { return topo_.ild_size(); }
  std::uint32_t ipus_per_machine() const { return topo_.ipus_per_machine(); }
  /// True if IPU-Link rails wrap round (torus with at least 3 rungs).
  bool torus() const { return topo_.torus(); }
  GwTopology gw_topology() const { return topo_.gw_topology(); }
  std::uint32_t ild_of(std::uint32_t ipu) const { return topo_.ild_of(ipu); }
  /// Graph compile domain of an IPU: GCDs are equal runs of consecutive IPU-Link domains.
  std::uint32_t gcd_of(std::uint32_t ipu) const {
    return ild_of(ipu) / (num_ilds() / params_.system.num_gcds);
  }
  std::uint32_t machine_of(std::uint32_t ipu) const { return topo_.machine_of(ipu); }

  /// Route between two IPUs (IPU-Links inside a domain, GW-Links across domains).
  Route route(std::uint32_t src_ipu, std::uint32_t dst_ipu) const {
    return topo_.route(src_ipu, dst_ipu);
  }
  Route remote_load_route(std::uint32_t ipu) const { return topo_.remote_load_route(ipu); }
  Route remote_store_route(std::uint32_t ipu) const { return topo_.remote_store_route(ipu); }
  Route host_write_route(std::uint32_t ipu) const { return topo_.host_write_route(ipu); }
  Route host_read_route(std::uint32_t ipu) const { return topo_.host_read_route(ipu); }
  LinkTier tier(const Route& route) const { return topo_.tier(route); }
  /// Time of a transfer alone on an idle network (latency + fill + bytes / bottleneck), ns.
  double lone_transfer_ns(const Route& route, std::uint64_t bytes) const {
    return network_->lone_transfer_ns(route, bytes);
  }

  /// Sync cost of a set of IPUs (not recorded).
  SyncCost sync_cost(const std::vector<std::uint32_t>& ipus) const {
    return sync_->model().cost(ipus);
  }
  /// Sync cost of a set of IPUs, recorded in the sync controller's and the IPUs' stats.
  SyncCost sync(const std::vector<std::uint32_t>& ipus, std::uint64_t times = 1);

  Ipu& ipu(std::uint32_t id);
  const Ipu& ipu(std::uint32_t id) const;
  Gateway& gateway(std::uint32_t machine);
  Gateway& gateway_of(std::uint32_t ipu) { return gateway(machine_of(ipu)); }
  Network& network() { return *network_; }
  const Network& network() const { return *network_; }
  SyncController& sync_controller() { return *sync_; }
  const Topology& topology() const { return topo_; }

  void collect_stats(Json& out) const override;

 private:
  HwParams params_;
  Topology topo_;
  ClockDomain clock_;
  std::unique_ptr<Network> network_;
  std::unique_ptr<SyncController> sync_;
  std::vector<std::unique_ptr<IpuLinkDomain>> ilds_;
  std::vector<Ipu*> ipus_;
  std::vector<Gateway*> gateways_;
  /// The GW-Link switch (switched multi-Pod systems) or, on leaf_spine, each leaf's switch and
  /// spine up/downlinks: the resources no machine owns.
  std::vector<std::unique_ptr<LinkModule>> gw_switch_;
  std::unique_ptr<LinkStatsGroup> switch_links_;  ///< the switch links above 512 IPUs
};

/// Builds a system from `/chip`, `/ipu_link`, `/machine`, `/system`, `/software` (the run's
/// Poplar SDK, whose vertex estimates the IPUs' costs take) and `/sim/{fidelity,
/// fast_paths,network_model,packet_max_chunk_hops}` (declaring the model parameters first).
/// Module names are `<name>.ild<i>.m<j>.ipu<k>` (local indices), links under their machine
/// (`<name>.ild<i>.m<j>.ipu5->ipu7_up`, `...m<j>.gateway.m3_ddr`), `<name>.gw_switch` and
/// `<name>.network`. Throws ConfigError for bad configs.
std::unique_ptr<System> build_system(ConfigDoc& doc, const std::string& name = "system");

}  // namespace ipusim
