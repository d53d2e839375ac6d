#pragma once
// The link tiers in the reports, from the link-tier table: the mean utilisation of the used
// network resources of each tier over a run (shared by the workload kinds that report
// `utilisation`) and the categories of `breakdown_ns`.
#include "sim/json.hpp"

namespace ipusim {

class System;

/// For each `utilisation` key of the link-tier table (utilisation_keys(): ipu_link, gw_link,
/// ddr, gateway_link, host_link), the mean over its resources that carried traffic of
/// bytes / (capacity x end_ns); 0 for idle tiers.
Json link_utilisation(const System& system, double end_ns);

/// The same over the rows `in_collective_utilisation` only (collective_utilisation_keys():
/// ipu_link, gw_link, ddr; the switch is not averaged into gw_link): the `utilisation` of the
/// collective report.
Json collective_link_utilisation(const System& system, double end_ns);

/// Breakdown categories that are not link tiers (the link tiers' are to_string(LinkTier)).
inline constexpr const char* kComputeCategory = "compute";
inline constexpr const char* kExchangeCategory = "exchange";
inline constexpr const char* kSyncCategory = "sync";
inline constexpr const char* kIdleCategory = "idle";

/// `breakdown_ns` with every category at 0, in report order: compute, exchange, sync, the
/// link tiers' breakdown keys (link_breakdown_keys(): ipu_link, gw_link, streaming_memory,
/// host_io), idle.
Json zero_breakdown();

}  // namespace ipusim
