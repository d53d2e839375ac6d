#pragma once
// Tile-level traffic of the component microbenchmarks (plain C++): which tile of which IPU sends
// how many bytes to which tile of which IPU in one BSP superstep, reduced to what the models
// time — each IPU's per-tile exchange load (for the IPU's exchange model, whose tile ports bound
// it) and the bytes each ordered IPU pair moves over the network (for the links, gateways and
// GW-Links, with their sharing and contention). Patterns follow the Citadel GC2 report's tests
// (arXiv 1912.03413, sections 4.1-4.4): tile -> tile messages, every tile to a random tile,
// broadcast, gather, scatter, reduce (a gather, then the root's reduction vertex) and all-to-all
// over the tiles of N IPUs.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ipusim {

/// The tile-level patterns of a `tile_traffic` step.
enum class TilePattern { Messages, Random, Broadcast, Gather, Scatter, Reduce, AllToAll, Pairs };
TilePattern parse_tile_pattern(const std::string& s);
std::string to_string(TilePattern p);

/// Where a `random` pattern's tiles send: a tile of their own IPU, of any IPU of the step, or
/// of another IPU of the step.
enum class RandomScope { SameIpu, AnyIpu, OtherIpu };
RandomScope parse_random_scope(const std::string& s);

/// One tile -> tile message.
struct TileMessage {
  std::uint32_t src_ipu = 0, src_tile = 0, dst_ipu = 0, dst_tile = 0;
  std::uint64_t bytes = 0;
};

/// What a tile_traffic step asks for (IPU ids are global, tiles are tile indices of an IPU).
struct TileTrafficSpec {
  TilePattern pattern = TilePattern::Messages;
  std::vector<std::uint32_t> ipus;  ///< the IPUs taking part, sorted, unique
  std::uint32_t tiles = 0;          ///< active tiles per IPU (tiles 0 .. tiles-1)
  std::uint64_t bytes_per_tile = 0;
  std::uint32_t root_ipu = 0, root_tile = 0;
  std::uint64_t seed = 1;
  RandomScope scope = RandomScope::SameIpu;
  std::vector<TileMessage> messages;  ///< messages pattern
  std::uint32_t pair_src = 0, pair_dst = 0;
  bool bidirectional = false;  ///< pairs: the destination's tiles send back at the same time
};

/// One tile's share of a superstep: bytes its exchange port sends and receives, on chip (other
/// tiles of its IPU) and off chip (other IPUs, over the links).
struct TileLoad {
  std::uint64_t sent_on_chip = 0;
  std::uint64_t sent_off_chip = 0;
  std::uint64_t received_on_chip = 0;
  std::uint64_t received_off_chip = 0;
};

/// A superstep reduced to what the models time.
struct TileTrafficPlan {
  std::map<std::uint32_t, std::vector<TileLoad>> loads;  ///< per IPU, one entry per chip tile
  /// Bytes each ordered IPU pair (src, dst) moves over the network.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> pair_bytes;
  bool same_data = false;           ///< receivers get the same data (supertile sharing)
  std::uint64_t payload_bytes = 0;  ///< bytes delivered to destination tiles
  std::uint64_t messages = 0;       ///< tile -> tile messages (broadcast: one per receiver)
  /// Per IPU: columns its farthest on-chip message crosses (its exchange phase's span; off-chip
  /// messages leave through the IPU-Link port, whose path the link latency covers).
  std::map<std::uint32_t, std::int64_t> span_columns;
  /// Per ordered IPU pair (src, dst): its bytes by the port group (external_port_group()) of
  /// the sending tile (`egress`) and of the receiving tile (`ingress`), one entry per group.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint64_t>> egress_group_bytes,
      ingress_group_bytes;
};

/// Expands a spec on IPUs of `chip_tiles` tiles in `columns` exchange columns whose IPU-Link
/// ports form `port_groups` groups. Throws ConfigError (no path: the caller adds it) for tiles
/// or roots out of range and messages naming IPUs not in `spec.ipus`.
TileTrafficPlan plan_tile_traffic(const TileTrafficSpec& spec, std::uint32_t chip_tiles,
                                  std::uint32_t columns, std::uint32_t port_groups = 1);

}  // namespace ipusim
