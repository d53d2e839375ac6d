// The link-tier table (models/network/link_tiers.hpp): each tier's flow-control keys are
// declared and read into that tier only, the resources of a system group under their tier's
// name and are printed by `describe`, and the names the trace, the report and describe use
// come from the table.
#include "models/network/link_tiers.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "models/network/routing.hpp"
#include "models/params/hw_params.hpp"
#include "models/params/model_params.hpp"
#include "sim/config.hpp"
#include "sim/errors.hpp"
#include "sim/params.hpp"
#include "sim/trace.hpp"

using namespace ipusim;

namespace {

std::string src() {
  const char* d = std::getenv("IPUSIM_SOURCE_DIR");
  return d ? d : IPUSIM_TEST_SOURCE_DIR;
}

/// {"machine": {"gateway": {key: value}}} for section "machine/gateway".
Json nested(const std::string& section, const std::string& key, const Json& value) {
  Json leaf = Json::object();
  leaf[key] = value;
  std::vector<std::string> parts;
  for (std::size_t pos = 0; pos <= section.size();) {
    const std::size_t slash = std::min(section.find('/', pos), section.size());
    parts.push_back(section.substr(pos, slash - pos));
    pos = slash + 1;
  }
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    Json up = Json::object();
    up[*it] = leaf;
    leaf = up;
  }
  return leaf;
}

bool same_keys(const LinkTierInfo& a, const LinkTierInfo& b) {
  return std::string(a.config_section) == b.config_section &&
         std::string(a.flow_key_prefix) == b.flow_key_prefix;
}

/// Every group named by the table's `describe_groups`.
std::set<std::string> described_groups() {
  std::set<std::string> out;
  for (const LinkTierInfo& t : link_tiers()) {
    if (t.describe_groups == nullptr) continue;
    const std::string groups = *t.describe_groups ? t.describe_groups : t.name;
    for (std::size_t pos = 0; pos <= groups.size();) {
      const std::size_t comma = std::min(groups.find(',', pos), groups.size());
      out.insert(groups.substr(pos, comma - pos));
      pos = comma + 1;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("every tier's flow-control keys are declared", "[link_tiers]") {
  register_model_params();
  for (const LinkTierInfo& t : link_tiers()) {
    for (const char* key : {"chunk_bytes", "credits_bytes", "arbitration"}) {
      const std::string path = std::string("/") + t.config_section + "/" + t.flow_key_prefix + key;
      INFO(path);
      CHECK(ParamRegistry::instance().find(path) != nullptr);
    }
  }
}

TEST_CASE("each tier's chunk_bytes key sets exactly the tiers that share it", "[link_tiers]") {
  const HwParams defaults = registry_hw_params();
  for (const LinkTierInfo& t : link_tiers()) {
    // 777 is no tier's default, so a tier that reads it got it from this key.
    const std::string key = std::string(t.flow_key_prefix) + "chunk_bytes";
    INFO(t.config_section << "/" << key);
    ConfigDoc doc = ConfigDoc::from_json(nested(t.config_section, key, 777), "t.json");
    const HwParams p = read_hw_params(doc);
    for (const LinkTierInfo& u : link_tiers()) {
      INFO("tier " << u.name);
      CHECK(p.flow(u.kind).chunk_bytes ==
            (same_keys(t, u) ? 777u : defaults.flow(u.kind).chunk_bytes));
    }
  }
}

TEST_CASE("a tier's flow-control keys set that tier only", "[link_tiers]") {
  const HwParams defaults = registry_hw_params();
  ConfigDoc doc = ConfigDoc::from_json(Json{{"machine",
                                             {{"host_link", {{"chunk_bytes", 512}}},
                                              {"gateway", {{"ddr_credits_bytes", 4096}}},
                                              {"gw_link", {{"arbitration", "fifo"}}}}}},
                                       "t.json");
  const HwParams p = read_hw_params(doc);
  CHECK(p.flow(ResourceKind::HostLink).chunk_bytes == 512);
  CHECK(p.flow(ResourceKind::Ddr).credits_bytes == 4096);
  // The switch shares the GW-Links' keys (/machine/gw_link).
  CHECK(p.flow(ResourceKind::GwLink).arbitration == Arbitration::Fifo);
  CHECK(p.flow(ResourceKind::GwSwitch).arbitration == Arbitration::Fifo);
  // Everything else keeps the registry's values.
  CHECK(p.flow(ResourceKind::IpuLink).chunk_bytes ==
        defaults.flow(ResourceKind::IpuLink).chunk_bytes);
  CHECK(p.flow(ResourceKind::GatewayLink).credits_bytes ==
        defaults.flow(ResourceKind::GatewayLink).credits_bytes);
  CHECK(p.flow(ResourceKind::Ddr).chunk_bytes == defaults.flow(ResourceKind::Ddr).chunk_bytes);
  CHECK(p.flow(ResourceKind::HostLink).arbitration ==
        defaults.flow(ResourceKind::HostLink).arbitration);
  CHECK(p.flow(ResourceKind::IpuLink).arbitration ==
        defaults.flow(ResourceKind::IpuLink).arbitration);
}

TEST_CASE("a tier's per-machine resources are found without a lookup of their own",
          "[link_tiers]") {
  register_model_params();
  ConfigDoc doc = ConfigDoc::load_file(src() + "/configs/systems/pod16.json");
  const Topology topo(read_hw_params(doc));
  for (std::uint32_t m = 0; m < 4; ++m) {
    INFO("machine " << m);
    CHECK(topo.machine_resource(m, ResourceKind::Ddr) == topo.ddr(m));
    CHECK(topo.machine_resource(m, ResourceKind::Ddr, 1) == Topology::kNone);
    // routing.cpp adds host->m<i> before m<i>->host.
    const std::string mn = "m" + std::to_string(m);
    CHECK(topo.resource_specs()[topo.machine_resource(m, ResourceKind::HostLink, 0)].name ==
          "host->" + mn);
    CHECK(topo.resource_specs()[topo.machine_resource(m, ResourceKind::HostLink, 1)].name ==
          mn + "->host");
  }
  CHECK(topo.machine_resource(4, ResourceKind::Ddr) == Topology::kNone);  // a Pod16 has 4
}

TEST_CASE("every resource of a switched Pod256 groups under its tier's name", "[link_tiers]") {
  register_model_params();
  ConfigDoc doc = ConfigDoc::load_file(src() + "/configs/systems/pod256.json");
  const Topology topo(read_hw_params(doc));
  const std::set<std::string> described = described_groups();
  std::vector<int> per_kind(kNumLinkTiers, 0);
  for (ResourceId id = 0; id < topo.num_resources(); ++id) {
    const ResourceSpec& r = topo.resource_specs()[id];
    const std::string name = link_tier(topo.kind(id)).name;
    INFO(r.name << " in group " << r.group);
    CHECK((r.group == name || r.group.rfind(name + ".", 0) == 0));
    CHECK(described.count(r.group) == 1);
    ++per_kind[static_cast<std::size_t>(topo.kind(id))];
  }
  // Pod256: 4 domains of 16 machines of 4 IPUs, switched GW-Links. Per machine one DDR and a
  // host link each way; per IPU a gateway link each way; per machine an up- and a downlink to
  // the one switch.
  CHECK(per_kind[static_cast<std::size_t>(ResourceKind::Ddr)] == 64);
  CHECK(per_kind[static_cast<std::size_t>(ResourceKind::HostLink)] == 2 * 64);
  CHECK(per_kind[static_cast<std::size_t>(ResourceKind::GatewayLink)] == 2 * 256);
  CHECK(per_kind[static_cast<std::size_t>(ResourceKind::GwSwitch)] == 1);
  CHECK(per_kind[static_cast<std::size_t>(ResourceKind::GwLink)] == 2 * 64);
}

TEST_CASE("a leaf/spine fabric's groups are all printed by describe", "[link_tiers]") {
  register_model_params();
  ConfigDoc doc = ConfigDoc::load_file(src() + "/configs/systems/pod1024.json");
  const Topology topo(read_hw_params(doc));
  const std::set<std::string> described = described_groups();
  std::set<std::string> seen;
  for (ResourceId id = 0; id < topo.num_resources(); ++id)
    seen.insert(topo.resource_specs()[id].group);
  for (const std::string& g : seen) {
    INFO(g);
    CHECK(described.count(g) == 1);
  }
  CHECK(seen.count("gw_spine_link") == 1);
}

TEST_CASE("report keys and trace tiers come from the table", "[link_tiers]") {
  register_model_params();
  // The report's `utilisation` order (README "report.json"): the switch counts as a GW-Link.
  CHECK(utilisation_keys() ==
        std::vector<std::string>{"ipu_link", "gw_link", "ddr", "gateway_link", "host_link"});
  // The collective report's: the rows flagged for it (not the switch, not IO).
  CHECK(collective_utilisation_keys() == std::vector<std::string>{"ipu_link", "gw_link", "ddr"});
  CHECK_FALSE(link_tier(ResourceKind::GwSwitch).in_collective_utilisation);
  CHECK(link_tier(ResourceKind::GwLink).in_collective_utilisation);
  // The breakdown's link keys: the rows' breakdown tiers, once each, in LinkTier order.
  CHECK(link_breakdown_keys() ==
        std::vector<std::string>{"ipu_link", "gw_link", "streaming_memory", "host_io"});
  // --trace-tiers: the tiers' tracks once each, in table order, then the tiles' compute.
  CHECK(trace_tier_names(",") == "ipu_link,gw_link,ddr,host,compute");
  CHECK(link_trace_tier(ResourceKind::GwSwitch) == parse_trace_tier("gw_link"));
  CHECK(link_trace_tier(ResourceKind::GatewayLink) == parse_trace_tier("gw_link"));
  CHECK(link_trace_tier(ResourceKind::HostLink) == parse_trace_tier("host"));
  CHECK(link_trace_tier(ResourceKind::Ddr) != link_trace_tier(ResourceKind::IpuLink));
  CHECK_THROWS_WITH(parse_trace_tier("gw_lnk"), Catch::Contains("did you mean 'gw_link'"));
  CHECK(to_string(LinkTier::StreamingMemory) == "streaming_memory");
}
