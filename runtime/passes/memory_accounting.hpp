#pragma once
// Memory accounting (plain C++): SRAM per tile for every phase and IPU of a replica
// (compute tiles and IO tiles separately, balanced over the tiles, plus a code reserve),
// the peak and whether it fits; streaming memory per IPU-Machine.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/ir/program.hpp"

namespace ipusim::rt {

/// Chip facts and the code reserve.
struct MemoryParams {
  std::uint32_t tiles = 1472;
  std::uint32_t io_tiles = 0;
  std::uint64_t sram_per_tile_bytes = 638976;
  std::uint64_t code_bytes_per_tile = 0;
  std::uint32_t ipus_per_machine = 4;
  std::uint32_t ipus_per_replica = 1;
  std::uint32_t replicas = 0;  ///< replicas in the system (0 = every IPU of a machine runs one)
};

/// Memory of one phase on one IPU of the replica.
struct PhaseMemory {
  int phase = 0, repetition = 0, vg = 0;
  std::uint64_t compute_bytes = 0, io_bytes = 0;
  std::uint64_t max_tile_bytes = 0;  ///< busiest tile (compute or IO) incl. code reserve
  std::vector<MemoryItem> largest;   ///< the largest items, descending
};

/// Peak memory of the step.
struct MemoryReport {
  std::uint64_t max_tile_bytes = 0;
  std::uint64_t sram_per_tile_bytes = 0;
  std::vector<std::uint64_t> per_ipu_peak_bytes;  ///< per virtual graph, compute + IO tiles
  std::vector<PhaseMemory> phases;                ///< one per (phase, vg)
  PhaseMemory worst;
  bool fits = true;
  std::string overflow;  ///< names the phase and the largest tensors when it does not fit
  std::uint64_t streaming_memory_per_machine_bytes = 0;
};

/// Accounts memory of a lowered program.
MemoryReport account_memory(const Program& program, const MemoryParams& params);

}  // namespace ipusim::rt
