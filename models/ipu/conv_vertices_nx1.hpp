#pragma once
// Cycles of poplin's ConvPartialnx1 AMP vertex on one tile (plain C++): the vertex a
// convolution runs when its kernel is not folded into its channels (poplin's expandDims leaves
// it), from the cycle estimate poplibs ships with it. Line numbers are graphcore/poplibs tag
// sdk/poplar/2.4.0 (dbc4d442) unless named; docs/conv_nx1.md works the formulas by hand.
//
//   lib/poplin/poplinCycleEstimators.cpp ConvPartialnx1 (l. 64-159): zero the partials
//     (getZeroSupervisorVertexCycleEstimate, PerformanceEstimation.hpp l. 129-144, with
//     zerosInfo = outChansPerGroup x the tile's output field, ConvVertices.cpp l. 588) + the
//     supervisor estimate;
//   getConvPartialnx1SupervisorOuterLoopCycleEstimate (l. 538-557): 103 fixed cycles, the
//     retention and zeroing-retention savings of every worker, the supervisor's zeroing loop
//     and its loop over convolution, input and output groups around the inner loop;
//   getConvPartialnx1SupervisorInnerLoopCycleEstimate (l. 667-713): per kernel position
//     (kernel_outer x kernel_inner: the kernel rows in steps of the AMP's filter height, the
//     kernel columns) the weight load (l. 455-470), the filter height's extra loads (l. 683-697)
//     and the workers' pass (l. 640-664: max(6 x busiest worker, 6 x least busy + 9));
//   getConvPartialnx1WorkerCycles (l. 561-604): 15 or 16 cycles, then per worklist item (one
//     run of consecutive outputs of one output row, partitionConvPartialByWorker,
//     ConvUtilInternal.cpp l. 78-140) 7 + 34 + 4 a further output (halves) - 4 retained.
// The same at sdk/poplar/2.3.0 (l. 505-697) and 2.5.1 (l. 680-1061; its worker drops the
// 4-unit core-loop halving, unused here). SDK 2.1.0 (l. 499-627) retains 6 cycles an item and
// has no 7-cycle item set-up but a 17 / 18-cycle worker start. SDK 1.0.49 (l. 235-342, its
// estimator l. 21-95): 95 fixed cycles, 23 per input and output group, 15 / 20 per kernel row /
// position, a 19 / 20-cycle worker start, items of 35 + 4 a further output and no retention.
#include <cstdint>

#include "models/ipu/conv_vertices.hpp"
#include "models/ipu/conv_window.hpp"
#include "models/params/hw_params.hpp"

namespace ipusim {

/// One tile's ConvPartialnx1 vertex (one convolution group; one output pass per out group, the
/// out group being the conv units' width, as conv1x1_tile_cycles() takes it).
struct Nx1Shape {
  std::uint64_t out_pixels = 0;     ///< output positions on the tile (images x rows x width)
  std::uint64_t row_width = 1;      ///< output positions of one row (a worklist item's bound)
  std::uint64_t in_groups = 1;      ///< numInGroups: the tile's input channels / inChansPerGroup
  std::uint64_t kernel_outer = 1;   ///< kernel rows / filter height, rounded up
  std::uint64_t kernel_inner = 1;   ///< kernel columns
  std::uint32_t filter_height = 1;  ///< ampKernelHeight: kernel rows one pass multiplies
  std::uint64_t out_groups = 1;     ///< numOutGroups of conv_units output channels
};

/// Worker cycles of one worker whose worklist is the output positions [begin, end) of a field
/// laid out in rows of `row_width` (one item per row run, partitionConvPartialByWorker), by
/// the run's SDK (getConvPartialnx1WorkerCycles, with the retention saving taken per item).
std::uint64_t nx1_worker_cycles(const ConvPath& path, std::uint64_t begin, std::uint64_t end,
                                std::uint64_t row_width);

/// Tile cycles of the ConvPartialnx1 vertex for `shape` (the zeroing and the supervisor
/// estimate); 0 if the block is empty. The outputs are split over `/chip/worker_threads`
/// workers as evenly as partitionConvPartialByWorker splits them, the same worklist at every
/// kernel position (the planner's assumption, PerformanceEstimation.hpp l. 639-664).
std::uint64_t conv_nx1_tile_cycles(const ChipParams& chip, ComputeDType dtype,
                                   const Nx1Shape& shape);

/// The nx1 vertex of a block (bm output pixels x bk of the unexpanded inner dimension x bn
/// output channels) of the windowed forward convolution `w` (amp_unexpanded_k()'s layout:
/// kernel columns x ceil(kernel / filter height) x ceil(Cin / inChansPerGroup) passes of
/// weights_per_unit inputs). A block short of one input group's kernel positions covers the
/// first ones (kernel columns first).
Nx1Shape nx1_shape(const ConvWindow& w, const ConvPath& path, double bm, double bk, double bn);

/// Elements the AMP's kernel-height padding writes for the block (ConvModel.cpp
/// addTileLevelTransformEstimates l. 829-867, padKernelSpatialDim l. 604-663, applyPadding
/// l. 729-805): with a filter height above 1 the kernel's rows are padded to a multiple of it,
/// kp rows of zeros: kp x kernel columns x the tile's input channels x output channels in the
/// kernel, and kp input rows of the tile's output width x input channels per image. The
/// planner costs them as an exchange of that many input elements; 0 with a filter height of 1.
double nx1_padding_elements(const ConvWindow& w, const Nx1Shape& shape, std::uint32_t in_chans,
                            double bn);

}  // namespace ipusim
