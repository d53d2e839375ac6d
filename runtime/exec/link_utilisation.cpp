#include "runtime/exec/link_utilisation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
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
  // Each row's position in `keys` (-1: not counted), so that no string is made per resource;
  // sums run in resource order per key, as they always have.
  std::array<int, kNumLinkTiers> key_of{};
  for (const LinkTierInfo& t : link_tiers()) {
    const auto it = std::find(keys.begin(), keys.end(), t.utilisation_key);
    key_of[static_cast<std::size_t>(t.kind)] =
        counted(t) && it != keys.end() ? static_cast<int>(it - keys.begin()) : -1;
  }
  std::vector<std::pair<double, int>> acc(keys.size(), {0.0, 0});
  if (end_ns > 0) {
    for (ResourceId id = 0; id < net.engine().num_resources(); ++id) {
      const int k = key_of[static_cast<std::size_t>(topo.kind(id))];
      if (k < 0) continue;
      const ResourceStats st = net.resource_stats(id);
      if (st.transfers == 0) continue;
      auto& a = acc[static_cast<std::size_t>(k)];
      // Whole bytes: the integrated rate carries floating-point dust that depends on the order
      // of the sums (a collective replayed from the executor's cache adds its totals at once).
      a.first += static_cast<double>(std::llround(st.bytes)) /
                 (net.engine().resource(id).capacity_Bpns * end_ns);
      a.second++;
    }
  }
  Json u = Json::object();
  for (std::size_t k = 0; k < keys.size(); ++k)
    u[keys[k]] = acc[k].second ? acc[k].first / acc[k].second : 0.0;
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
