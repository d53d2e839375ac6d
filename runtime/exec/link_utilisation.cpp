#include "runtime/exec/link_utilisation.hpp"

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/network/link_tiers.hpp"
#include "models/system/system.hpp"

namespace ipusim {
namespace {

/// Mean utilisation per key over the used resources whose row `counted` accepts.
template <typename Counted>
Json mean_utilisation(const System& system, double end_ns, const std::vector<std::string>& keys,
                      const Counted& counted) {
  const Network& net = system.network();
  const Topology& topo = system.topology();
  std::map<std::string, std::pair<double, int>> acc;
  if (end_ns > 0) {
    for (ResourceId id = 0; id < net.engine().num_resources(); ++id) {
      const LinkTierInfo& row = link_tier(topo.kind(id));
      if (!counted(row)) continue;
      const ResourceStats st = net.resource_stats(id);
      if (st.transfers == 0) continue;
      auto& a = acc[row.utilisation_key];
      // Whole bytes: the integrated rate carries floating-point dust that depends on the order
      // of the sums (a collective replayed from the executor's cache adds its totals at once).
      a.first += static_cast<double>(std::llround(st.bytes)) /
                 (net.engine().resource(id).capacity_Bpns * end_ns);
      a.second++;
    }
  }
  Json u = Json::object();
  for (const std::string& n : keys) {
    const auto& a = acc[n];
    u[n] = a.second ? a.first / a.second : 0.0;
  }
  return u;
}

}  // namespace

Json link_utilisation(const System& system, double end_ns) {
  return mean_utilisation(system, end_ns, utilisation_keys(),
                          [](const LinkTierInfo&) { return true; });
}

Json collective_link_utilisation(const System& system, double end_ns) {
  return mean_utilisation(system, end_ns, collective_utilisation_keys(),
                          [](const LinkTierInfo& row) { return row.in_collective_utilisation; });
}

Json zero_breakdown() {
  Json b = {{kComputeCategory, 0.0}, {kExchangeCategory, 0.0}, {kSyncCategory, 0.0}};
  for (const std::string& k : link_breakdown_keys()) b[k] = 0.0;
  b[kIdleCategory] = 0.0;
  return b;
}

}  // namespace ipusim
