#pragma once
// Structural modules of the hierarchy: an IPU-Machine (its IPUs, gateway and the links its
// IPUs send on) and an IPU-Link domain (its machines). They have no processes; they exist so
// that module names read system.ild0.m3.ipu2 and stats nest by rack and machine.
#include <cstdint>
#include <memory>
#include <systemc>
#include <vector>

#include "models/ipu/ipu.hpp"
#include "models/network/link_module.hpp"
#include "models/network/network.hpp"
#include "models/network/routing.hpp"
#include "models/params/hw_params.hpp"
#include "models/system/gateway.hpp"

namespace ipusim {

/// Network resources per owning machine (Topology::owner_machine), built once per system.
using ResourcesByMachine = std::vector<std::vector<ResourceId>>;

/// One IPU-Machine: `ipus_per_machine` IPUs, one gateway, and a module per IPU-Link direction
/// and GW-Link its IPUs and gateway send on (place_link(): the packet model's link module, or a
/// LinkModule; DDR, gateway and host links live under the gateway).
class Machine : public sc_core::sc_module, public StatsProvider {
 public:
  /// `machine` is the global machine id; its IPUs are machine x ipus_per_machine + i.
  Machine(sc_core::sc_module_name name, std::uint32_t machine, const HwParams& params,
          const Topology& topo, Network& network, const ResourcesByMachine& resources);
  std::uint32_t id() const { return id_; }
  Ipu& ipu(std::uint32_t local) { return *ipus_[local]; }
  std::size_t num_ipus() const { return ipus_.size(); }
  Gateway& gateway() { return *gateway_; }
  /// IPU-Link and GW-Link views of this machine (none above 512 IPUs or in the packet model,
  /// whose own link modules are its children).
  const std::vector<std::unique_ptr<LinkModule>>& links() const { return links_; }
  /// Above 512 IPUs, the stats of the links that have no module (same paths); then the
  /// stats of its IPUs, as `ipu<i>`.
  void collect_stats(Json& out) const override;

 private:
  std::uint32_t id_;
  std::vector<std::unique_ptr<Ipu>> ipus_;
  std::unique_ptr<Gateway> gateway_;
  std::vector<std::unique_ptr<LinkModule>> links_;
  LinkStatsGroup link_stats_;  ///< the links above 512 IPUs
};

/// One IPU-Link domain (a Pod64 rack or a smaller Pod): `machines_per_ild` machines.
class IpuLinkDomain : public sc_core::sc_module {
 public:
  IpuLinkDomain(sc_core::sc_module_name name, std::uint32_t ild, const HwParams& params,
                const Topology& topo, Network& network, const ResourcesByMachine& resources);
  Machine& machine(std::uint32_t local) { return *machines_[local]; }
  std::size_t num_machines() const { return machines_.size(); }

 private:
  std::vector<std::unique_ptr<Machine>> machines_;
};

}  // namespace ipusim
