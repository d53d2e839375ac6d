#pragma once
// The link tiers of the network: one descriptor per kind of bandwidth resource (IPU-Link,
// IPU <-> gateway link, DDR, GW-Link, GW-Link switch, host link). Everything that used to
// spell the list (flow-control keys and their `ipusim params` entries, the packet-mode checks,
// stats and trace counter names, `--trace-tiers` names, the report's `utilisation` keys,
// `describe` groups, which module owns a resource) reads this table.
//
// Adding a tier (models/network/README.md, "Adding a link tier"): a ResourceKind value here,
// its row in link_tiers.cpp, its parameters in the registry (params/model_params.cpp; the row
// names the keys, read_hw_params() reads them into HwParams::link() and flow()), and the
// resources and routes that use it (routing.cpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ipusim {

/// What a resource models: the row of the link-tier table (link_tier()).
enum class ResourceKind : std::uint8_t { IpuLink, GatewayLink, Ddr, GwLink, GwSwitch, HostLink };
/// Rows of the link-tier table (one per ResourceKind).
inline constexpr std::size_t kNumLinkTiers = 6;

/// Link tier a route uses, for breakdowns ("Local" = no link, same IPU).
enum class LinkTier { Local, IpuLink, GwLink, StreamingMemory, HostIo };
/// Breakdown name of a link tier ("local", "ipu_link", "gw_link", "streaming_memory",
/// "host_io"): the reports' `breakdown_ns` key of time spent on it and an op's `tier`.
std::string to_string(LinkTier t);

/// Descriptor of one link tier.
struct LinkTierInfo {
  ResourceKind kind;
  /// Stats name: `describe` group (unless `describe_groups` says otherwise), trace counter
  /// "<name> utilisation".
  const char* name;
  /// Config section of its flow-control keys (a ConfigNode path, "machine/gw_link").
  const char* config_section;
  /// Flow-control keys:
  /// `<config_section>/<flow_key_prefix>{chunk_bytes,credits_bytes,arbitration}`.
  const char* flow_key_prefix;
  /// What the flow-control keys govern, for `ipusim params`; nullptr when the keys are declared
  /// with the section's own parameters (`/ipu_link`) or by an earlier row sharing them.
  const char* flow_help;
  /// Default receiver buffer per flow of its flow-control keys (B) and the reasoning behind it
  /// (the `ipusim params` help; both unused when `flow_help` is nullptr).
  std::uint64_t default_credits_bytes;
  const char* credits_why;
  /// `--trace-tiers` name of its events and counters.
  const char* trace_track;
  /// Key of the report's `utilisation` (mean over the tier's used resources).
  const char* utilisation_key;
  /// Position of `utilisation_key` in the report (rows sharing a key share a position).
  int utilisation_position;
  /// Counted in the collective report's `utilisation` (collective_utilisation_keys()): the
  /// tiers a collective's schedule uses, and the DDR (reported as 0 there). The switch is not,
  /// though it shares the GW-Link key: the collective reports have always averaged only the
  /// GW-Links themselves.
  bool in_collective_utilisation;
  /// Breakdown tier of a route through it (the highest one counts).
  LinkTier breakdown;
  /// Carries traffic between IPUs (collectives and IPU copies), not only IO.
  bool inter_ipu;
  /// Its module sits under the machine's gateway (else under the machine or the system).
  bool under_gateway;
  /// Both directions are separate resources (so `describe` counts links in pairs).
  bool directional;
  /// `describe` groups printed at this row's place, comma-separated ("" = `name`; nullptr =
  /// printed at another row's place: the GW-Link row lists the switches between its links
  /// and its leaf/spine links). A group's rate and direction come from its resources' row.
  const char* describe_groups;
  /// Keys in `config_section` of the raw rate of one link per direction (GB/s), its
  /// efficiency (nullptr: 1) and its latency per hop (ns; nullptr: 0), read into
  /// HwParams::link(kind) for routing and `describe`.
  const char* bandwidth_key;
  const char* efficiency_key;
  const char* latency_key;
};

/// The table, one row per ResourceKind in enum order.
const std::vector<LinkTierInfo>& link_tiers();
/// The row of `kind`.
const LinkTierInfo& link_tier(ResourceKind kind);
/// Distinct `utilisation` keys in report order.
std::vector<std::string> utilisation_keys();
/// Distinct `utilisation` keys of the rows `in_collective_utilisation`, in report order.
std::vector<std::string> collective_utilisation_keys();
/// Breakdown names of the link tiers a row routes over (LinkTier order, Local excluded):
/// the link keys of every report's `breakdown_ns`, between `sync` and `idle`.
std::vector<std::string> link_breakdown_keys();
/// The `--trace-tiers` tier (a sim/trace.hpp TraceTier) of a resource kind's events.
std::uint8_t link_trace_tier(ResourceKind kind);

/// Registers the tiers' trace tracks with the trace writer, in table order (idempotent);
/// called by register_model_params(), so `--trace-tiers` lists and accepts them.
void register_link_tiers();

}  // namespace ipusim
