// Tile state bookkeeping for both fidelities.
#include "models/ipu/tile_array.hpp"

#include <algorithm>
#include <numeric>

#include "sim/errors.hpp"

namespace ipusim {
namespace {

Json vector_summary(const std::vector<std::uint64_t>& v) {
  if (v.empty()) return Json::object();
  const std::uint64_t mx = *std::max_element(v.begin(), v.end());
  const double sum = static_cast<double>(std::accumulate(v.begin(), v.end(), std::uint64_t{0}));
  return {{"max", mx}, {"mean", sum / static_cast<double>(v.size())}};
}

}  // namespace

TileArray::TileArray(const ChipParams& chip, Fidelity fidelity) : chip_(&chip), fidelity_(fidelity) {
  if (fidelity_ == Fidelity::PerTile) {
    sent_.assign(chip.tiles, 0);
    received_.assign(chip.tiles, 0);
    cycles_.assign(chip.tiles, 0);
    sram_.assign(chip.tiles, 0);
  }
}

std::uint64_t TileArray::exchange(const ExchangeSpec& spec) {
  const ExchangeRates rates = ExchangeRates::from(*chip_);
  const TileTraffic tot = exchange_totals(spec, chip_->tiles);
  total_sent_ += tot.sent;
  total_received_ += tot.received;
  if (fidelity_ == Fidelity::Aggregated) return exchange_cycles_aggregated(rates, spec, chip_->tiles);
  const std::vector<TileTraffic> traffic = expand_exchange(spec, chip_->tiles);
  for (std::size_t i = 0; i < traffic.size(); ++i) {
    sent_[i] += traffic[i].sent;
    received_[i] += traffic[i].received;
  }
  return exchange_cycles_per_tile(rates, traffic, receives_same_data(spec));
}

std::uint64_t TileArray::compute(const ComputeSpec& spec) {
  const std::uint64_t c = ipusim::compute_cycles(*chip_, spec);
  if (fidelity_ == Fidelity::Aggregated) {
    agg_max_cycles_ += c;
    return c;
  }
  const std::uint32_t n = compute_tiles(*chip_, spec);
  // Balanced work: tiles that get one byte fewer of an uneven split finish no later.
  const std::uint64_t base = spec.bytes / n, extra = spec.bytes % n;
  for (std::uint32_t i = 0; i < n; ++i) {
    const double bytes = static_cast<double>(base + (i < extra ? 1 : 0));
    cycles_[i] += tile_compute_cycles(*chip_, spec.flops / n, bytes, spec.dtype, spec.unit);
  }
  return c;
}

void TileArray::allocate_sram(std::uint64_t bytes, std::uint32_t tiles) {
  const std::uint32_t n = tiles == 0 ? chip_->tiles : std::min(tiles, chip_->tiles);
  if (fidelity_ == Fidelity::Aggregated) {
    agg_sram_total_ += bytes;
    agg_sram_max_ += (bytes + n - 1) / n;
    return;
  }
  const std::uint64_t base = bytes / n, extra = bytes % n;
  for (std::uint32_t i = 0; i < n; ++i) sram_[i] += base + (i < extra ? 1 : 0);
}

void TileArray::allocate_sram_on_tile(std::uint32_t tile, std::uint64_t bytes) {
  if (tile >= chip_->tiles) {
    throw ConfigError("SRAM allocation on tile " + std::to_string(tile) + " of an IPU with " +
                      std::to_string(chip_->tiles) + " tiles");
  }
  if (fidelity_ == Fidelity::Aggregated) {
    allocate_sram(bytes, 0);
    return;
  }
  sram_[tile] += bytes;
}

std::uint64_t TileArray::max_sram_per_tile_bytes() const {
  if (fidelity_ == Fidelity::Aggregated) return agg_sram_max_;
  return sram_.empty() ? 0 : *std::max_element(sram_.begin(), sram_.end());
}

void TileArray::collect_stats(Json& out) const {
  out["bytes_sent"] = total_sent_;
  out["bytes_received"] = total_received_;
  out["sram_max_per_tile_bytes"] = max_sram_per_tile_bytes();
  out["sram_fits"] = sram_fits();
  if (fidelity_ == Fidelity::PerTile) {
    out["per_tile"] = {{"compute_cycles", vector_summary(cycles_)},
                       {"bytes_sent", vector_summary(sent_)},
                       {"bytes_received", vector_summary(received_)},
                       {"sram_bytes", vector_summary(sram_)}};
  } else {
    out["busiest_tile_compute_cycles"] = agg_max_cycles_;
  }
}

}  // namespace ipusim
