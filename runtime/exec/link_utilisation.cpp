#include "runtime/exec/link_utilisation.hpp"

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "models/system/system.hpp"

namespace ipusim {

Json link_utilisation(const System& system, double end_ns) {
  const Network& net = system.network();
  const Topology& topo = system.topology();
  // Indexed by ResourceKind.
  const char* names[] = {"ipu_link", "gateway_link", "ddr", "gw_link", "gw_link", "host_link"};
  std::map<std::string, std::pair<double, int>> acc;
  for (const char* n : names) acc[n] = {0.0, 0};
  if (end_ns > 0) {
    for (ResourceId id = 0; id < net.engine().num_resources(); ++id) {
      const ResourceStats st = net.resource_stats(id);
      if (st.transfers == 0) continue;
      auto& a = acc[names[static_cast<int>(topo.kind(id))]];
      // Whole bytes: the integrated rate carries floating-point dust that depends on the order
      // of the sums (a collective replayed from the executor's cache adds its totals at once).
      a.first += static_cast<double>(std::llround(st.bytes)) /
                 (net.engine().resource(id).capacity_Bpns * end_ns);
      a.second++;
    }
  }
  Json u = Json::object();
  for (const char* n : {"ipu_link", "gw_link", "ddr", "gateway_link", "host_link"}) {
    const auto& a = acc[n];
    u[n] = a.second ? a.first / a.second : 0.0;
  }
  return u;
}

}  // namespace ipusim
