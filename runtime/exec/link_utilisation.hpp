#pragma once
// Mean utilisation of the used network resources of each tier over a run (shared by the
// workload kinds that report `utilisation`).
#include "sim/json.hpp"

namespace ipusim {

class System;

/// For each `utilisation` key of the link-tier table (utilisation_keys(): ipu_link, gw_link,
/// ddr, gateway_link, host_link), the mean over its resources that carried traffic of
/// bytes / (capacity x end_ns); 0 for idle tiers.
Json link_utilisation(const System& system, double end_ns);

}  // namespace ipusim
