#include "models/system/system_estimate.hpp"

#include <cstdio>

namespace ipusim {
namespace {

// Bytes per item, peak-RSS growth measured on the ci build (gcc 12, -O2), rounded down so
// that the estimate stays a lower bound (2026-11-25, `ipusim describe` of pod64 ... pod64k):
//   per_tile fidelity: the tile counters of every IPU (bytes sent, received, compute cycles
//     with their range-add differences, SRAM in use: 7 x 8 bytes per tile);
//   IPU: its SystemC modules, lanes and aggregated counters;
//   network resource: its engine state, stats and name.
constexpr double kBytesPerTileState = 56;
constexpr double kBytesPerIpu = 2000;
constexpr double kBytesPerResource = 150;

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
