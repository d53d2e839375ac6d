// IPU module: cost requests and their stats.
#include "models/ipu/ipu.hpp"

#include <algorithm>

namespace ipusim {

Ipu::Ipu(std::uint32_t id, const ChipParams& chip, Fidelity fidelity)
    : id_(id), chip_(&chip), clock_(chip.clock_GHz), tiles_(chip, fidelity) {}

std::uint64_t Ipu::exchange(const ExchangeSpec& spec) {
  const std::uint64_t c = tiles_.exchange(spec);
  ++exchanges_;
  exchange_cycles_ += c;
  return c;
}

std::uint64_t Ipu::compute(const ComputeSpec& spec) {
  const std::uint64_t c = tiles_.compute(spec);
  ++computes_;
  compute_cycles_ += c;
  if (record_) {
    record_->cycles += c;
    ++record_->steps;
  }
  return c;
}

void Ipu::record_computes(ComputeEffect* effect) {
  tiles_.record_computes(effect ? &effect->tiles : nullptr);
  record_ = effect;
}

std::uint64_t Ipu::apply(const ComputeEffect& effect) {
  tiles_.apply(effect.tiles);
  computes_ += effect.steps;
  compute_cycles_ += effect.cycles;
  return effect.cycles;
}

std::uint64_t Ipu::io_copy(std::uint64_t bytes, std::uint32_t io_tiles, bool to_compute,
                           std::uint64_t grain_bytes) {
  const std::uint64_t c = tiles_.io_copy(bytes, io_tiles, to_compute, grain_bytes);
  ++exchanges_;
  exchange_cycles_ += c;
  return c;
}

double Ipu::occupy_compute_tiles(double ready_ns, double duration_ns) {
  const double start = std::max(ready_ns, tiles_free_ns_);
  tiles_free_ns_ = start + duration_ns;
  return start;
}

void Ipu::add_activity_of(const Ipu& twin) {
  exchanges_ += twin.exchanges_;
  exchange_cycles_ += twin.exchange_cycles_;
  computes_ += twin.computes_;
  compute_cycles_ += twin.compute_cycles_;
  tiles_.add_activity_of(twin.tiles_);
}

void Ipu::note_sync(std::uint64_t cycles, std::uint64_t times) {
  syncs_ += times;
  sync_cycles_ += cycles * times;
}

void Ipu::collect_stats(Json& out) const {
  // Only what went through the model appears: a collective run has syncs but no compute
  // steps recorded, and 0 would claim the tiles were idle.
  if (exchanges_ > 0) {
    out["exchange_phases"] = exchanges_;
    out["exchange_cycles"] = exchange_cycles_;
  }
  if (computes_ > 0) {
    out["compute_steps"] = computes_;
    out["compute_cycles"] = compute_cycles_;
  }
  if (syncs_ > 0) {
    out["syncs"] = syncs_;
    out["sync_cycles"] = sync_cycles_;
  }
  tiles_.collect_stats(out);
}

}  // namespace ipusim
