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
    // utilisation key, position, in the collective's utilisation, breakdown, inter_ipu, under_gateway, directional,
    // describe groups, bandwidth / efficiency / latency keys
    {ResourceKind::IpuLink, "ipu_link", "ipu_link", "", nullptr, 0, nullptr, "ipu_link",
     "ipu_link", 0, true, LinkTier::IpuLink, true, false, true,
     "ipu_link.partner,ipu_link.cross,ipu_link.rail,ipu_link.wrap", "bandwidth_GBps_per_link", "efficiency", "latency_ns"},
    {ResourceKind::GatewayLink, "gateway_link", "machine/gateway", "ipu_gateway_link_",
     "IPU <-> gateway links", 8192, "8 KiB (PCIe, credit-based: 15.75 GB/s x 2 x 150 ns = 4.7 KB)", "gw_link",
     "gateway_link", 3, false, LinkTier::StreamingMemory, false, true, true, "", "ipu_gateway_link_GBps", "ipu_gateway_link_efficiency",
     "ipu_gateway_link_latency_ns"},
    {ResourceKind::Ddr, "ddr", "machine/gateway", "ddr_", "streaming-memory DDR", 131072,
     "128 KiB (38.4 GB/s x 2 x 1 us = 76.8 KB)", "ddr",
     "ddr", 2, true, LinkTier::StreamingMemory, false, true, false, "", "ddr_bandwidth_GBps", "ddr_efficiency", "ddr_latency_ns"},
    {ResourceKind::GwLink, "gw_link", "machine/gw_link", "", "GW-Links and the GW-Link switch",
     65536, "64 KiB (RoCE over 100 GbE: 12.5 GB/s x 2 x 2 us = 50 KB)", "gw_link", "gw_link", 1, true, LinkTier::GwLink, true, false, true,
     "gw_link,gw_switch,gw_spine_link", "bandwidth_GBps_per_link", "efficiency", "latency_ns"},
    {ResourceKind::GwSwitch, "gw_switch", "machine/gw_link", "", nullptr, 0, nullptr, "gw_link",
     "gw_link", 1, false, LinkTier::GwLink, true, false, false, nullptr, "switch_bandwidth_GBps", nullptr, "switch_latency_ns"},
    {ResourceKind::HostLink, "host_link", "machine/host_link", "", "host links", 262144,
     "256 KiB (RoCE: 25 GB/s x 2 x 5 us = 250 KB)", "host",
     "host_link", 4, false, LinkTier::HostIo, false, true, true, "", "bandwidth_GBps", "efficiency", "latency_ns"},
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
  // The breakdown names, in LinkTier order.
  static const char* const kNames[] = {"local", "ipu_link", "gw_link", "streaming_memory",
                                       "host_io"};
  static_assert(sizeof kNames / sizeof kNames[0] == static_cast<std::size_t>(LinkTier::HostIo) + 1,
                "one breakdown name per LinkTier");
  return kNames[static_cast<std::size_t>(t)];
}

const std::vector<LinkTierInfo>& link_tiers() {
  static const std::vector<LinkTierInfo> tiers(std::begin(kTiers), std::end(kTiers));
  return tiers;
}

const LinkTierInfo& link_tier(ResourceKind kind) { return kTiers[static_cast<std::size_t>(kind)]; }

namespace {
/// Distinct utilisation keys of the rows `counted` accepts, in report order.
template <typename Counted>
std::vector<std::string> keys_of(const Counted& counted) {
  std::vector<std::pair<int, std::string>> keyed;
  for (const LinkTierInfo& t : kTiers) {
    if (!counted(t)) continue;
    const std::pair<int, std::string> k{t.utilisation_position, t.utilisation_key};
    if (std::find(keyed.begin(), keyed.end(), k) == keyed.end()) keyed.push_back(k);
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::string> out;
  for (auto& [pos, key] : keyed) out.push_back(key);
  return out;
}
}  // namespace

std::vector<std::string> utilisation_keys() {
  return keys_of([](const LinkTierInfo&) { return true; });
}

std::vector<std::string> collective_utilisation_keys() {
  return keys_of([](const LinkTierInfo& t) { return t.in_collective_utilisation; });
}

std::vector<std::string> link_breakdown_keys() {
  std::vector<LinkTier> tiers;
  for (const LinkTierInfo& t : kTiers) {
    if (t.breakdown != LinkTier::Local &&
        std::find(tiers.begin(), tiers.end(), t.breakdown) == tiers.end())
      tiers.push_back(t.breakdown);
  }
  std::sort(tiers.begin(), tiers.end());
  std::vector<std::string> out;
  for (LinkTier t : tiers) out.push_back(to_string(t));
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
