// Port groups of the chip's IPU-Links: which group a tile uses and how long a phase's bytes
// need at the group's share of a bundle.
#include "models/ipu/external_ports.hpp"

#include <algorithm>

#include "models/ipu/exchange.hpp"

namespace ipusim {

std::uint32_t external_port_group(std::uint32_t tile, std::uint32_t tiles_per_ipu,
                                  std::uint32_t columns, std::uint32_t groups) {
  const std::uint32_t c = std::max(1u, columns);
  const std::uint32_t g = std::clamp(groups, 1u, c);
  // Column runs of equal length; a remainder (columns not a multiple of groups) joins the last.
  const std::uint32_t per_group = c / g;
  return std::min(g - 1, tile_column(tile, tiles_per_ipu, c) / per_group);
}

double external_port_share(std::uint32_t links, std::uint32_t groups) {
  return groups > 1 && links >= groups ? 1.0 / groups : 1.0;
}

double external_ports_ns(const std::vector<std::uint64_t>& group_bytes, double capacity_Bpns,
                         std::uint32_t links) {
  if (capacity_Bpns <= 0) return 0.0;
  const auto groups = static_cast<std::uint32_t>(group_bytes.size());
  const double rate = capacity_Bpns * external_port_share(links, groups);
  // Groups that share the whole bundle (share 1) are one pool: their bytes add up.
  if (external_port_share(links, groups) >= 1.0) {
    std::uint64_t sum = 0;
    for (std::uint64_t b : group_bytes) sum += b;
    return static_cast<double>(sum) / rate;
  }
  std::uint64_t worst = 0;
  for (std::uint64_t b : group_bytes) worst = std::max(worst, b);
  return static_cast<double>(worst) / rate;
}

}  // namespace ipusim
