#pragma once
// Structural modules of the hierarchy: an IPU-Machine (its IPUs and gateway) and an
// IPU-Link domain (its machines). They have no processes; they exist so that module names
// read system.ild0.m3.ipu2 and stats nest by rack and machine.
#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>

#include "models/system/gateway.hpp"
#include "models/params/hw_params.hpp"
#include "models/ipu/ipu.hpp"
#include "models/network/routing.hpp"

namespace ipusim {

/// One IPU-Machine: `ipus_per_machine` IPUs and one gateway.
class Machine : public sc_core::sc_module {
 public:
  /// `machine` is the global machine id; its IPUs are machine x ipus_per_machine + i.
  Machine(sc_core::sc_module_name name, std::uint32_t machine, const HwParams& params, const Topology& topo);
  std::uint32_t id() const { return id_; }
  Ipu& ipu(std::uint32_t local) { return *ipus_[local]; }
  std::size_t num_ipus() const { return ipus_.size(); }
  Gateway& gateway() { return *gateway_; }

 private:
  std::uint32_t id_;
  std::vector<std::unique_ptr<Ipu>> ipus_;
  std::unique_ptr<Gateway> gateway_;
};

/// One IPU-Link domain (a Pod64 rack or a smaller Pod): `machines_per_ild` machines.
class IpuLinkDomain : public sc_core::sc_module {
 public:
  IpuLinkDomain(sc_core::sc_module_name name, std::uint32_t ild, const HwParams& params, const Topology& topo);
  Machine& machine(std::uint32_t local) { return *machines_[local]; }
  std::size_t num_machines() const { return machines_.size(); }

 private:
  std::vector<std::unique_ptr<Machine>> machines_;
};

}  // namespace ipusim
