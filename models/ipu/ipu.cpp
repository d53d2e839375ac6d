// IPU module: cost requests and their stats.
#include "models/ipu/ipu.hpp"

namespace ipusim {

Ipu::Ipu(sc_core::sc_module_name name, std::uint32_t id, const ChipParams& chip, Fidelity fidelity)
    : sc_core::sc_module(name), id_(id), chip_(&chip), clock_(chip.clock_GHz), tiles_(chip, fidelity) {}

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
  return c;
}

void Ipu::note_sync(std::uint64_t cycles, std::uint64_t times) {
  syncs_ += times;
  sync_cycles_ += cycles * times;
}

void Ipu::collect_stats(Json& out) const {
  if (exchanges_ == 0 && computes_ == 0 && syncs_ == 0 && tiles_.max_sram_per_tile_bytes() == 0) return;
  out["exchange_phases"] = exchanges_;
  out["exchange_cycles"] = exchange_cycles_;
  out["compute_steps"] = computes_;
  out["compute_cycles"] = compute_cycles_;
  out["syncs"] = syncs_;
  out["sync_cycles"] = sync_cycles_;
  tiles_.collect_stats(out);
}

}  // namespace ipusim
