#include "tools/cli/cbr_input.hpp"

#include "sim/errors.hpp"
#include "sim/json_parse.hpp"

namespace ipusim::cli {

coll::TileMapping parse_tile_mapping(const std::string& text, const std::string& source) {
  const Json j = parse_json_text(text, "tile mapping (" + source + ")");
  const std::string shapeHint =
      " (expected [[[begin,end],...] per tile], e.g. [[[0,10]],[[10,16]]])";
  if (!j.is_array()) throw ConfigError("tile mapping (" + source + ") is not a list" + shapeHint);
  coll::TileMapping mapping;
  for (std::size_t t = 0; t < j.size(); ++t) {
    if (!j[t].is_array()) {
      throw ConfigError("tile mapping (" + source + "): tile " + std::to_string(t) +
                        " is not a list of intervals" + shapeHint);
    }
    std::vector<coll::Interval> tile;
    for (const auto& iv : j[t]) {
      if (!iv.is_array() || iv.size() != 2 || !iv[0].is_number_unsigned() ||
          !iv[1].is_number_unsigned()) {
        throw ConfigError("tile mapping (" + source + "): tile " + std::to_string(t) +
                          " has a bad interval " + iv.dump() + shapeHint);
      }
      tile.push_back(coll::Interval{iv[0].get<std::uint64_t>(), iv[1].get<std::uint64_t>()});
    }
    mapping.push_back(std::move(tile));
  }
  return mapping;
}

std::uint64_t check_cbr_sizes(const coll::TileMapping& mapping, std::uint64_t replicas,
                              std::uint64_t grain, std::uint64_t elem_bytes) {
  std::uint64_t n = 0;
  try {
    n = coll::checkTileMapping(mapping);  // sorts the intervals only: no per-element memory
  } catch (const coll::CbrError& e) {
    throw ConfigError(std::string("invalid CBR input: ") + e.what());
  }
  // Upper bound of what the layout holds: every tile pads to a multiple of replicas x grain,
  // so padded <= n + tiles x replicas x grain; the shards hold the padded elements once more.
  std::uint64_t pad = 0, bound = 0;
  const bool overflow =
      __builtin_mul_overflow(static_cast<std::uint64_t>(mapping.size()), replicas, &pad) ||
      __builtin_mul_overflow(pad, grain, &pad) || __builtin_add_overflow(n, pad, &bound) ||
      __builtin_add_overflow(bound, n, &bound);
  if (overflow || bound > kMaxCbrElements) {
    throw ConfigError("cbr: the layout would hold up to " +
                      (overflow ? std::string("more than 2^64") : std::to_string(bound)) +
                      " elements (" + std::to_string(n) + " reference elements on " +
                      std::to_string(mapping.size()) + " tiles, --replicas " +
                      std::to_string(replicas) + ", --grain " + std::to_string(grain) +
                      "), more than the limit of " + std::to_string(kMaxCbrElements) +
                      " elements; use fewer elements, replicas or a smaller grain");
  }
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(n, elem_bytes, &bytes)) {
    throw ConfigError("--elem-bytes " + std::to_string(elem_bytes) + ": " + std::to_string(n) +
                      " elements of that size overflow a 64-bit byte count");
  }
  return n;
}

}  // namespace ipusim::cli
