#include "runtime/passes/memory_accounting.hpp"

#include <algorithm>

namespace ipusim::rt {

MemoryReport account_memory(const Program& program, const MemoryParams& mp) {
  MemoryReport r;
  r.sram_per_tile_bytes = mp.sram_per_tile_bytes;
  r.per_ipu_peak_bytes.assign(mp.ipus_per_replica, 0);
  const std::uint32_t compute_tiles = mp.tiles - std::min(mp.io_tiles, mp.tiles - 1);
  for (const LPhase& ph : program.phases) {
    for (std::size_t vg = 0; vg < ph.memory.size(); ++vg) {
      PhaseMemory pm;
      pm.phase = ph.index;
      pm.repetition = ph.repetition;
      pm.vg = static_cast<int>(vg);
      for (const MemoryItem& m : ph.memory[vg]) {
        // Without IO tiles everything lands on the compute tiles.
        if (m.tiles == TileSet::Io && mp.io_tiles > 0) {
          pm.io_bytes += m.bytes;
        } else {
          pm.compute_bytes += m.bytes;
        }
      }
      const std::uint64_t per_compute =
          (pm.compute_bytes + compute_tiles - 1) / compute_tiles + mp.code_bytes_per_tile;
      const std::uint64_t per_io =
          mp.io_tiles > 0 ? (pm.io_bytes + mp.io_tiles - 1) / mp.io_tiles + mp.code_bytes_per_tile
                          : 0;
      pm.max_tile_bytes = std::max(per_compute, per_io);
      pm.largest = ph.memory[vg];
      std::stable_sort(pm.largest.begin(), pm.largest.end(),
                       [](const MemoryItem& a, const MemoryItem& b) { return a.bytes > b.bytes; });
      if (pm.largest.size() > 5) pm.largest.resize(5);
      const std::uint64_t total = pm.compute_bytes + pm.io_bytes +
                                  static_cast<std::uint64_t>(mp.tiles) * mp.code_bytes_per_tile;
      if (vg < r.per_ipu_peak_bytes.size())
        r.per_ipu_peak_bytes[vg] = std::max(r.per_ipu_peak_bytes[vg], total);
      if (pm.max_tile_bytes > r.max_tile_bytes) {
        r.max_tile_bytes = pm.max_tile_bytes;
        r.worst = pm;
      }
      r.phases.push_back(std::move(pm));
    }
  }
  r.fits = r.max_tile_bytes <= mp.sram_per_tile_bytes;
  if (!r.fits) {
    std::string msg =
        "phase " + std::to_string(r.worst.phase) + " (virtual graph " + std::to_string(r.worst.vg) +
        ") needs " + std::to_string(r.max_tile_bytes) + " B on its busiest tile, more than the " +
        std::to_string(mp.sram_per_tile_bytes) + " B of SRAM per tile; largest tensors:";
    for (const MemoryItem& m : r.worst.largest)
      msg += " " + m.tensor + " (" + m.what + ", " + std::to_string(m.bytes) + " B)";
    r.overflow = msg;
  }
  // Streaming memory: every IPU of a machine that runs a replica keeps its remote buffers
  // (the first machine is the fullest); activation buffers count while live, so the figure is
  // the peak over phases.
  const std::uint64_t used =
      static_cast<std::uint64_t>(mp.replicas) * std::max<std::uint32_t>(1, mp.ipus_per_replica);
  const std::uint32_t ipus =
      mp.replicas == 0
          ? mp.ipus_per_machine
          : static_cast<std::uint32_t>(std::min<std::uint64_t>(mp.ipus_per_machine, used));
  int max_phase = 0;
  for (const RemoteBuffer& b : program.remote_buffers)
    max_phase = std::max(max_phase, b.last_phase);
  for (int ph = 0; ph <= max_phase; ++ph) {
    std::uint64_t sum = 0;
    for (std::uint32_t i = 0; i < ipus; ++i) {
      const int vg = static_cast<int>(i % std::max<std::uint32_t>(1, mp.ipus_per_replica));
      for (const RemoteBuffer& b : program.remote_buffers)
        if (b.vg == vg && (b.first_phase < 0 || (ph >= b.first_phase && ph <= b.last_phase)))
          sum += b.bytes;
    }
    r.streaming_memory_per_machine_bytes = std::max(r.streaming_memory_per_machine_bytes, sum);
  }
  return r;
}

}  // namespace ipusim::rt
