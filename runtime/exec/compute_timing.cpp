// Lowered compute ops -> compute model cycles, with a memo per shared parts list.
#include "runtime/exec/compute_timing.hpp"

#include <iterator>

#include "models/ipu/compute_sets.hpp"

namespace ipusim::rt {
namespace {

/// Memo size at which entries of freed part lists are dropped.
constexpr std::size_t kPruneAt = 4096;

/// Copies a known GEMM shape into the spec (unknown shapes stay 0: shape terms dropped).
void set_gemm(ComputeSpec& s, const GemmShape& g) {
  if (!g.known()) return;
  s.m = static_cast<double>(g.m);
  s.k = static_cast<double>(g.k);
  s.n = static_cast<double>(g.n);
  s.groups = static_cast<double>(g.groups > 0 ? g.groups : 1);
  s.kernel_h = static_cast<double>(g.kernel_h);
  s.kernel_w = static_cast<double>(g.kernel_w);
  s.kernel_in_n = g.kernel_in_n;
  if (g.fp32_partials && s.dtype == ComputeDType::Float16) s.dtype = ComputeDType::Float16_32;
  s.window.kernel = static_cast<double>(g.window_kernel);
  s.window.stride = static_cast<double>(g.window_stride);
  s.window.in_h = static_cast<double>(g.window_in_h);
  s.window.in_w = static_cast<double>(g.window_in_w);
  s.window.out_h = static_cast<double>(g.window_out_h);
  s.window.out_w = static_cast<double>(g.window_out_w);
  s.window.in_channels = static_cast<double>(g.window_in_channels);
  s.window.pixels_along_k = g.window_pixels_along_k;
}

/// Compute sets the part's poplibs op builds beyond one (models/ipu/compute_sets.hpp); an AMP
/// op's come from its split in the compute model.
std::uint32_t extra_compute_sets(const ComputePart& part) {
  switch (part.op_class) {
    case OpClass::Norm:
      return (part.backward ? kNormBackwardComputeSets : kNormForwardComputeSets) - 1;
    case OpClass::Softmax:
      return (part.backward ? kSoftmaxBackwardComputeSets : kSoftmaxForwardComputeSets) - 1;
    default:
      return kElementwiseComputeSets - 1;
  }
}

}  // namespace

ComputeDType compute_dtype(DType d) {
  return d == DType::Float16 ? ComputeDType::Float16 : ComputeDType::Float32;
}

ComputeSpec compute_spec(const ComputePart& part, std::uint32_t tiles) {
  ComputeSpec s;
  s.flops = part.flops;
  s.bytes = part.bytes;
  s.scalar_reductions = part.scalar_reductions;
  s.chained_ops = part.chained_ops;
  if (part.unit == ComputeUnit::Vector) s.extra_compute_sets = extra_compute_sets(part);
  s.vector_tile_cycles = part.vector_tile_cycles;
  s.dtype = compute_dtype(part.dtype);
  s.unit = part.unit;
  s.tiles = tiles;
  if (part.unit == ComputeUnit::Amp) set_gemm(s, part.gemm);
  return s;
}

ComputeSpec compute_spec(const LOp& op, std::uint32_t tiles) {
  // An op without parts is one part: its own flops, bytes, unit and shape.
  ComputePart part;
  part.flops = op.flops;
  part.bytes = op.mem_bytes;
  part.scalar_reductions = op.scalar_reductions;
  part.chained_ops = op.chained_ops;
  part.vector_tile_cycles = op.vector_tile_cycles;
  part.unit = op.unit;
  part.op_class = op.op_class;
  part.backward = op.role == "backward";
  part.gemm = op.gemm;
  part.dtype = op.dtype;
  return compute_spec(part, tiles);
}

std::uint64_t op_compute_cycles(const ChipParams& chip, const LOp& op, std::uint32_t tiles) {
  if (!op.parts) return compute_cycles(chip, compute_spec(op, tiles));
  std::uint64_t total = 0;
  for (const ComputePart& p : *op.parts) total += compute_cycles(chip, compute_spec(p, tiles));
  return total;
}

std::uint64_t ComputeCycleMemo::cycles(const ChipParams& chip, const LOp& op, std::uint32_t tiles) {
  if (!op.parts) return op_compute_cycles(chip, op, tiles);
  const void* key = op.parts.get();
  auto it = entries_.find(key);
  if (it != entries_.end() && it->second.chip == &chip && it->second.tiles == tiles &&
      it->second.parts.lock() == op.parts) {
    return it->second.cycles;
  }
  const std::uint64_t c = op_compute_cycles(chip, op, tiles);
  if (entries_.size() >= kPruneAt) {
    for (auto e = entries_.begin(); e != entries_.end();)
      e = e->second.parts.expired() ? entries_.erase(e) : std::next(e);
  }
  entries_[key] = Entry{op.parts, &chip, tiles, c};
  return c;
}

}  // namespace ipusim::rt
