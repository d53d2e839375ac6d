#pragma once
// The chip's IPU-Link ports seen from its tiles (plain C++, no SystemC): the ports sit in
// groups along the exchange (the die figure shows them on its left and right edges), and a
// tile's packets to or from another IPU use the ports of the group nearest its column. A tile
// set that lies in one group therefore reaches only that group's share of the links to an
// IPU; a set spread over the whole chip reaches all of them. See /chip/external_port_groups.
#include <cstdint>
#include <vector>

namespace ipusim {

/// The port group serving `tile`: the exchange's `columns` split into `groups` equal runs
/// (tile t in column t / (tiles / columns), as tile_column()). Needs groups >= 1.
std::uint32_t external_port_group(std::uint32_t tile, std::uint32_t tiles_per_ipu,
                                  std::uint32_t columns, std::uint32_t groups);

/// Fraction of a bundle of `links` links to one neighbour that the ports of one group hold:
/// 1 / groups when the bundle has a link for every group (ASSUMPTION: a bundle's links are
/// spread evenly over the groups), else 1 (a bundle of fewer links than groups is shared by
/// every group's tiles).
double external_port_share(std::uint32_t links, std::uint32_t groups);

/// Time (ns) the ports need to carry one bundle's bytes of one exchange phase, one direction:
/// the slowest group, each group's bytes at its share of the bundle's `capacity_Bpns` (usable
/// bytes per ns). `group_bytes` has one entry per group; 0 when no bytes.
double external_ports_ns(const std::vector<std::uint64_t>& group_bytes, double capacity_Bpns,
                         std::uint32_t links);

}  // namespace ipusim
