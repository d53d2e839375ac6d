// Link modules: stats of one network resource in the module tree.
#include "models/network/link_module.hpp"

#include <algorithm>
#include <cmath>

#include "sim/sim_time.hpp"

namespace ipusim {

LinkModule::LinkModule(sc_core::sc_module_name name, const Network& network, ResourceId id)
    : sc_core::sc_module(name), network_(network), id_(id) {}

void LinkModule::collect_stats(Json& out) const {
  write_resource_stats(out, stats(), spec().capacity_Bpns, now_ns());
}

std::string link_module_name(const std::string& resource_name) {
  std::string n = resource_name;
  std::replace(n.begin(), n.end(), '.', '_');
  return n;
}

}  // namespace ipusim
