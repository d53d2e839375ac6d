#include "models/system/system_estimate.hpp"

#include <cstdio>

namespace ipusim {
namespace {

// Bytes per item, peak-RSS growth measured on the ci build (gcc 12, -O2) with `ipusim
// describe multipod` (4096 IPUs, 29,697 resources), rounded down so that the estimate stays a
// lower bound (2026-11-25):
//   per_tile fidelity: 214 MiB against 35 MiB aggregated = 31 bytes per tile (6,029,312
//     tiles) for the tile counters of every IPU, before any op has run;
//   IPU and network resource: the aggregated 35 MiB less ~10 MiB of start-up, shared out as
//     4,000 bytes per IPU (modules, lanes, counters) and 100 per resource (engine state, stats
//     and name).
constexpr double kBytesPerTileState = 30;
constexpr double kBytesPerIpu = 4000;
constexpr double kBytesPerResource = 100;

}  // namespace

WorkEstimate system_work_estimate(const HwParams& p) {
  WorkEstimate e;
  const double ipus = p.num_ipus();
  char what[96];
  std::snprintf(what, sizeof what, "%.0f IPUs", ipus);
  e.memory_parts.push_back({what, ipus * kBytesPerIpu});
  // IPU-Links (partner, cross, up, down) and gateway links in and out per IPU; DDR, host
  // links and GW-Links per machine.
  const double resources = 6.0 * ipus + 5.0 * p.num_machines();
  std::snprintf(what, sizeof what, "%.3g network resources", resources);
  e.memory_parts.push_back({what, resources * kBytesPerResource});
  if (p.system.fidelity == Fidelity::PerTile) {
    const double tiles = ipus * p.chip.tiles;
    std::snprintf(what, sizeof what, "per_tile state of %.3g tiles", tiles);
    e.memory_parts.push_back({what, tiles * kBytesPerTileState});
  }
  e.key = "fidelity";
  e.advice = p.system.fidelity == Fidelity::PerTile
                 ? "set /sim/fidelity to aggregated (one balanced block per IPU; the pod1024, "
                   "pod16k and pod64k presets do)"
                 : "simulate fewer IPUs (/system/num_ilds)";
  return e;
}

}  // namespace ipusim
