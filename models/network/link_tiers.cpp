// The link-tier table (see link_tiers.hpp).
#include "models/network/link_tiers.hpp"

#include <algorithm>
#include <utility>

#include "sim/trace.hpp"

namespace ipusim {
namespace {

// clang-format off
/// One row per ResourceKind, in enum order (checked below).
constexpr LinkTierInfo kTiers[] = {
    // kind, name, config section, flow key prefix, flow help, default credits and why, trace track,
    // utilisation key, position, breakdown, inter_ipu, under_gateway, directional,
    // describe groups, bandwidth / efficiency / latency keys
    {ResourceKind::IpuLink, "ipu_link", "ipu_link", "", nullptr, 0, nullptr, "ipu_link",
     "ipu_link", 0, LinkTier::IpuLink, true, false, true,
     "ipu_link.partner,ipu_link.cross,ipu_link.rail,ipu_link.wrap", "bandwidth_GBps_per_link", "efficiency", "latency_ns"},
    {ResourceKind::GatewayLink, "gateway_link", "machine/gateway", "ipu_gateway_link_",
     "IPU <-> gateway links", 8192, "8 KiB (PCIe, credit-based: 15.75 GB/s x 2 x 150 ns = 4.7 KB)", "gw_link",
     "gateway_link", 3, LinkTier::StreamingMemory, false, true, true, "", "ipu_gateway_link_GBps", "ipu_gateway_link_efficiency",
     "ipu_gateway_link_latency_ns"},
    {ResourceKind::Ddr, "ddr", "machine/gateway", "ddr_", "streaming-memory DDR", 131072,
     "128 KiB (38.4 GB/s x 2 x 1 us = 76.8 KB)", "ddr",
     "ddr", 2, LinkTier::StreamingMemory, false, true, false, "", "ddr_bandwidth_GBps", "ddr_efficiency", "ddr_latency_ns"},
    {ResourceKind::GwLink, "gw_link", "machine/gw_link", "", "GW-Links and the GW-Link switch",
     65536, "64 KiB (RoCE over 100 GbE: 12.5 GB/s x 2 x 2 us = 50 KB)", "gw_link", "gw_link", 1, LinkTier::GwLink, true, false, true,
     "gw_link,gw_switch,gw_spine_link", "bandwidth_GBps_per_link", "efficiency", "latency_ns"},
    {ResourceKind::GwSwitch, "gw_switch", "machine/gw_link", "", nullptr, 0, nullptr, "gw_link",
     "gw_link", 1, LinkTier::GwLink, true, false, false, nullptr, "switch_bandwidth_GBps", nullptr, "switch_latency_ns"},
    {ResourceKind::HostLink, "host_link", "machine/host_link", "", "host links", 262144,
     "256 KiB (RoCE: 25 GB/s x 2 x 5 us = 250 KB)", "host",
     "host_link", 4, LinkTier::HostIo, false, true, true, "", "bandwidth_GBps", "efficiency", "latency_ns"},
};
// clang-format on

constexpr bool rows_in_enum_order() {
  std::size_t i = 0;
  for (const LinkTierInfo& t : kTiers) {
    if (static_cast<std::size_t>(t.kind) != i++) return false;
  }
  return i == kNumLinkTiers;
}
static_assert(rows_in_enum_order(), "one link-tier row per ResourceKind, in enum order");

}  // namespace

std::string to_string(LinkTier t) {
  switch (t) {
    case LinkTier::Local:
      return "local";
    case LinkTier::IpuLink:
      return "ipu_link";
    case LinkTier::GwLink:
      return "gw_link";
    case LinkTier::StreamingMemory:
      return "streaming_memory";
    case LinkTier::HostIo:
      return "host_io";
  }
  return "?";
}

const std::vector<LinkTierInfo>& link_tiers() {
  static const std::vector<LinkTierInfo> tiers(std::begin(kTiers), std::end(kTiers));
  return tiers;
}

const LinkTierInfo& link_tier(ResourceKind kind) { return kTiers[static_cast<std::size_t>(kind)]; }

std::vector<std::string> utilisation_keys() {
  std::vector<std::pair<int, std::string>> keyed;
  for (const LinkTierInfo& t : kTiers) {
    const std::pair<int, std::string> k{t.utilisation_position, t.utilisation_key};
    if (std::find(keyed.begin(), keyed.end(), k) == keyed.end()) keyed.push_back(k);
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::string> out;
  for (auto& [pos, key] : keyed) out.push_back(key);
  return out;
}

std::uint8_t link_trace_tier(ResourceKind kind) {
  // Looked up once (tracing asks per event); the registry keeps an index for good.
  static const auto tiers = [] {
    std::vector<TraceTier> out;
    for (const LinkTierInfo& t : kTiers) out.push_back(trace_tier(t.trace_track));
    return out;
  }();
  return tiers[static_cast<std::size_t>(kind)];
}

void register_link_tiers() {
  for (const LinkTierInfo& t : kTiers) trace_tier(t.trace_track);
}

}  // namespace ipusim
