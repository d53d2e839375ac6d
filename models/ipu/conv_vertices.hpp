#pragma once
// Cycles of poplin's ConvPartial1x1 AMP vertex on one tile (plain C++), from the cycle estimator
// poplibs ships with it: graphcore/poplibs tag sdk/poplar/2.4.0 (dbc4d442),
// lib/poplin/PerformanceEstimation.hpp, getConvPartial1x1SupervisorInnerLoopCycleEstimate
// (lines 355-453), getConvPartialAmpSupervisorWeightLoadCycleEstimate (lines 455-470) and
// getConvPartial1x1SupervisorOuterLoopCycleEstimate (lines 472-514), with the arguments
// lib/poplin/poplinCycleEstimators.cpp passes for the vertex (ConvPartial1x1Out, lines
// 161-221). No parameter is fitted here: the constants are the estimator's (each function
// names its lines).
//
// A matmul (or a convolution as a GEMM) out[m x n] = in[m x k] x w[k x n] on one tile is one
// vertex: the k inputs of a row are grouped `weights_per_unit` at a time (in groups), the n
// outputs `conv_units` at a time (out groups), and each (in group, out group) pair is one weight
// pass: the supervisor loads the conv units' weights, then the six workers stream their share of
// the m rows through them. The estimator counts a worker's cycles; the tile runs
// `/chip/worker_threads` workers round-robin, so the vertex's tile cycles are worker_threads x
// the busiest worker's cycles (as poplibs converts them, line 444).
//
// GC2 is costed by the estimate of the release the Citadel report ran, SDK 1.0.49 (graphcore/
// poplibs tag 1.0.49, 2c06fe4f, 2019-11-04; `/software/poplar_sdk_version` 1.0.49), whose codelets
// produce 8 outputs a pass for FP16 and for FP32 inputs (conv_partial_1x1_half_float.S and
// conv_partial_1x1_float_float.S: AMP_OUTPUTS 8; 4 and 8 cycles a row).
#include <cstdint>

#include "models/params/hw_params.hpp"

namespace ipusim {

/// The AMP vertex path one operand dtype takes on a chip.
struct ConvPath {
  bool float_activations = false;  ///< FP32 inputs (Float32)
  bool float_partials = false;     ///< FP32 accumulators (Float32, Float16_32)
  /// Inputs of a row one conv unit multiplies per pass (weights per conv unit): 16 halves or 8
  /// floats (ASSUMPTION, see conv_path()).
  std::uint32_t weights_per_unit = 0;
  /// Conv units: the outputs one pass produces (see conv_path()).
  std::uint32_t conv_units = 0;
  /// Worker cycles per row in the vertex's core loop (line 360: 4 halves, 8 floats).
  std::uint32_t core_cycles = 0;
  /// Supervisor cycles to load one pass's weights (lines 467-468): 8 B a cycle (see
  /// conv_path()).
  std::uint32_t weight_load_cycles = 0;
  /// The run's SDK (the chip's `poplar_sdk`): 2.1.0's estimate differs from 2.3.0-2.5.1's in
  /// its retention savings and fixed cycles (see conv1x1_worker_cycles()).
  PoplarSdk sdk{};
};

/// The vertex path of `dtype` on `chip`. poplar's Target gives the conv-unit counts and the
/// weights per conv unit, which are not in poplibs' estimator; the counts come from the chip
/// preset (`/chip/amp_conv_units_per_tile`: GC2's 8 / 8 / 8 for FP16.16 / FP32 / FP16.32 are
/// poplibs' early Mk1 defaults and, for FP32, SDK 1.0.49's codelet; GC200's the derivation
/// below). A chip without counts (0) gets
/// them from its sourced AMP peak (`flops_per_cycle_per_tile`), which the core loop reaches
/// with every unit busy:
///   peak = 2 x weights_per_unit x conv_units / core_cycles flops per tile cycle
/// (a row of weights_per_unit inputs times conv_units outputs every core_cycles tile cycles,
/// the six workers each taking one row per core_cycles of their own cycles). With 32 B of
/// weights per conv unit (16 halves or 8 floats: ASSUMPTION, the "16x8 AMP vertex" of line 359
/// for floats and the 16-channel half grouping) that gives GC200 16 units for FP16.16, 8 for
/// FP16.32 and 16 for FP32 (GC2's preset: 8, 8 and 8, the same peaks). Weight loads take 8 B
/// per cycle: the target's convUnitCoeffLoadBytesPerCycle (16, the ld128 rate: poplibs' early
/// Mk1 default, and PerformanceEstimation.hpp lines 460-463) halved because the convolution
/// option use128BitConvUnitLoad is false by default (ConvOptions.hpp line 42) and no modelled
/// run sets it; the vertex then loads its weights with 64-bit ld64putcs, one a cycle
/// (conv_partial_1x1_supervisor.S, LOAD_WEIGHTS_1X1: 32 for 8 units, 64 for 16), and both the
/// vertex's estimator (poplinCycleEstimators.cpp lines 204-208) and the planner
/// (ConvModel.cpp lines 224-227) halve the rate. The same at 2.1.0-2.5.1 (docs/cnn_cost.md
/// section 10).
ConvPath conv_path(const ChipParams& chip, ComputeDType dtype);

/// Worker cycles of one worker that streams `rows` rows through one weight pass, by line
/// 386-440 (`zeroing`: the pass that initialises the partials), before the retention saving.
/// SDK 2.1.0 (tag sdk/poplar/2.1.0, 840ea5d5, lines 322-420): on the common half-activation path
/// (FP32 partials, or FP16 partials with 16 units) 2 / 4 cycles where 2.3.0-2.5.1 have 1 / 2
/// (zeroing / not, 0-2 rows) and 38 / 40 where they have 37 / 38 (3 or more rows); the FP32-input
/// and FP16-partials-of-8-units paths are the same in every 2.x release.
std::uint64_t conv1x1_worker_cycles(const ConvPath& path, std::uint64_t rows, bool zeroing);

/// Tile cycles of one pass's inner loop (lines 355-453): `rows` rows split as evenly as
/// poplin's worklists split them over `workers` workers; worker_threads x the busiest worker,
/// and at least the least-busy worker's + 14.
std::uint64_t conv1x1_inner_loop_cycles(const ConvPath& path, std::uint64_t rows,
                                        std::uint32_t workers, bool zeroing);

/// Worker cycles of SDK 1.0.49's estimate for one worker that streams `rows` rows through one
/// weight pass (poplibs tag 1.0.49, PerformanceEstimation.hpp lines 139-172): larger fixed
/// costs than 2.4.0's, the partials zeroed row by row on the `zeroing` pass (4 cycles a row
/// for FP32 partials, 8 for FP32 inputs), no state retention.
std::uint64_t conv1x1_worker_cycles_sdk1(const ConvPath& path, std::uint64_t rows, bool zeroing);

/// Tile cycles of SDK 1.0.49's ConvPartial1x1 estimate (lines 126-212) for a block as in
/// conv1x1_tile_cycles(): the supervisor's 50 + 11 + 10 fixed cycles, 13 per further input
/// group, 18 + 6 + weight loads per pass, and the workers' inner loop (max(6 x busiest worker,
/// 6 x least busy + 14), lines 176-180). Weight loads are that release's `numLoads` (lines
/// 196-199): input load elements per cycle (TileConstants.hpp lines 15-16: 4 halves or 2
/// floats) x 4 x conv units x bytes per input / coefficient-load bytes per cycle, as the
/// vertex's estimator passes them (poplinCycleEstimators.cpp lines 129-134): the 16 B halved
/// because use128BitConvUnitLoad defaults to false (ConvOptions.hpp line 41): 32 cycles for
/// 8 units of 16 halves or of 8 floats, the 32 ld64putcs of the codelet
/// (conv_partial_1x1_half_float.S lines 495-529). The planner halves the input load elements
/// instead (ConvPlan.cpp lines 978-979: 8 cycles); the vertex's estimate is the one taken.
std::uint64_t conv1x1_tile_cycles_sdk1(const ConvPath& path, std::uint32_t workers,
                                       std::uint64_t rows, std::uint64_t inputs,
                                       std::uint64_t outputs);

/// Tile cycles of the ConvPartial1x1 vertex for a block of `rows` rows, `inputs` inputs and
/// `outputs` outputs per row (one convolution group; 0 if the block is empty), by the outer
/// loop estimate of lines 472-514 with ceil(inputs / weights_per_unit) in groups and
/// ceil(outputs / conv_units) out groups of one pass each; in a run of SDK 1.0.49
/// (`/software/poplar_sdk_version` 1.0.49: the Citadel GEMMs), by conv1x1_tile_cycles_sdk1().
/// SDK 2.1.0's outer loop (tag sdk/poplar/2.1.0 lines 439-475) lacks 2.3.0's +1 / -1 / -1 for
/// the common path (per convolution group, per further input group, per zeroing out group)
/// and restores retention savings of 10 + 2 per further input group (lines 33-41) where
/// 2.3.0-2.5.1 restore 7 + 3 (l. 32-42 at 2.4.0; the same function at 2.3.0 and 2.5.1).
std::uint64_t conv1x1_tile_cycles(const ChipParams& chip, ComputeDType dtype, std::uint64_t rows,
                                  std::uint64_t inputs, std::uint64_t outputs);

}  // namespace ipusim
