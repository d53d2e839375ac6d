#pragma once
// Maps lowered compute ops (LOp / ComputePart) onto the compute model of models/ipu/compute.hpp,
// and memoises the cycles of shared part lists, which are replayed for every micro-batch.
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "models/ipu/compute.hpp"
#include "runtime/ir/program.hpp"

namespace ipusim::rt {

/// The compute model's element type for an IR dtype (FP16 ops run FP16.16 on the AMP).
ComputeDType compute_dtype(DType d);

/// The ComputeSpec of one model op on `tiles` tiles (GEMM shape copied when known).
ComputeSpec compute_spec(const ComputePart& part, std::uint32_t tiles);

/// The ComputeSpec of a compute op without parts on `tiles` tiles.
ComputeSpec compute_spec(const LOp& op, std::uint32_t tiles);

/// Cycles of a compute op: the sum of its parts' cycles (each part is one op of the model,
/// paying its own overhead), or the op alone when it has no parts.
std::uint64_t op_compute_cycles(const ChipParams& chip, const LOp& op, std::uint32_t tiles);

/// Memo of op_compute_cycles per shared parts list. An entry holds a weak reference to the
/// list, so an address reused by a later allocation is recomputed, never served stale.
class ComputeCycleMemo {
 public:
  /// Cycles of `op` on `tiles` tiles; ops with parts are computed once per (parts, tiles).
  std::uint64_t cycles(const ChipParams& chip, const LOp& op, std::uint32_t tiles);
  /// Entries held (for tests).
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::weak_ptr<const std::vector<ComputePart>> parts;
    const ChipParams* chip = nullptr;
    std::uint32_t tiles = 0;
    std::uint64_t cycles = 0;
  };
  std::unordered_map<const void*, Entry> entries_;
};

}  // namespace ipusim::rt
