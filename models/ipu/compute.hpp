#pragma once
// Compute cost (plain C++), one formula per op class, every parameter physical and named
// (`/chip/compute/...`, all ASSUMPTION until fitted by calibration):
//
//   AMP ops (matmul, convolution) as a GEMM (m, k, n, groups) spread over T tiles, split over
//   the tiles as poplin's planner would, to the fewest cycles (models/ipu/gemm_tiling.hpp); the
//   busiest tile's block bm x bk x bn costs
//     cycles = op_overhead_cycles
//            + ConvPartial1x1 vertex cycles of the block (poplibs' estimator,
//              models/ipu/conv_vertices.hpp) / amp_efficiency
//            + exchange bytes of the block / exchange_bytes_per_cycle_per_tile
//              (operand slices bm bk + bk bn in the operand dtype; when k is split over
//              tk tiles, the partials bm bn (1 - 1/tk) in the accumulator dtype)
//            + partial-sum additions bm bn (1 - 1/tk) x popops' ADD cycles per element
//   (without a known shape: flops/T / (amp_peak_per_tile x amp_efficiency)).
//   vector-bound ops (norms, softmax, elementwise, optimizer, embedding, reductions):
//     cycles = op_overhead_cycles
//            + the busiest tile's share of poplibs' vertex cycles of the op
//              (ComputeSpec::vector_tile_cycles, models/ipu/popops_vertices.hpp: ReLU and its
//              gradient, adds, batch and layer norm, softmax, GELU and their gradients)
//     or, for an op without one, max(flops/T x popops' ADD cycles per element,
//     bytes/T / memory_bytes_per_cycle_per_tile) (popops_vertices.hpp vector_cycles_per_flop)
//
// An op ends when its busiest tile ends (work is balanced over the active tiles).
#include <cstdint>
#include <string>

#include "models/ipu/conv_window.hpp"
#include "models/params/hw_params.hpp"

namespace ipusim {

/// The `--trace-tiers` name of the tiles' compute and exchange slices.
inline constexpr const char kComputeTraceTrack[] = "compute";

/// One compute step on one IPU, spread evenly over `tiles` tiles.
struct ComputeSpec {
  double flops = 0;         ///< total floating-point operations
  std::uint64_t bytes = 0;  ///< total bytes read and written (vector-bound ops)
  ComputeDType dtype = ComputeDType::Float16;
  ComputeUnit unit =
      ComputeUnit::Amp;     ///< Amp = matmul/convolution formula, Vector = vector formula
  std::uint32_t tiles = 0;  ///< 0 = all tiles
  /// GEMM shape of an AMP op: out[m x n] = in[m x k] x w[k x n], `groups` independent GEMMs.
  /// All of m, k, n > 0 means known; otherwise the shape terms (the vertex passes and
  /// operand exchange) are dropped. Plain doubles: models/ does not depend on runtime/.
  double m = 0, k = 0, n = 0, groups = 1;
  /// A grouped convolution's kernel (height, width) folded into k, or into n when
  /// `kernel_in_n` (its data gradient): with groups > 1, poplin's SLIC / VMAC / HMAC vertices
  /// are weighed against the AMP (models/ipu/conv_vertices_grouped.hpp). 0 = not a convolution.
  double kernel_h = 0, kernel_w = 0;
  bool kernel_in_n = false;
  /// A windowed convolution behind the GEMM (none for plain GEMMs): its tiles receive the
  /// input field their pixels read (models/ipu/gemm_tiling.hpp).
  ConvWindow window;
  /// Pay /chip/compute/op_overhead_cycles (vertex launch + the compute set's internal sync).
  /// A caller whose step already models its sync separately (e.g. a collective's on-tile
  /// reduction inside a BSP superstep) may turn it off.
  bool op_overhead = true;
  /// Reductions of the whole (vector) operand to one scalar that the step runs before its
  /// element-wise work, e.g. LARS's norms of a weight and its gradient. Each is a popops
  /// reduction: every tile sums its elements (one more op overhead; the per-element flops and
  /// bytes are already in `flops`/`bytes`), then the tiles' FP32 partials are summed over the
  /// stages popops::reduce plans (scalar_reduce_cycles(), models/ipu/reduce_plan.hpp).
  std::uint32_t scalar_reductions = 0;
  /// Separate ops the step runs one after another, each paying the op overhead once (a
  /// framework that builds one variable's optimizer update as a chain of small element-wise
  /// and scalar ops); their work is in `flops`/`bytes`. 1 = one op.
  std::uint32_t chained_ops = 1;
  /// Compute sets the step's poplibs op builds beyond one (a norm's statistics, whitening and
  /// scaling, a softmax's reductions; models/ipu/compute_sets.hpp). Paid only under
  /// `/chip/compute/op_overhead_per compute_set`, which also counts an AMP op's k-split
  /// reduction or Cast compute sets from its split and each reduction stage of
  /// `scalar_reductions`.
  std::uint32_t extra_compute_sets = 0;
  /// Vector ops whose vertices poplibs' estimators cost (models/ipu/popops_vertices.hpp
  /// vector_op_cycles_per_element): the tile cycles of all the op's elements, summed over the
  /// tiles; the busiest tile's share replaces the flop / byte formula.
  /// 0 = not costed so.
  double vector_tile_cycles = 0;
  /// per_tile fidelity: the op's output, `mapped_bytes` long, is mapped over the tiles by
  /// Poplar's linear mapping in grains of `grain_bytes` (models/ipu/tile_mapping.hpp) and each
  /// tile does the share of the work that its part of the output needs. 0 = unknown: the work
  /// is split evenly (as in aggregated fidelity).
  std::uint64_t mapped_bytes = 0;
  std::uint64_t grain_bytes = 1;
  /// True when m, k and n are all known (> 0).
  bool gemm_known() const { return m > 0 && k > 0 && n > 0; }
};

/// Cycles of `spec.scalar_reductions` reductions to a scalar over `tiles` tiles (see
/// ComputeSpec::scalar_reductions); 0 when there are none.
double scalar_reduction_cycles(const ChipParams& chip, const ComputeSpec& spec, double tiles);

/// Parses "float16" / "float32" / "float16_32" (ConfigError otherwise).
ComputeDType parse_compute_dtype(const std::string& s);
/// Parses "amp" / "vector" (ConfigError otherwise).
ComputeUnit parse_compute_unit(const std::string& s);

/// Peak flops per cycle per tile for a dtype on a unit.
double flops_per_cycle_per_tile(const ChipParams& chip, ComputeDType dtype, ComputeUnit unit);

/// Bytes of one operand element of a dtype (float16_32 reads FP16 operands).
double compute_dtype_bytes(ComputeDType dtype);

/// On-chip exchange cycles of the busiest tile's GEMM block on `tiles` tiles under the
/// cycle-minimising split (0 if the shape is unknown): operand slices and, when the inner
/// dimension is split, partials, over exchange_bytes_per_cycle_per_tile.
double gemm_operand_exchange_cycles(const ChipParams& chip, const ComputeSpec& spec,
                                    std::uint32_t tiles);

/// Cycles of one tile that does `flops` and touches `bytes`, without shape terms (per-tile
/// statistics of TileArray; 0 if it does nothing). Includes op_overhead_cycles.
std::uint64_t tile_compute_cycles(const ChipParams& chip, double flops, double bytes,
                                  ComputeDType dtype, ComputeUnit unit);

/// Active tiles of a spec (checked against the chip).
std::uint32_t compute_tiles(const ChipParams& chip, const ComputeSpec& spec);

/// Cycles of the whole step by the formulas above (0 if the step has no work).
std::uint64_t compute_cycles(const ChipParams& chip, const ComputeSpec& spec);

/// Cycles of the step when its busiest tile does the fraction `busiest_share` of the work
/// (flops, bytes and GEMM volume) instead of 1 / tiles; compute_cycles() is the balanced case.
std::uint64_t compute_cycles_with_share(const ChipParams& chip, const ComputeSpec& spec,
                                        double busiest_share);

}  // namespace ipusim
