// Tile state bookkeeping for both fidelities.
#include "models/ipu/tile_array.hpp"

#include <algorithm>
#include <numeric>

#include "models/ipu/tile_mapping.hpp"
#include "sim/errors.hpp"

namespace ipusim {
namespace {

Json vector_summary(const std::vector<std::uint64_t>& v) {
  if (v.empty()) return Json::object();
  const std::uint64_t mx = *std::max_element(v.begin(), v.end());
  const double sum = static_cast<double>(std::accumulate(v.begin(), v.end(), std::uint64_t{0}));
  return {{"max", mx}, {"mean", sum / static_cast<double>(v.size())}};
}

bool g_sram_histogram = false;  // see TileArray::set_sram_histogram_in_stats()

/// Tiles per 1/32 of `capacity` (the last bin counts the tiles above the capacity).
Json sram_histogram(const std::vector<std::uint64_t>& sram, std::uint64_t capacity) {
  constexpr std::uint64_t kBins = 32;
  const std::uint64_t bin = std::max<std::uint64_t>(1, (capacity + kBins - 1) / kBins);
  std::vector<std::uint64_t> counts(kBins + 1, 0);
  for (std::uint64_t bytes : sram)
    ++counts[bytes > capacity ? kBins : std::min<std::uint64_t>(kBins - 1, bytes / bin)];
  return {{"bin_bytes", bin}, {"counts", counts}};
}

}  // namespace

TileArray::TileArray(const ChipParams& chip, Fidelity fidelity)
    : chip_(&chip), fidelity_(fidelity) {
  if (fidelity_ == Fidelity::PerTile) {
    sent_.assign(chip.tiles);
    received_.assign(chip.tiles);
    cycles_.assign(chip.tiles);
    sram_.assign(chip.tiles, 0);
  }
}

std::uint64_t TileArray::exchange(const ExchangeSpec& spec) {
  const ExchangeRates rates = ExchangeRates::from(*chip_);
  const TileTraffic tot = exchange_totals(spec, chip_->tiles);
  total_sent_ += tot.sent;
  total_received_ += tot.received;
  ++exchanges_;
  if (fidelity_ == Fidelity::Aggregated)
    return exchange_cycles_aggregated(rates, spec, chip_->tiles);
  const std::vector<TileTraffic> traffic = expand_exchange(spec, chip_->tiles);
  for (std::uint32_t i = 0; i < traffic.size(); ++i) {
    sent_.add_at(i, traffic[i].sent);
    received_.add_at(i, traffic[i].received);
  }
  return exchange_cycles_per_tile(rates, traffic, receives_same_data(spec), spec.span_columns);
}

std::uint64_t TileArray::io_copy(std::uint64_t bytes, std::uint32_t io_tiles, bool to_compute,
                                 std::uint64_t grain_bytes) {
  const ExchangeRates rates = ExchangeRates::from(*chip_);
  const std::uint32_t io = std::min(io_tiles, chip_->tiles - 1);
  const std::uint32_t compute = chip_->tiles - io;
  total_sent_ += bytes;
  total_received_ += bytes;
  ++exchanges_;
  if (fidelity_ == Fidelity::Aggregated) return io_copy_cycles(rates, bytes, io, compute);
  // Each side holds the tensor by the linear mapping; without IO tiles the copy stays on the
  // compute tiles (both sides are the compute tiles).
  const LinearMapping on_compute(bytes, grain_bytes, compute);
  const LinearMapping on_io(bytes, grain_bytes, io > 0 ? io : compute);
  const std::uint32_t io_base = io > 0 ? compute : 0;
  // The linear mapping fills tiles from 0 in at most four runs of equal loads.
  auto& compute_side = to_compute ? received_ : sent_;
  auto& io_side = to_compute ? sent_ : received_;
  on_compute.for_each_run([&](std::uint32_t first, std::uint32_t end, std::uint64_t b) {
    compute_side.add_range(first, end, b);
  });
  on_io.for_each_run([&](std::uint32_t first, std::uint32_t end, std::uint64_t b) {
    io_side.add_range(io_base + first, io_base + end, b);
  });
  // As balanced as an even split: the same closed form as aggregated fidelity.
  if (on_compute.balanced() && on_io.balanced()) return io_copy_cycles(rates, bytes, io, compute);
  return io_copy_cycles_busiest(rates, std::max(on_compute.max_elements(), on_io.max_elements()));
}

void TileArray::add_cycles(std::uint32_t first, std::uint32_t end, std::uint64_t c) {
  cycles_.add_range(first, end, c);
  if (record_ && first < end && c != 0) {
    record_->cycle_differences.emplace_back(first, c);
    record_->cycle_differences.emplace_back(end, std::uint64_t{0} - c);
  }
}

void TileArray::record_computes(ComputeEffect* effect) {
  if (record_ && !effect) {
    // Merge the differences by tile (modulo 2^64, like the counters), dropping the zeros.
    auto& d = record_->cycle_differences;
    std::sort(d.begin(), d.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t out = 0;
    for (std::size_t i = 0; i < d.size();) {
      std::uint64_t sum = 0;
      std::size_t j = i;
      for (; j < d.size() && d[j].first == d[i].first; ++j) sum += d[j].second;
      if (sum != 0) d[out++] = {d[i].first, sum};
      i = j;
    }
    d.resize(out);
  }
  record_ = effect;
}

void TileArray::apply(const ComputeEffect& effect) {
  computes_ += effect.computes;
  agg_max_cycles_ += effect.agg_cycles;
  for (const auto& [tile, delta] : effect.cycle_differences) cycles_.add_difference(tile, delta);
}

std::uint64_t TileArray::compute(const ComputeSpec& spec) {
  ++computes_;
  if (record_) ++record_->computes;
  if (fidelity_ == Fidelity::Aggregated) {
    const std::uint64_t c = ipusim::compute_cycles(*chip_, spec);
    agg_max_cycles_ += c;
    if (record_) record_->agg_cycles += c;
    return c;
  }
  const std::uint32_t n = compute_tiles(*chip_, spec);
  if (spec.mapped_bytes > 0) {
    // Work follows the output's linear mapping: tile i does the fraction e_i / total of it.
    const LinearMapping map(spec.mapped_bytes, spec.grain_bytes, n);
    const double total = static_cast<double>(spec.mapped_bytes);
    map.for_each_run([&](std::uint32_t first, std::uint32_t end, std::uint64_t e) {
      const double share = static_cast<double>(e) / total;
      const std::uint64_t c =
          tile_compute_cycles(*chip_, spec.flops * share, static_cast<double>(spec.bytes) * share,
                              spec.dtype, spec.unit);
      add_cycles(first, end, c);
    });
    if (!map.balanced()) {
      return compute_cycles_with_share(*chip_, spec,
                                       static_cast<double>(map.max_elements()) / total);
    }
    return ipusim::compute_cycles(*chip_, spec);
  }
  // Balanced work: tiles that get one byte fewer of an uneven split finish no later.
  // Only two distinct tile loads (base and base + 1 bytes): cost each once, not per tile.
  const std::uint64_t base = spec.bytes / n, extra = spec.bytes % n;
  const std::uint64_t cycles_base =
      tile_compute_cycles(*chip_, spec.flops / n, static_cast<double>(base), spec.dtype, spec.unit);
  const std::uint64_t cycles_extra =
      extra > 0 ? tile_compute_cycles(*chip_, spec.flops / n, static_cast<double>(base + 1),
                                      spec.dtype, spec.unit)
                : cycles_base;
  add_cycles(0, static_cast<std::uint32_t>(extra), cycles_extra);
  add_cycles(static_cast<std::uint32_t>(extra), n, cycles_base);
  return ipusim::compute_cycles(*chip_, spec);
}

void TileArray::note_sram_peak(std::uint64_t compute_tile_bytes, std::uint64_t io_tile_bytes,
                               std::uint32_t io_tiles) {
  sram_known_ = true;
  const std::uint32_t io = std::min(io_tiles, chip_->tiles - 1);
  if (fidelity_ == Fidelity::Aggregated) {
    agg_sram_max_ = std::max({agg_sram_max_, compute_tile_bytes, io > 0 ? io_tile_bytes : 0});
    return;
  }
  const std::uint32_t compute = chip_->tiles - io;
  for (std::uint32_t i = 0; i < compute; ++i) sram_[i] = std::max(sram_[i], compute_tile_bytes);
  for (std::uint32_t i = compute; i < chip_->tiles; ++i)
    sram_[i] = std::max(sram_[i], io_tile_bytes);
}

void TileArray::add_activity_of(const TileArray& twin) {
  total_sent_ += twin.total_sent_;
  total_received_ += twin.total_received_;
  agg_max_cycles_ += twin.agg_max_cycles_;
  exchanges_ += twin.exchanges_;
  computes_ += twin.computes_;
  sent_.add(twin.sent_);
  received_.add(twin.received_);
  cycles_.add(twin.cycles_);
}

void TileArray::allocate_sram(std::uint64_t bytes, std::uint32_t tiles) {
  sram_known_ = true;
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

void TileArray::set_sram_histogram_in_stats(bool on) { g_sram_histogram = on; }

void TileArray::collect_stats(Json& out) const {
  if (exchanges_ > 0) {
    out["bytes_sent"] = total_sent_;
    out["bytes_received"] = total_received_;
  }
  if (sram_known_) {
    out["sram_max_per_tile_bytes"] = max_sram_per_tile_bytes();
    out["sram_fits"] = sram_fits();
  }
  if (fidelity_ == Fidelity::PerTile) {
    Json per_tile = Json::object();
    if (computes_ > 0) per_tile["compute_cycles"] = vector_summary(cycles_.values());
    if (exchanges_ > 0) {
      per_tile["bytes_sent"] = vector_summary(sent_.values());
      per_tile["bytes_received"] = vector_summary(received_.values());
    }
    if (sram_known_) per_tile["sram_bytes"] = vector_summary(sram_);
    if (sram_known_ && g_sram_histogram)
      per_tile["sram_bytes_histogram"] = sram_histogram(sram_, chip_->sram_per_tile_bytes);
    if (!per_tile.empty()) out["per_tile"] = std::move(per_tile);
  } else if (computes_ > 0) {
    out["busiest_tile_compute_cycles"] = agg_max_cycles_;
  }
}

}  // namespace ipusim
