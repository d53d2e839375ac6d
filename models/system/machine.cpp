// Construction of the machine and domain hierarchy.
#include "models/system/machine.hpp"

#include <string>

namespace ipusim {

Machine::Machine(sc_core::sc_module_name name, std::uint32_t machine, const HwParams& params,
                 const Topology& topo, Network& network, const ResourcesByMachine& resources)
    : sc_core::sc_module(name), id_(machine), link_stats_(network) {
  const std::uint32_t n = params.machine.ipus_per_machine;
  ipus_.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i)
    ipus_.push_back(std::make_unique<Ipu>(machine * n + i, params.chip, params.system.fidelity));
  std::vector<ResourceId> gateway_links;
  links_.reserve(resources[machine].size());
  for (ResourceId id : resources[machine]) {
    if (link_tier(topo.kind(id)).under_gateway) {
      gateway_links.push_back(id);
      continue;
    }
    place_link(network, id, links_, link_stats_);
  }
  gateway_ = std::make_unique<Gateway>("gateway", machine, params.machine, topo.ddr(machine),
                                       network, gateway_links);
}

void Machine::collect_stats(Json& out) const {
  // The links without a module first, then the IPUs as `ipu<i>` (what their modules were
  // named), each only when it reports something: the order and paths the module tree gave
  // (the IPUs were the machine's first children, before its link modules and gateway).
  auto& entries = out.get_ref<Json::object_t&>();
  // Reserved: entries have const keys, so a growing object would copy its subtrees.
  entries.reserve(entries.size() + link_stats_.size() + ipus_.size());
  link_stats_.collect_stats(out);
  for (std::size_t i = 0; i < ipus_.size(); ++i) {
    Json node = Json::object();
    ipus_[i]->collect_stats(node);
    if (!node.empty()) entries.emplace_back("ipu" + std::to_string(i), std::move(node));
  }
}

IpuLinkDomain::IpuLinkDomain(sc_core::sc_module_name name, std::uint32_t ild,
                             const HwParams& params, const Topology& topo, Network& network,
                             const ResourcesByMachine& resources)
    : sc_core::sc_module(name) {
  const std::uint32_t n = params.system.machines_per_ild;
  machines_.reserve(n);
  for (std::uint32_t m = 0; m < n; ++m) {
    const std::string nm = "m" + std::to_string(m);
    machines_.push_back(
        std::make_unique<Machine>(nm.c_str(), ild * n + m, params, topo, network, resources));
  }
}

}  // namespace ipusim
