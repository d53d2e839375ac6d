// Expansion of the tile-level microbenchmark patterns into per-tile loads and IPU-pair bytes.
#include "runtime/workloads/microbenchmark/tile_traffic.hpp"

#include <algorithm>

#include "models/ipu/exchange.hpp"
#include "models/ipu/external_ports.hpp"
#include "sim/errors.hpp"

namespace ipusim {
namespace {

/// SplitMix64: a fully specified generator, so a seed gives the same destinations everywhere
/// (the standard distributions are not specified bit for bit across libraries).
std::uint64_t split_mix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Columns between two tiles of one IPU.
std::int64_t column_distance(std::uint32_t a, std::uint32_t b, std::uint32_t chip_tiles,
                             std::uint32_t columns) {
  const std::int64_t ca = tile_column(a, chip_tiles, columns),
                     cb = tile_column(b, chip_tiles, columns);
  return ca > cb ? ca - cb : cb - ca;
}

/// Widens an IPU's phase span to `span` columns.
void widen(TileTrafficPlan& p, std::uint32_t ipu, std::int64_t span) {
  std::int64_t& s = p.span_columns[ipu];
  s = std::max(s, span);
}

/// Adds one message to the plan (a tile sending to itself moves nothing).
void add_message(TileTrafficPlan& p, const TileMessage& m, std::uint32_t chip_tiles,
                 std::uint32_t columns, std::uint32_t port_groups) {
  if (m.bytes == 0 || (m.src_ipu == m.dst_ipu && m.src_tile == m.dst_tile)) return;
  TileLoad& src = p.loads.at(m.src_ipu)[m.src_tile];
  if (m.src_ipu == m.dst_ipu) {
    src.sent_on_chip += m.bytes;
    widen(p, m.src_ipu, column_distance(m.src_tile, m.dst_tile, chip_tiles, columns));
  } else {
    src.sent_off_chip += m.bytes;
    p.pair_bytes[{m.src_ipu, m.dst_ipu}] += m.bytes;
    for (auto [map, tile] : {std::pair{&p.egress_group_bytes, m.src_tile},
                             std::pair{&p.ingress_group_bytes, m.dst_tile}}) {
      std::vector<std::uint64_t>& g = (*map)[{m.src_ipu, m.dst_ipu}];
      g.resize(port_groups, 0);
      g[external_port_group(tile, chip_tiles, columns, port_groups)] += m.bytes;
    }
  }
  TileLoad& dst = p.loads.at(m.dst_ipu)[m.dst_tile];
  (m.src_ipu == m.dst_ipu ? dst.received_on_chip : dst.received_off_chip) += m.bytes;
  p.payload_bytes += m.bytes;
  ++p.messages;
}

}  // namespace

TilePattern parse_tile_pattern(const std::string& s) {
  static const std::pair<const char*, TilePattern> all[] = {
      {"messages", TilePattern::Messages},   {"random", TilePattern::Random},
      {"broadcast", TilePattern::Broadcast}, {"gather", TilePattern::Gather},
      {"scatter", TilePattern::Scatter},     {"reduce", TilePattern::Reduce},
      {"all_to_all", TilePattern::AllToAll}, {"pairs", TilePattern::Pairs}};
  for (const auto& [name, p] : all)
    if (s == name) return p;
  throw ConfigError("unknown tile_traffic pattern '" + s + "'");
}

std::string to_string(TilePattern p) {
  switch (p) {
    case TilePattern::Messages:
      return "messages";
    case TilePattern::Random:
      return "random";
    case TilePattern::Broadcast:
      return "broadcast";
    case TilePattern::Gather:
      return "gather";
    case TilePattern::Scatter:
      return "scatter";
    case TilePattern::Reduce:
      return "reduce";
    case TilePattern::AllToAll:
      return "all_to_all";
    case TilePattern::Pairs:
      return "pairs";
  }
  return "?";
}

RandomScope parse_random_scope(const std::string& s) {
  if (s == "same_ipu") return RandomScope::SameIpu;
  if (s == "any_ipu") return RandomScope::AnyIpu;
  if (s == "other_ipu") return RandomScope::OtherIpu;
  throw ConfigError("unknown destination scope '" + s + "'");
}

TileTrafficPlan plan_tile_traffic(const TileTrafficSpec& spec, std::uint32_t chip_tiles,
                                  std::uint32_t columns, std::uint32_t port_groups) {
  if (spec.ipus.empty()) throw ConfigError("a tile_traffic step needs at least one IPU");
  const std::uint32_t T = spec.tiles == 0 ? chip_tiles : spec.tiles;
  if (T > chip_tiles) {
    throw ConfigError("tiles = " + std::to_string(T) + " but the IPU has " +
                      std::to_string(chip_tiles) + " tiles");
  }
  TileTrafficPlan p;
  for (std::uint32_t ipu : spec.ipus) {
    p.loads[ipu].assign(chip_tiles, TileLoad{});
    p.span_columns[ipu] = 0;
  }
  const auto add = [&](const TileMessage& m) {
    add_message(p, m, chip_tiles, columns, port_groups);
  };
  const auto is_member = [&](std::uint32_t ipu) { return p.loads.count(ipu) != 0; };
  const std::uint64_t b = spec.bytes_per_tile;
  const std::uint64_t N = spec.ipus.size();
  const bool rooted = spec.pattern == TilePattern::Broadcast ||
                      spec.pattern == TilePattern::Gather || spec.pattern == TilePattern::Scatter ||
                      spec.pattern == TilePattern::Reduce;
  if (rooted && !is_member(spec.root_ipu)) {
    throw ConfigError("root_ipu " + std::to_string(spec.root_ipu) +
                      " is not one of the step's IPUs");
  }
  if (rooted && spec.root_tile >= T) {
    throw ConfigError("root_tile " + std::to_string(spec.root_tile) + " is not one of the " +
                      std::to_string(T) + " active tiles");
  }
  switch (spec.pattern) {
    case TilePattern::Messages:
      for (const TileMessage& m : spec.messages) {
        if (!is_member(m.src_ipu) || !is_member(m.dst_ipu))
          throw ConfigError("a message names an IPU that is not one of the step's IPUs");
        if (m.src_tile >= chip_tiles || m.dst_tile >= chip_tiles)
          throw ConfigError("a message names a tile the IPU does not have (0.." +
                            std::to_string(chip_tiles - 1) + ")");
        add(m);
      }
      break;
    case TilePattern::Pairs:
      for (std::uint32_t t = 0; t < T; ++t) {
        add({spec.pair_src, t, spec.pair_dst, t, b});
        if (spec.bidirectional) add({spec.pair_dst, t, spec.pair_src, t, b});
      }
      break;
    case TilePattern::Random: {
      if (spec.scope == RandomScope::OtherIpu && N < 2)
        throw ConfigError("destinations other_ipu needs at least two IPUs");
      std::uint64_t state = spec.seed;
      for (std::uint32_t ipu : spec.ipus) {
        for (std::uint32_t t = 0; t < T; ++t) {
          std::uint32_t dst_ipu = ipu;
          if (spec.scope != RandomScope::SameIpu) {
            do {
              dst_ipu = spec.ipus[split_mix(state) % N];
            } while (spec.scope == RandomScope::OtherIpu && dst_ipu == ipu);
          }
          // Another tile than the sender (Citadel: "a random tile"; one alone sends nothing).
          std::uint32_t dst_tile = static_cast<std::uint32_t>(split_mix(state) % T);
          if (dst_ipu == ipu && dst_tile == t && T > 1) dst_tile = (dst_tile + 1) % T;
          add({ipu, t, dst_ipu, dst_tile, b});
        }
      }
      break;
    }
    case TilePattern::Broadcast: {
      // The exchange fabric multicasts: the root sends the data once on chip and once to each
      // other IPU, whose exchange hands the same data to all its tiles.
      p.same_data = true;
      for (std::uint32_t ipu : spec.ipus) {
        for (std::uint32_t t = 0; t < T; ++t) {
          if (ipu == spec.root_ipu && t == spec.root_tile) continue;
          TileLoad& l = p.loads.at(ipu)[t];
          (ipu == spec.root_ipu ? l.received_on_chip : l.received_off_chip) += b;
          p.payload_bytes += b;
          ++p.messages;
        }
        if (ipu != spec.root_ipu && b > 0) {
          p.loads.at(spec.root_ipu)[spec.root_tile].sent_off_chip += b;
          p.pair_bytes[{spec.root_ipu, ipu}] += b;
        }
      }
      if (T > 1 && b > 0) {
        p.loads.at(spec.root_ipu)[spec.root_tile].sent_on_chip += b;
        // The multicast reaches the active tile farthest from the root.
        widen(p, spec.root_ipu,
              std::max(column_distance(spec.root_tile, 0, chip_tiles, columns),
                       column_distance(spec.root_tile, T - 1, chip_tiles, columns)));
      }
      break;
    }
    case TilePattern::Gather:
    case TilePattern::Reduce:
    case TilePattern::Scatter: {
      const bool to_root = spec.pattern != TilePattern::Scatter;
      for (std::uint32_t ipu : spec.ipus) {
        for (std::uint32_t t = 0; t < T; ++t) {
          const TileMessage m{ipu, t, spec.root_ipu, spec.root_tile, b};
          add(to_root ? m : TileMessage{m.dst_ipu, m.dst_tile, m.src_ipu, m.src_tile, b});
        }
      }
      break;
    }
    case TilePattern::AllToAll: {
      // T x N tiles, each sending b to every other tile: per tile and per IPU pair at once
      // (N^2 T^2 messages are too many to list).
      for (std::uint32_t ipu : spec.ipus) {
        std::vector<TileLoad>& l = p.loads.at(ipu);
        for (std::uint32_t t = 0; t < T; ++t) {
          l[t].sent_on_chip += (T - 1) * b;
          l[t].sent_off_chip += (N - 1) * T * b;
          l[t].received_on_chip += (T - 1) * b;
          l[t].received_off_chip += (N - 1) * T * b;
        }
        if (T > 1 && b > 0) widen(p, ipu, column_distance(0, T - 1, chip_tiles, columns));
        for (std::uint32_t dst : spec.ipus)
          if (dst != ipu && b > 0)
            p.pair_bytes[{ipu, dst}] += static_cast<std::uint64_t>(T) * T * b;
      }
      p.messages = N * T * (N * T - 1);
      p.payload_bytes = p.messages * b;
      break;
    }
  }
  return p;
}

}  // namespace ipusim
