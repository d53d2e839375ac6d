#pragma once
// `ipusim describe`: a system's size, links and bandwidths as JSON, and as a text table.
#include <string>

#include "sim/json.hpp"

namespace ipusim {

class System;

/// IPUs, machines, domains, tiles, SRAM, peak flops, every link group (physical links,
/// links per bundle, bandwidth per direction, efficiency, latency) and the bisection
/// bandwidth of one IPU-Link domain and of the GW-Link tier.
Json describe_system(const System& system);

/// Human-readable table of a describe_system() result.
std::string describe_table(const Json& description);

}  // namespace ipusim
