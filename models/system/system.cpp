// System construction and queries.
#include "models/system/system.hpp"

#include "models/params/model_params.hpp"
#include "models/system/system_estimate.hpp"
#include "models/system/system_retire.hpp"
#include "sim/config.hpp"
#include "sim/errors.hpp"

namespace ipusim {

System::System(sc_core::sc_module_name name, const HwParams& params)
    : sc_core::sc_module(name), params_(params), topo_(params_), clock_(params_.chip.clock_GHz) {
  // Every resource carries its tier's flow control; the engine-wide values are only defaults.
  FlowEngineParams fp;
  fp.arbitration = params_.flow(ResourceKind::IpuLink).arbitration;
  fp.chunk_bytes = params_.flow(ResourceKind::IpuLink).chunk_bytes;
  fp.credits_bytes = params_.flow(ResourceKind::IpuLink).credits_bytes;
  fp.fast_paths = params_.system.fast_paths;
  NetworkOptions options;
  options.model = params_.system.network_model;
  options.max_chunk_hops = params_.system.packet_max_chunk_hops;
  // The engine takes the specs over (names included): the topology keeps none.
  network_ = std::make_unique<Network>("network", topo_.take_specs(), fp, options);
  // A LinkModule costs about 8 us and 0.7 kB to elaborate: nothing up to a Pod256 (3k links),
  // but 0.2 s and 17 MB for 4096 IPUs (27k links), 12 % of a flat-ring AllReduce there. Above
  // kLinkModuleMaxIpus every fluid link is aggregated into its parent module instead (machine,
  // gateway, system: LinkStatsGroup), which reports it at the path its module would have. The
  // packet model's links are its processes: a module each at every scale (place_link()).
  constexpr std::uint32_t kLinkModuleMaxIpus = 512;
  const bool link_modules = topo_.num_ipus() <= kLinkModuleMaxIpus;
  network_->set_link_modules(link_modules);
  switch_links_ = std::make_unique<LinkStatsGroup>(*network_);
  ResourcesByMachine by_machine(topo_.num_machines());
  for (ResourceId id = 0; id < topo_.num_resources(); ++id) {
    const std::uint32_t m = topo_.owner_machine(id);
    if (m == Topology::kNone) {
      place_link(*network_, id, gw_switch_, *switch_links_);  // the switches: under the system
    } else {
      by_machine[m].push_back(id);
    }
  }
  sync_ = std::make_unique<SyncController>("sync", params_, topo_);
  const std::uint32_t n_ild = params_.system.num_ilds;
  ilds_.reserve(n_ild);
  ipus_.reserve(topo_.num_ipus());
  gateways_.reserve(topo_.num_machines());
  for (std::uint32_t i = 0; i < n_ild; ++i) {
    const std::string nm = "ild" + std::to_string(i);
    ilds_.push_back(
        std::make_unique<IpuLinkDomain>(nm.c_str(), i, params_, topo_, *network_, by_machine));
    IpuLinkDomain& d = *ilds_.back();
    for (std::size_t m = 0; m < d.num_machines(); ++m) {
      Machine& mach = d.machine(static_cast<std::uint32_t>(m));
      for (std::size_t k = 0; k < mach.num_ipus(); ++k)
        ipus_.push_back(&mach.ipu(static_cast<std::uint32_t>(k)));
      gateways_.push_back(&mach.gateway());
    }
  }
}

System::~System() = default;

SyncCost System::sync(const std::vector<std::uint32_t>& ipus, std::uint64_t times) {
  const SyncCost c = sync_->sync(ipus, times);
  for (std::uint32_t i : ipus) ipus_[i]->note_sync(c.cycles, times);
  return c;
}

Ipu& System::ipu(std::uint32_t id) {
  if (id >= ipus_.size()) {
    throw ConfigError("IPU " + std::to_string(id) + " does not exist (the system has " +
                      std::to_string(ipus_.size()) + " IPUs)");
  }
  return *ipus_[id];
}

const Ipu& System::ipu(std::uint32_t id) const { return const_cast<System*>(this)->ipu(id); }

Gateway& System::gateway(std::uint32_t machine) {
  if (machine >= gateways_.size()) {
    throw ConfigError("machine " + std::to_string(machine) + " does not exist (the system has " +
                      std::to_string(gateways_.size()) + " machines)");
  }
  return *gateways_[machine];
}

void System::collect_stats(Json& out) const {
  out["ipus"] = num_ipus();
  out["machines"] = num_machines();
  out["ilds"] = num_ilds();
  out["fidelity"] = to_string(fidelity());
  out["clock_GHz"] = clock_.freq_GHz();
  switch_links_->collect_stats(out);
}

std::unique_ptr<System> build_system(ConfigDoc& doc, const std::string& name) {
  register_model_params();
  const HwParams params = read_hw_params(doc);
  // Refused before elaboration when it would not fit (exit 2 naming /sim/fidelity).
  check_work_estimate(system_work_estimate(params), ConfigNode(doc, "").child("sim"));
  return std::make_unique<System>(name.c_str(), params);
}

void retire_system(std::unique_ptr<System> system) {
  if (!system || system->num_ipus() <= 512) return;
  // Reachable from a static, so leak checkers do not report it; never destroyed.
  static auto* retired = new std::vector<std::unique_ptr<System>>();
  retired->push_back(std::move(system));
}

}  // namespace ipusim
