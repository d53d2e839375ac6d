#pragma once
// Cycles of the small popops vertices that reductions and collectives run (plain C++), from the
// cycle estimators poplibs ships with them (graphcore/poplibs, sdk-release-3.4, 7eac0f26; each
// function names its file and lines). No parameter is fitted here: the constants are the
// estimators'.
//
// An estimator counts a worker's cycles. A tile runs its `/chip/worker_threads` workers
// round-robin, one instruction each per worker_threads clock cycles, so a vertex takes
// worker_threads x its worker cycles of the tile's clock, whether or not the other workers have
// work; poplibs converts the same way (lib/popops/reduction/Modelling.cpp:
// maxWorkerCycles * numWorkerContexts; popopsCycleEstimators.cpp getBinaryOp1DInPlaceEstimate:
// numWorkers * workerCycles + the supervisor's overhead).
#include <cstdint>

#include "models/params/hw_params.hpp"

namespace ipusim {

/// Worker cycles of popops' ReduceAdd vertex that sums `partials` partials of `dtype` (Float16 or
/// Float32; FP32 accumulators and output) into `outputs` outputs (0 if there are no partials),
/// by the estimate of the run's Poplar SDK `sdk`:
///   one output (SCALAR_OUTPUT_SINGLE_INPUT, the vertex poplibs picks for a scalar output of
///   word-aligned partials: ReductionConnection.cpp getReductionVertexSpecialisation, tag 1.0.49
///   lines 1078-1095 with isSingleIOReduction 987-1014; the vertex the 2.4.0 path costs too):
///     SDK 2.4.0 (and 3.4), CycleEstimationFunctions.cpp getCyclesEstimateForSingleInput
///     (sdk-release-3.4 lines 292-331; sdk/poplar/2.4.0 lines 290-326, the same):
///       3 + 6 + 2 x floor(n / L) + 5 + n mod L + 3, L = 4 floats or 8 halves per loop;
///     SDK 1.0.49, getCyclesEstimateForReduce (tag 1.0.49, 2c06fe4f, lines 44-94: 60, 77-94):
///       (5 + 1 + 1) + 8 + 11 + (n < 6 ? 6 : 2 x floor(n / L) + n mod L), the same L
///       (2 x getVectorWidth: 2 x 2 floats, 2 x 4 halves);
///   several (STRIDED_REDUCE), by getCyclesEstimateForStridedReduce (3.4 lines 212-290):
///     5 + 11 + ceil(m / E) x (3 + post + 3 + (n - 1)), E = gcd(data path elements, m),
///     post = 5 (FP32 partials) or 7 (FP16 partials, FP32 output); for either SDK: 1.0.49 has
///     no strided vertex (its several-output vertices are not modelled; no GC2 set-up reduces
///     more than one output). SDK 2.1.0 and 2.3.0: 4 + 11 + ..., their entry / exit 2 + 2
///     (sdk/poplar/2.3.0 CycleEstimationFunctions.cpp line 224; 3 + 2 from 2.4.0 on).
std::uint64_t reduce_vertex_worker_cycles(std::uint64_t partials, std::uint64_t outputs,
                                          ComputeDType dtype, PoplarSdk sdk);

/// Clock cycles of one tile that reduces `partials` partials into `outputs` outputs: poplibs
/// splits the outputs over the workers in grains of 2 x vector width (ReductionStages.cpp
/// findGrainSizeForOp, splitOutputRegionsForWorkers), each worker runs its share, and the tile
/// takes worker_threads x its busiest worker's cycles (one output: one worker), each by the
/// estimate of the run's SDK (`chip.poplar_sdk`, `/software/poplar_sdk_version`).
std::uint64_t reduce_vertex_tile_cycles(const ChipParams& chip, std::uint64_t partials,
                                        std::uint64_t outputs, ComputeDType dtype);

/// Clock cycles of popops' addInPlace of `elems` elements on one tile (the BinaryOp1DInPlace
/// ADD multi-vertex a collective's reduction step runs; 0 for no elements), by
/// popopsCycleEstimators.cpp getBinaryOp1DInPlaceEstimate (lines 1510-1523) with
/// binaryOpInnerLoopCycles (lines 63-84), the ADD row of binaryOpInPlacePerfInfo
/// (popopsCycleEstimators.hpp lines 471-477) and basicOpSupervisorOverhead (11,
/// PerformanceEstimation.cpp lines 19-30):
///   11 + W x (58 + ceil(ceil(elems / W) / V) x c), W = worker_threads,
///   FP32 / FP16: V = 2 / 4 elements per loop, c = 1 + 2; UNSIGNED_INT: V = 1, c = 7.
/// `integer` selects the UNSIGNED_INT row (a ring index's map); otherwise `elem_bytes` 2 is FP16
/// and 4 FP32.
std::uint64_t add_in_place_tile_cycles(const ChipParams& chip, std::uint64_t elems,
                                       std::uint32_t elem_bytes, bool integer = false);

/// Clock cycles of popops' dynamicSlice / dynamicUpdate of one region of `elems` elements of
/// `elem_bytes` bytes on one tile (the DynamicSlice1D / DynamicUpdateSlice1D multi-vertex), by
/// popopsCycleEstimators.cpp getDynamicSlice1DEstimate (sdk-release-3.4, lines 1755-1783), one
/// sub-element, for every `/software/poplar_sdk_version`:
///   11 + 14 + W x (39 + 24 + 2 x floor(ceil(elems / W) / V)), V = 64-bit data path elements.
/// The releases the runs used differ (docs/sdk_versions.md): 2.3.0-2.5.1 35 + (24 + 2n)
/// (sdk/poplar/2.4.0 lines 1799-1827), 1.0.49 and 2.1.0 41 + (27 + n); not followed here because
/// GCL's small-message thresholds (collectives/algorithms/auto_select.cpp) were scanned with
/// this cost (tools/auto_thresholds.py) and would need re-scanning with it.
std::uint64_t dynamic_slice_tile_cycles(const ChipParams& chip, std::uint64_t elems,
                                        std::uint32_t elem_bytes);

/// The element-wise ops whose per-element cost poplibs' estimators give (docs/cnn_cost.md
/// sections 2 and 8). A composite op (softmax, layer norm) is the sum of the vertices poplibs'
/// implementation runs, each over every element once.
enum class VectorOpKind {
  Relu,
  Add,
  BatchNormForward,
  BatchNormBackward,
  ReluGrad,
  Softmax,
  SoftmaxGrad,
  Gelu,
  GeluGrad,
  LayerNorm,
  LayerNormGrad,
  AddLayerNorm,
  LayerNormGradAdd,
  GeluLayerNorm,
  GeluLayerNormGrad,
  Dropout
};

/// Tile clock cycles per element of `kind` in `dtype` (Float32 the FLOAT rows; Float16 and
/// Float16_32, whose operands are halves, the HALF rows) over many elements in a run of SDK `sdk`,
/// graphcore/poplibs tag sdk/poplar/2.3.0 (the rows cited are the same at 2.4.0 and 2.5.1; 1.0.49
/// is costed as 2.4.0: no 1.0.49 set-up runs these ops). SDK 2.1.0 differs in two rows: EXPONENT
/// {8, 2 floats} / {6, 4 halves} (sdk/poplar/2.1.0 popopsCycleEstimators.hpp lines 141-143), so
/// Softmax 8 / 3.5; and the FP16 GELU loop (NonLinearityLoop_gelu.S lines 86-145) clamps its
/// input in a bundle of its own, 9 bundles per vector, so Gelu 2.25 and GeluLayerNorm 4.75. A
/// worker's loop of c cycles over V elements, the elements split evenly over the W workers run
/// round-robin: W x c x (e / W) / V tile cycles = c / V per element (the vertices' fixed cycles
/// are in /chip/compute/op_overhead_cycles). V = 2 floats / 4 halves (the 64-bit data path).
///   Relu: popopsCycleEstimators.hpp lines 205-206, RELU {3 cycles, 2 floats / 4 halves per
///     loop}, run by UnaryOp1D (popopsCycleEstimators.cpp lines 1587-1603): 1.5 / 0.75.
///   Add: lines 299-300, ADD {1, natural vector width}: binaryOpInnerLoopCycles
///     (popopsCycleEstimators.cpp lines 61-82) adds 2 for load / store and the loop decision of
///     the external codelet, per vector: 1.5 / 0.75. SUBTRACT and MULTIPLY (lines 360-361,
///     395-396) are the same rows, so a broadcast sub or mul costs an Add.
///   BatchNormForward: poplin/Norms.cpp, the statistics by one reduceMany of ADD and SQUARE_ADD
///     (lines 181-217; the reduce vertex's 2 worker cycles per 4 floats / 8 halves,
///     reduction/CycleEstimationFunctions.cpp lines 290-318) and four in-place element-wise
///     passes (normWhiten sub + mulInPlace, normalise mul + addInPlace, lines 331-372; 2 cycles
///     per 2 floats / 4 halves): 2 x 0.5 + 4 x 1 = 5 / 2 x 0.25 + 4 x 0.5 = 2.5, a lower bound
///     (the broadcast operands' extra cycles are not counted).
///   BatchNormBackward: normParamGradients, normGradients, normStatisticsGradients (lines
///     373-545): two reductions and four element-wise passes as the forward, the same lower
///     bound, 5 / 2.5.
///   ReluGrad: popnnCycleEstimators.cpp NonLinearityGrad1D (lines 147-201), a loop of
///     getNonLinearityGradOpCycles(RELU) = 3 cycles per vector (popnn/PerformanceEstimation.hpp
///     lines 52-60): 1.5 / 0.75.
///   Softmax: popnn/NonLinearity.cpp softmaxImpl (lines 68-140, the stable algorithm PopART's
///     attention runs): reduce MAX (line 91), subInPlace of the max (105), expInPlace (117),
///     reduce ADD to FP32 (123), invInPlace and cast of the row sums (129-134, per row, not per
///     element) and mulInPlace by them (138): two reductions (the reduce vertex's 1 cycle per
///     vector, as above), sub and mul at an Add's cost, EXPONENT {6, 2 floats} / {4, 4 halves}
///     (popopsCycleEstimators.hpp lines 145-147): 2 x 0.5 + 2 x 1.5 + 3 = 7 /
///     2 x 0.25 + 2 x 0.75 + 1 = 3.
///   SoftmaxGrad: softmaxInputGradientImpl (lines 149-181): mul y g (172), reduce ADD (173), mul
///     by the row sums (176), subInPlace (178): 3 x 1.5 + 0.5 = 5 / 3 x 0.75 + 0.25 = 2.5.
///   Gelu: FP16 from the codelet, whose estimate poplibs marks a placeholder
///     (popnn/PerformanceEstimation.hpp lines 33-37: 5 cycles per vector): the repeat block of
///     NONLINEARITY_GELU_HALF (popnn/codelets/asm/NonLinearityLoop_gelu.S lines 80-134) is 8
///     bundles per 64-bit vector (x^2, x^3, the mix, two f16v2tanh, add, mul, mul), one cycle
///     each: 8 / 4 = 2 per half. FP32: the estimator's 10 cycles per 2 floats
///     (NonLinearity1D, popnnCycleEstimators.cpp lines 69-133), 5 (the float loop not read).
///   GeluGrad: FP16, the repeat block of NonLinearityGradLoop_gelu.S (lines 168-269) is 15
///     bundles per vector (clamp, x^2, x^3, the Gaussian's exp twice, mix, tanh twice, adds,
///     muls, the product with the output gradient): 15 / 4 = 3.75 per half. FP32: the
///     NonLinearityGrad1D estimate, getNonLinearityGradOpCycles(GELU) 10 per 2 floats, 5.
///   LayerNorm: popnn's layer norm is groupNormStatistics, groupNormWhiten and groupNormalise
///     (popnn/GroupNorm.cpp lines 85-164) calling poplin's normStatistics, normWhiten and
///     normalise (lines 111, 136, 164): BatchNormForward's vertices, 5 / 2.5 (a lower bound).
///   LayerNormGrad: groupNormParamGradients and groupNormGradients (GroupNorm.cpp lines 184-238:
///     poplin's normParamGradients, normGradients, normStatisticsGradients), i.e.
///     BatchNormBackward's vertices, 5 / 2.5.
///   AddLayerNorm: the residual Add, then LayerNorm: 1.5 + 5 / 0.75 + 2.5.
///   LayerNormGradAdd: LayerNormGrad plus the Add that sums the residual branch's gradient:
///     5 + 1.5 / 2.5 + 0.75.
///   GeluLayerNorm / GeluLayerNormGrad: Gelu then the layer norm without the residual add
///     (BERT's masked-LM head transform): 5 + 5 / 2 + 2.5; backward 5 + 5 / 3.75 + 2.5.
///   Dropout: poprand::dropout's one vertex (poprand, not popops; PopART's DropoutOp and
///     Graphcore's BERT DropoutWithTrainingSwitch lower to it, its gradient to a second one on
///     the gradient with the same seed): lib/poprand/poprandCycleEstimators.cpp lines 124-142
///     (the same estimator at sdk/poplar/2.1.0, lines 121-138, named DropoutSupervisor),
///     2 cycles per 64-bit vector (line 136), the repeat block of codelets/asm/Dropout.S being
///     two bundles per vector (lines 94-103 HALF, 46-55 FLOAT: f16v4mul / f32v2mul by the
///     scale with the load, f16v4rmask / f32v2rmask with the store): 2 / 4 = 0.5 per half,
///     2 / 2 = 1 per float. Its fixed cycles
///     (6 + 24 per worker) and the save / set / restore of the hardware seeds around it
///     (RandomGen.cpp maybeSaveHwSeedsAndSetSeeds, 3 small compute sets) are in the op overhead,
///     as the other multi-compute-set ops' are.
double vector_op_cycles_per_element(VectorOpKind kind, ComputeDType dtype, PoplarSdk sdk);

/// Tile clock cycles per counted flop of a vector op no poplibs vertex cost is given for (the
/// optimizer's updates, pools, losses, embeddings, an IR op given by flops and bytes):
/// ASSUMPTION, each counted flop is one element of one popops element-wise vertex (a binary op of
/// the ADD / SUBTRACT / MULTIPLY rows, popopsCycleEstimators.hpp lines 299-300: 1 + 2 cycles per
/// vector), i.e. Add's cost per element: 1.5 per FP32 flop, 0.75 per FP16 flop. Float16_32 costs
/// as Float32 (the vector unit has no mixed mode; its states are FP32).
double vector_cycles_per_flop(ComputeDType dtype, PoplarSdk sdk);

}  // namespace ipusim
