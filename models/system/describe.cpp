// Topology description: counts links from the network's resource table, so it always
// matches what the simulator routes over.
#include "models/system/describe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "models/network/link_tiers.hpp"
#include "models/system/system.hpp"

namespace ipusim {
namespace {

struct GroupInfo {
  ResourceKind kind = ResourceKind::IpuLink;  ///< the tier of the group's resources
  std::uint64_t resources = 0;
  std::uint64_t link_directions = 0;
  std::uint32_t links_per_bundle_max = 0;
  double latency_ns = 0;
};

/// Every `describe` group in print order: the groups each tier row lists, row by row.
std::vector<std::string> group_order() {
  std::vector<std::string> out;
  for (const LinkTierInfo& t : link_tiers()) {
    if (t.describe_groups == nullptr) continue;  // printed at another row's place
    const std::string groups = *t.describe_groups ? t.describe_groups : t.name;
    for (std::size_t pos = 0; pos <= groups.size();) {
      const std::size_t comma = std::min(groups.find(',', pos), groups.size());
      out.push_back(groups.substr(pos, comma - pos));
      pos = comma + 1;
    }
  }
  return out;
}

Json bisection(const System& s) {
  const HwParams& p = s.params();
  const double ipu_link = p.ipu_link.link_Bpns();
  const std::uint32_t rungs = s.ild_size_ipus() / 2;
  Json b = Json::object();
  // IPU-Link domain: the cheaper of cutting the rails in the middle (2 rails, + wrap links on
  // a torus) and splitting the two rails apart (every rung's partner and cross links).
  std::uint64_t links = 0;
  if (s.ild_size_ipus() >= 2) {
    const std::uint64_t vertical =
        static_cast<std::uint64_t>(rungs) * (p.ipu_link.partner_links + p.ipu_link.cross_links);
    if (rungs >= 2) {
      std::uint64_t horizontal = 2ull * p.ipu_link.up_links;
      if (s.torus()) horizontal += 2ull * p.ipu_link.torus_wrap_links;
      links = std::min(horizontal, vertical);
    } else {
      links = vertical;
    }
  }
  b["ild_links"] = links;
  b["ild_GBps_per_direction"] = static_cast<double>(links) * ipu_link;
  // GW-Link tier: half the domains against the other half.
  double gw = 0;
  const double gw_link = p.machine.gw_link_bandwidth_GBps * p.machine.gw_link_efficiency;
  const std::uint32_t n = s.num_ilds(), m = p.system.machines_per_ild,
                      g = p.machine.gw_links_per_machine;
  if (n >= 2 && s.gw_topology() == GwTopology::Ring) {
    // Two ring segments are cut (one when there are only two domains, but then both cables
    // of each machine join the same pair); each segment has m cables of g/2 links.
    gw = n == 2 ? static_cast<double>(m) * g * gw_link : 2.0 * m * ((g + 1) / 2) * gw_link;
  } else if (n >= 2 && s.gw_topology() == GwTopology::LeafSpine) {
    // Half the leaves against the other half through the non-blocking spine: each leaf's
    // uplink (its machines' GW-Links / oversubscription), capped by its switch; one leaf is
    // the single switch's cut.
    const double leaf_machines_links = static_cast<double>(p.system.gw_leaf_ilds) * m * g * gw_link;
    const std::uint32_t leaves = n / p.system.gw_leaf_ilds;
    if (leaves >= 2) {
      const double up = leaf_machines_links / p.machine.leaf_oversubscription;
      gw = leaves / 2 * std::min(up, p.machine.switch_bandwidth_GBps);
    } else {
      gw = std::min(static_cast<double>(n / 2) * m * g * gw_link, p.machine.switch_bandwidth_GBps);
    }
  } else if (n >= 2 && s.gw_topology() == GwTopology::Switch) {
    const double half_uplinks = static_cast<double>(n / 2) * m * g * gw_link;
    gw = std::min(half_uplinks, p.machine.switch_bandwidth_GBps);
  }
  b["gw_GBps_per_direction"] = gw;
  return b;
}

/// leaf_spine: the fabric's shape, ports per leaf and how traffic is routed.
Json gw_fabric(const HwParams& p) {
  const std::uint64_t down = static_cast<std::uint64_t>(p.system.gw_leaf_ilds) *
                             p.system.machines_per_ild * p.machine.gw_links_per_machine;
  const double up = std::ceil(static_cast<double>(down) / p.machine.leaf_oversubscription);
  return {{"leaves", p.system.num_ilds / p.system.gw_leaf_ilds},
          {"ilds_per_leaf", p.system.gw_leaf_ilds},
          {"leaf_down_ports", down},
          {"leaf_up_ports", static_cast<std::uint64_t>(up)},
          {"leaf_oversubscription", p.machine.leaf_oversubscription},
          {"switch_radix_ports", p.machine.switch_radix_ports},
          {"routing",
           "same domain: IPU-Links (ladder/torus); same leaf: IPU -> gateway -> machine uplink -> "
           "leaf switch -> machine downlink -> gateway -> IPU; other leaf: ... leaf switch -> "
           "leaf uplink -> spine -> leaf downlink -> leaf switch -> ..."}};
}

}  // namespace

Json describe_system(const System& s) {
  const HwParams& p = s.params();
  Json d = Json::object();
  d["system"] = p.system.name;
  d["chip"] = p.chip.name;
  d["machine"] = p.machine.name;
  d["ipus"] = s.num_ipus();
  d["machines"] = s.num_machines();
  d["ilds"] = s.num_ilds();
  d["ild_size_ipus"] = s.ild_size_ipus();
  d["ipus_per_machine"] = s.ipus_per_machine();
  d["ipu_link_topology"] = to_string(p.system.ipu_link_topology);
  d["torus_wraps"] = s.torus();
  d["gw_topology"] = to_string(p.system.gw_topology);
  d["fidelity"] = to_string(p.system.fidelity);
  // Not hardware, but the run's: its poplibs release sets the vertices' cycle estimates.
  d["poplar_sdk_version"] = to_string(p.chip.poplar_sdk);
  d["clock_GHz"] = p.chip.clock_GHz;
  d["tiles_per_ipu"] = p.chip.tiles;
  d["tiles"] = static_cast<std::uint64_t>(p.chip.tiles) * s.num_ipus();
  d["sram_per_tile_bytes"] = p.chip.sram_per_tile_bytes;
  d["sram_total_bytes"] =
      p.chip.sram_per_tile_bytes * p.chip.tiles * static_cast<std::uint64_t>(s.num_ipus());
  const double tiles_ghz = static_cast<double>(p.chip.tiles) * s.num_ipus() * p.chip.clock_GHz;
  d["peak_TFLOPs"] = {{"float16", tiles_ghz * p.chip.amp_flops_per_cycle_fp16 * 1e-3},
                      {"float16_32", tiles_ghz * p.chip.amp_flops_per_cycle_fp16_32 * 1e-3},
                      {"float32", tiles_ghz * p.chip.amp_flops_per_cycle_fp32 * 1e-3}};
  d["streaming_memory"] = {{"capacity_bytes_per_machine", p.machine.capacity_bytes()},
                           {"capacity_bytes_total", p.machine.capacity_bytes() * s.num_machines()},
                           {"ddr_GBps_per_machine", p.machine.ddr_bandwidth_GBps},
                           {"latency_ns", p.machine.ddr_latency_ns}};

  std::map<std::string, GroupInfo> groups;
  const FlowEngine& e = s.network().engine();
  for (ResourceId id = 0; id < e.num_resources(); ++id) {
    const ResourceSpec& r = e.resource(id);
    GroupInfo& gi = groups[r.group];
    gi.kind = r.kind;
    gi.resources++;
    gi.link_directions += r.links;
    gi.links_per_bundle_max = std::max(gi.links_per_bundle_max, r.links);
    gi.latency_ns = std::max(gi.latency_ns, r.latency_ns);
  }
  Json links = Json::array();
  for (const std::string& g : group_order()) {
    auto it = groups.find(g);
    if (it == groups.end()) continue;
    const GroupInfo& gi = it->second;
    const bool dir = link_tier(gi.kind).directional;
    const double rate = p.link(gi.kind).bandwidth_GBps;
    const double eff = p.link(gi.kind).efficiency;
    links.push_back({{"group", g},
                     {"links", dir ? gi.link_directions / 2 : gi.link_directions},
                     {"bundles", dir ? gi.resources / 2 : gi.resources},
                     {"links_per_bundle", gi.links_per_bundle_max},
                     {"GBps_per_link_per_direction", rate},
                     {"efficiency", eff},
                     {"usable_GBps_per_bundle_per_direction", rate * eff * gi.links_per_bundle_max},
                     {"latency_ns", gi.latency_ns}});
  }
  d["links"] = std::move(links);
  std::uint64_t ipu_links = 0;
  for (const auto& l : d["links"]) {
    if (l["group"].get<std::string>().rfind("ipu_link", 0) == 0)
      ipu_links += l["links"].get<std::uint64_t>();
  }
  d["ipu_links_total"] = ipu_links;
  d["bisection"] = bisection(s);
  if (p.system.gw_topology == GwTopology::LeafSpine) d["gw_fabric"] = gw_fabric(p);
  return d;
}

std::string describe_table(const Json& d) {
  std::ostringstream o;
  char buf[256];
  o << "System " << d.value("system", "?") << ": " << d.value("ipus", 0u) << " x "
    << d.value("chip", "?") << " IPUs in " << d.value("machines", 0u) << " x "
    << d.value("machine", "?") << " machines, " << d.value("ilds", 0u) << " IPU-Link domain(s) of "
    << d.value("ild_size_ipus", 0u) << " IPUs\n";
  o << "  IPU-Link topology: " << d.value("ipu_link_topology", "?")
    << (d.value("torus_wraps", false) ? " (wraps)" : "")
    << ", GW-Link topology: " << d.value("gw_topology", "?")
    << ", fidelity: " << d.value("fidelity", "?")
    << ", Poplar SDK: " << d.value("poplar_sdk_version", "?") << "\n";
  std::snprintf(buf, sizeof buf, "  tiles: %llu (%u per IPU), SRAM: %.3f GiB, clock %.3f GHz\n",
                static_cast<unsigned long long>(d.value("tiles", 0ull)),
                d.value("tiles_per_ipu", 0u),
                static_cast<double>(d.value("sram_total_bytes", 0ull)) / 1073741824.0,
                d.value("clock_GHz", 0.0));
  o << buf;
  if (d.contains("peak_TFLOPs")) {
    std::snprintf(buf, sizeof buf, "  peak: %.1f TFLOP/s FP16.16, %.1f TFLOP/s FP32\n",
                  d["peak_TFLOPs"].value("float16", 0.0), d["peak_TFLOPs"].value("float32", 0.0));
    o << buf;
  }
  // Every column with its unit: "usable" is GB/s per bundle and direction after efficiency.
  std::snprintf(buf, sizeof buf, "\n  %-18s %8s %8s %12s %12s %6s %22s %10s\n", "link group",
                "links", "bundles", "links/bundle", "GB/s/link/dir", "eff",
                "usable GB/s/bundle/dir", "latency ns");
  o << buf;
  for (const auto& l : d.value("links", Json::array())) {
    std::snprintf(
        buf, sizeof buf, "  %-18s %8llu %8llu %12u %12.3f %6.2f %22.3f %10.0f\n",
        l.value("group", "?").c_str(), static_cast<unsigned long long>(l.value("links", 0ull)),
        static_cast<unsigned long long>(l.value("bundles", 0ull)), l.value("links_per_bundle", 0u),
        l.value("GBps_per_link_per_direction", 0.0), l.value("efficiency", 0.0),
        l.value("usable_GBps_per_bundle_per_direction", 0.0), l.value("latency_ns", 0.0));
    o << buf;
  }
  if (d.contains("bisection")) {
    std::snprintf(buf, sizeof buf,
                  "\n  bisection per direction: IPU-Link domain %.1f GB/s (%llu links), GW-Link "
                  "tier %.1f GB/s\n",
                  d["bisection"].value("ild_GBps_per_direction", 0.0),
                  static_cast<unsigned long long>(d["bisection"].value("ild_links", 0ull)),
                  d["bisection"].value("gw_GBps_per_direction", 0.0));
    o << buf;
  }
  if (d.contains("gw_fabric")) {
    const Json& f = d["gw_fabric"];
    std::snprintf(buf, sizeof buf,
                  "  leaf/spine: %u leaves of %u domains, %llu down + %llu up ports per leaf "
                  "(%.3g:1 oversubscribed, radix %u)\n",
                  f.value("leaves", 0u), f.value("ilds_per_leaf", 0u),
                  static_cast<unsigned long long>(f.value("leaf_down_ports", 0ull)),
                  static_cast<unsigned long long>(f.value("leaf_up_ports", 0ull)),
                  f.value("leaf_oversubscription", 0.0), f.value("switch_radix_ports", 0u));
    o << buf << "  routing: " << f.value("routing", "?") << "\n";
  }
  return o.str();
}

}  // namespace ipusim
