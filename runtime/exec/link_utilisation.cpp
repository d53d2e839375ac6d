#include "runtime/exec/link_utilisation.hpp"

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "models/network/link_tiers.hpp"
#include "models/system/system.hpp"

namespace ipusim {

Json link_utilisation(const System& system, double end_ns) {
  const Network& net = system.network();
  const Topology& topo = system.topology();
  std::map<std::string, std::pair<double, int>> acc;
  if (end_ns > 0) {
    for (ResourceId id = 0; id < net.engine().num_resources(); ++id) {
      const ResourceStats st = net.resource_stats(id);
      if (st.transfers == 0) continue;
      auto& a = acc[link_tier(topo.kind(id)).utilisation_key];
      // Whole bytes: the integrated rate carries floating-point dust that depends on the order
      // of the sums (a collective replayed from the executor's cache adds its totals at once).
      a.first += static_cast<double>(std::llround(st.bytes)) /
                 (net.engine().resource(id).capacity_Bpns * end_ns);
      a.second++;
    }
  }
  Json u = Json::object();
  for (const std::string& n : utilisation_keys()) {
    const auto& a = acc[n];
    u[n] = a.second ? a.first / a.second : 0.0;
  }
  return u;
}

}  // namespace ipusim
