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

void LinkStatsGroup::collect_stats(Json& out) const {
  const double now = now_ns();
  // Link names are unique under one parent: append to the ordered object directly instead of
  // looking each name up (operator[] scans the object, quadratic in the links).
  auto& entries = out.get_ref<Json::object_t&>();
  // Reserved: entries have const keys, so a growing object would copy every link's subtree.
  entries.reserve(entries.size() + ids_.size());
  for (ResourceId id : ids_) {
    const ResourceStats s = network_.resource_stats(id);
    if (s.transfers == 0) continue;  // an unused link writes nothing (write_resource_stats)
    const ResourceSpec& spec = network_.engine().resource(id);
    Json r = Json::object();
    write_resource_stats(r, s, spec.capacity_Bpns, now);
    entries.emplace_back(link_module_name(spec.name), std::move(r));
  }
}

void place_link(Network& network, ResourceId id, std::vector<std::unique_ptr<LinkModule>>& views,
                LinkStatsGroup& group) {
  const std::string name = link_module_name(network.engine().resource(id).name);
  if (network.place(id, name)) return;
  if (network.link_modules())
    views.push_back(std::make_unique<LinkModule>(name.c_str(), network, id));
  else
    group.add(id);
}

std::string link_module_name(const std::string& resource_name) {
  std::string n = resource_name;
  std::replace(n.begin(), n.end(), '.', '_');
  return n;
}

}  // namespace ipusim
