// Exchange phase cost: per-tile bound with supertile receive sharing.
#include "models/ipu/exchange.hpp"

#include <algorithm>
#include <cmath>

#include "sim/errors.hpp"

namespace ipusim {
namespace {

std::uint64_t ceil_div(double bytes, double rate) {
  if (bytes <= 0) return 0;
  return static_cast<std::uint64_t>(std::ceil(bytes / rate - 1e-9));
}

std::uint32_t active_tiles(const ExchangeSpec& spec, std::uint32_t tiles_per_ipu) {
  if (spec.pattern == ExchangePattern::Explicit) {
    if (spec.per_tile.size() > tiles_per_ipu) {
      throw ConfigError("exchange: per_tile_bytes has " + std::to_string(spec.per_tile.size()) +
                        " entries but the IPU has " + std::to_string(tiles_per_ipu) + " tiles");
    }
    return static_cast<std::uint32_t>(spec.per_tile.size());
  }
  const std::uint32_t n = spec.tiles == 0 ? tiles_per_ipu : spec.tiles;
  if (n > tiles_per_ipu) {
    throw ConfigError("exchange: tiles = " + std::to_string(n) + " but the IPU has " +
                      std::to_string(tiles_per_ipu) + " tiles");
  }
  if ((spec.pattern == ExchangePattern::OneToAll || spec.pattern == ExchangePattern::AllToOne) &&
      spec.root_tile >= n) {
    throw ConfigError("exchange: root_tile " + std::to_string(spec.root_tile) +
                      " is not one of the " + std::to_string(n) + " active tiles");
  }
  return n;
}

}  // namespace

ExchangePattern parse_exchange_pattern(const std::string& s) {
  if (s == "uniform") return ExchangePattern::Uniform;
  if (s == "one_to_all") return ExchangePattern::OneToAll;
  if (s == "all_to_one") return ExchangePattern::AllToOne;
  if (s == "all_gather") return ExchangePattern::AllGather;
  if (s == "explicit") return ExchangePattern::Explicit;
  throw ConfigError("unknown exchange pattern '" + s + "'");
}

std::string to_string(ExchangePattern p) {
  switch (p) {
    case ExchangePattern::Uniform:
      return "uniform";
    case ExchangePattern::OneToAll:
      return "one_to_all";
    case ExchangePattern::AllToOne:
      return "all_to_one";
    case ExchangePattern::AllGather:
      return "all_gather";
    case ExchangePattern::Explicit:
      return "explicit";
  }
  return "?";
}

std::uint64_t tile_exchange_cycles(const ExchangeRates& rates, std::uint64_t sent,
                                   std::uint64_t received, bool receive_shared) {
  const double r = rates.bytes_per_cycle_per_tile;
  const double rx = receive_shared ? r * rates.tiles_per_supertile : r;
  return std::max(ceil_div(static_cast<double>(sent), r),
                  ceil_div(static_cast<double>(received), rx));
}

bool receives_same_data(const ExchangeSpec& spec) {
  switch (spec.pattern) {
    case ExchangePattern::OneToAll:
    case ExchangePattern::AllGather:
      return true;
    case ExchangePattern::Explicit:
      return spec.shared_receive;
    default:
      return false;
  }
}

std::vector<TileTraffic> expand_exchange(const ExchangeSpec& spec, std::uint32_t tiles_per_ipu) {
  const std::uint32_t n = active_tiles(spec, tiles_per_ipu);
  std::vector<TileTraffic> t(tiles_per_ipu);
  const std::uint64_t b = spec.bytes_per_tile;
  switch (spec.pattern) {
    case ExchangePattern::Uniform:
      for (std::uint32_t i = 0; i < n; ++i) t[i] = {b, b};
      break;
    case ExchangePattern::OneToAll:
      // The fabric broadcasts: the root sends once, every other active tile receives.
      for (std::uint32_t i = 0; i < n; ++i) t[i] = {0, b};
      t[spec.root_tile] = {n > 1 ? b : 0, 0};
      break;
    case ExchangePattern::AllToOne:
      for (std::uint32_t i = 0; i < n; ++i) t[i] = {b, 0};
      t[spec.root_tile] = {0, b * (n - 1)};
      break;
    case ExchangePattern::AllGather:
      for (std::uint32_t i = 0; i < n; ++i) t[i] = {n > 1 ? b : 0, b * (n - 1)};
      break;
    case ExchangePattern::Explicit:
      std::copy(spec.per_tile.begin(), spec.per_tile.end(), t.begin());
      break;
  }
  return t;
}

std::uint32_t tile_column(std::uint32_t tile, std::uint32_t tiles_per_ipu, std::uint32_t columns) {
  const std::uint32_t per_column =
      std::max<std::uint32_t>(1, tiles_per_ipu / std::max(1u, columns));
  return tile / per_column;
}

std::uint64_t exchange_phase_cycles(const ExchangeRates& rates, std::uint64_t worst_tile_cycles,
                                    std::int64_t span_columns) {
  const double span = span_columns < 0 ? (rates.columns > 0 ? rates.columns - 1.0 : 0.0)
                                       : static_cast<double>(span_columns);
  // The farthest word: its flight along the exchange, then its one cycle into the tile.
  const std::uint64_t flight = ceil_div(rates.cycles_per_column * span, 1.0) + 1;
  return rates.fixed_cycles + std::max(worst_tile_cycles, flight);
}

std::uint64_t exchange_cycles_per_tile(const ExchangeRates& rates,
                                       const std::vector<TileTraffic>& traffic, bool same_data,
                                       std::int64_t span_columns) {
  const std::size_t st = std::max<std::uint32_t>(1, rates.tiles_per_supertile);
  std::uint64_t worst = 0;
  bool any = false;
  for (std::size_t base = 0; base < traffic.size(); base += st) {
    const std::size_t end = std::min(traffic.size(), base + st);
    // Sharing needs a full supertile in which every tile receives (the same data).
    bool shared = same_data && st > 1 && end - base == st;
    for (std::size_t i = base; i < end && shared; ++i) shared = traffic[i].received > 0;
    for (std::size_t i = base; i < end; ++i) {
      if (traffic[i].sent == 0 && traffic[i].received == 0) continue;
      any = true;
      worst = std::max(worst,
                       tile_exchange_cycles(rates, traffic[i].sent, traffic[i].received, shared));
    }
  }
  return any ? exchange_phase_cycles(rates, worst, span_columns) : 0;
}

std::uint64_t exchange_cycles_aggregated(const ExchangeRates& rates, const ExchangeSpec& spec,
                                         std::uint32_t tiles_per_ipu) {
  const std::uint32_t n = active_tiles(spec, tiles_per_ipu);
  const std::uint64_t b = spec.bytes_per_tile;
  const std::uint32_t st = std::max<std::uint32_t>(1, rates.tiles_per_supertile);
  // A receiving tile shares only inside a full supertile whose tiles all receive.
  const bool full_st_exists = st > 1 && tiles_per_ipu >= st;
  std::uint64_t worst = 0;
  switch (spec.pattern) {
    case ExchangePattern::Uniform:
      if (n == 0 || b == 0) return 0;
      worst = tile_exchange_cycles(rates, b, b, false);
      break;
    case ExchangePattern::OneToAll: {
      if (n < 2 || b == 0) return 0;
      // The root sends b at the unshared rate, which bounds every receiver too.
      worst = tile_exchange_cycles(rates, b, 0, false);
      break;
    }
    case ExchangePattern::AllToOne:
      if (n < 2 || b == 0) return 0;
      worst = std::max(tile_exchange_cycles(rates, b, 0, false),
                       tile_exchange_cycles(rates, 0, b * (n - 1), false));
      break;
    case ExchangePattern::AllGather: {
      if (n < 2 || b == 0) return 0;
      const std::uint64_t rx = b * (n - 1);
      // Tiles in the trailing partial supertile (when n is not a multiple of st) cannot share.
      const bool some_unshared = !full_st_exists || n % st != 0;
      const bool some_shared = full_st_exists && n >= st;
      if (some_shared) worst = std::max(worst, tile_exchange_cycles(rates, b, rx, true));
      if (some_unshared) worst = std::max(worst, tile_exchange_cycles(rates, b, rx, false));
      break;
    }
    case ExchangePattern::Explicit: {
      if (n == 0) return 0;
      const TileTraffic tot = exchange_totals(spec, tiles_per_ipu);
      if (tot.sent == 0 && tot.received == 0) return 0;
      const std::uint64_t s = (tot.sent + n - 1) / n, r = (tot.received + n - 1) / n;
      worst = tile_exchange_cycles(rates, s, r, spec.shared_receive && st > 1 && n >= st);
      break;
    }
  }
  return exchange_phase_cycles(rates, worst, spec.span_columns);
}

std::uint64_t io_copy_cycles(const ExchangeRates& rates, std::uint64_t bytes,
                             std::uint32_t io_tiles, std::uint32_t compute_tiles) {
  const double tiles =
      std::max<double>(1, std::min(io_tiles > 0 ? io_tiles : compute_tiles, compute_tiles));
  return rates.fixed_cycles +
         static_cast<std::uint64_t>(
             std::ceil(static_cast<double>(bytes) / (tiles * rates.bytes_per_cycle_per_tile)));
}

std::uint64_t io_copy_cycles_busiest(const ExchangeRates& rates, std::uint64_t max_tile_bytes) {
  return rates.fixed_cycles +
         static_cast<std::uint64_t>(
             std::ceil(static_cast<double>(max_tile_bytes) / rates.bytes_per_cycle_per_tile));
}

TileTraffic exchange_totals(const ExchangeSpec& spec, std::uint32_t tiles_per_ipu) {
  const std::uint32_t n = active_tiles(spec, tiles_per_ipu);
  const std::uint64_t b = spec.bytes_per_tile;
  switch (spec.pattern) {
    case ExchangePattern::Uniform:
      return {b * n, b * n};
    case ExchangePattern::OneToAll:
      return {n > 1 ? b : 0, b * (n > 0 ? n - 1 : 0)};
    case ExchangePattern::AllToOne:
      return {b * (n > 0 ? n - 1 : 0), b * (n > 0 ? n - 1 : 0)};
    case ExchangePattern::AllGather:
      return {n > 1 ? b * n : 0, b * n * (n > 0 ? n - 1 : 0)};
    case ExchangePattern::Explicit: {
      TileTraffic t;
      for (const auto& e : spec.per_tile) {
        t.sent += e.sent;
        t.received += e.received;
      }
      return t;
    }
  }
  return {};
}

}  // namespace ipusim
