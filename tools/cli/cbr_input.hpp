#pragma once
// Input side of `ipusim cbr`: the tile-mapping parser and the size check made before any
// layout is built. Separate from the command so that the fuzzer and its corpus replay
// test drive exactly the code the CLI runs.
#include <cstdint>
#include <string>

#include "collectives/sharding/cbr.hpp"

namespace ipusim::cli {

/// Most elements (replicas x padded shard, plus the reference) a `cbr` layout may hold:
/// the command lists every element of every shard, ~100 bytes each in memory and output.
constexpr std::uint64_t kMaxCbrElements = 1ull << 24;

/// Parses `[[[begin,end],...] per tile]`; `source` ("--mapping-json" or a file name)
/// starts every error (ConfigError, exit 2). Nesting and number limits as for configs.
coll::TileMapping parse_tile_mapping(const std::string& text, const std::string& source);

/// Checks, before any layout is built, that the mapping covers [0, n) exactly once and
/// that replicas x padded shard elements and n x elem_bytes fit: ConfigError naming the
/// flag, the values and the limit otherwise. Returns n (the reference elements).
std::uint64_t check_cbr_sizes(const coll::TileMapping& mapping, std::uint64_t replicas,
                              std::uint64_t grain, std::uint64_t elem_bytes);

}  // namespace ipusim::cli
