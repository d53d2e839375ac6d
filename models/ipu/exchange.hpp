#pragma once
// On-chip exchange cost (plain C++). An exchange phase is BSP: its duration is the fixed
// per-phase cost plus the longer of (a) over tiles, the largest of bytes sent and bytes received
// divided by the per-tile exchange rate, and (b) the farthest message's propagation along the
// exchange (cycles per column crossed, + 1 cycle for its word): the exchange is compiler-
// scheduled, so the far words go first and their flight hides under the other transfers. Tiles of a
// supertile share one exchange bus; when all of them receive the same data, each receives at
// tiles_per_supertile times the rate (PLTEST ExchangeEstimator). An idle neighbour does not speed a
// tile up (as in PLTEST).
#include <cstdint>
#include <string>
#include <vector>

#include "models/params/hw_params.hpp"

namespace ipusim {

/// Communication patterns of an exchange phase on one IPU.
enum class ExchangePattern { Uniform, OneToAll, AllToOne, AllGather, Explicit };
ExchangePattern parse_exchange_pattern(const std::string& s);
std::string to_string(ExchangePattern p);

/// Bytes one tile sends and receives in a phase.
struct TileTraffic {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
};

/// One exchange phase. Active tiles are 0 .. tiles-1.
struct ExchangeSpec {
  ExchangePattern pattern = ExchangePattern::Uniform;
  std::uint64_t bytes_per_tile = 0;   ///< uniform: sent and received per tile; one_to_all:
                                      ///< broadcast size; all_to_one and all_gather: per sender
  std::uint32_t tiles = 0;            ///< active tiles; 0 = all tiles of the IPU
  std::uint32_t root_tile = 0;        ///< one_to_all / all_to_one root
  std::vector<TileTraffic> per_tile;  ///< explicit: one entry per tile (missing = idle)
  bool shared_receive = false;        ///< explicit: supertile neighbours receive the same data
  /// Columns the farthest message of the phase crosses; -1 = destinations not listed (training
  /// phases): the whole chip, columns - 1.
  std::int64_t span_columns = -1;
};

/// The chip rates an exchange needs (no defaults: they come from ChipParams, from()).
struct ExchangeRates {
  double bytes_per_cycle_per_tile{};
  std::uint32_t tiles_per_supertile{};
  std::uint64_t fixed_cycles{};
  double cycles_per_column{};  ///< propagation per column crossed
  std::uint32_t columns{};     ///< tile columns along the exchange
  static ExchangeRates from(const ChipParams& c) {
    return {c.exchange_bytes_per_cycle_per_tile, c.tiles_per_supertile, c.exchange_fixed_cycles,
            c.exchange_cycles_per_column, c.exchange_columns};
  }
};

/// Column of tile `tile` on an IPU of `tiles_per_ipu` tiles split into `columns` columns
/// (tile ids run column by column).
std::uint32_t tile_column(std::uint32_t tile, std::uint32_t tiles_per_ipu, std::uint32_t columns);

/// Cycles of a phase with traffic whose busiest tile needs `worst_tile_cycles` and whose farthest
/// message crosses `span_columns` columns (-1: the whole chip): the fixed cost plus the longer of
/// the two, the far word's flight being ceil(cycles_per_column x span) + 1 cycles.
std::uint64_t exchange_phase_cycles(const ExchangeRates& rates, std::uint64_t worst_tile_cycles,
                                    std::int64_t span_columns);

/// Cycles one tile needs for its share of a phase (without the fixed cost).
std::uint64_t tile_exchange_cycles(const ExchangeRates& rates, std::uint64_t sent,
                                   std::uint64_t received, bool receive_shared);

/// True if, in this pattern, tiles that receive all receive the same data.
bool receives_same_data(const ExchangeSpec& spec);

/// Per-tile traffic of a phase on an IPU of `tiles_per_ipu` tiles (vector of that length).
/// Throws ConfigError for inconsistent specs (root or tile count out of range).
std::vector<TileTraffic> expand_exchange(const ExchangeSpec& spec, std::uint32_t tiles_per_ipu);

/// Phase cycles from explicit per-tile traffic (the per_tile fidelity path); `span_columns` as
/// in ExchangeSpec.
std::uint64_t exchange_cycles_per_tile(const ExchangeRates& rates,
                                       const std::vector<TileTraffic>& traffic, bool same_data,
                                       std::int64_t span_columns = -1);

/// Phase cycles computed in closed form from the pattern, treating tiles as balanced
/// (the aggregated fidelity path). Equal to the per-tile result for every named pattern.
std::uint64_t exchange_cycles_aggregated(const ExchangeRates& rates, const ExchangeSpec& spec,
                                         std::uint32_t tiles_per_ipu);

/// Cycles of an on-chip copy of `bytes` between an IPU's IO tiles and its compute tiles
/// (PopART's IoTileCopy) with the data spread evenly: the fixed cost plus the bytes over the
/// smaller of the two tile sets at the per-tile rate (without IO tiles the copy stays on the
/// compute tiles).
std::uint64_t io_copy_cycles(const ExchangeRates& rates, std::uint64_t bytes,
                             std::uint32_t io_tiles, std::uint32_t compute_tiles);
/// The same copy when the busiest tile of either side holds `max_tile_bytes`: the fixed cost
/// plus that tile's bytes at the per-tile rate.
std::uint64_t io_copy_cycles_busiest(const ExchangeRates& rates, std::uint64_t max_tile_bytes);

/// Total bytes sent and received over all tiles in a phase.
TileTraffic exchange_totals(const ExchangeSpec& spec, std::uint32_t tiles_per_ipu);

}  // namespace ipusim
