// Cycles of popops' reduction, addInPlace and dynamic-slice vertices from poplibs' estimators.
#include "models/ipu/popops_vertices.hpp"

#include <algorithm>
#include <numeric>

namespace ipusim {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? a : (a + b - 1) / b; }

/// Elements of `dtype` in the tile's 64-bit load path (Target::getDataPathWidth() / type bits).
std::uint64_t data_path_elems(ComputeDType dtype) { return dtype == ComputeDType::Float32 ? 2 : 4; }

/// Elements one accumulator instruction adds (f32v4acc / f16v8acc: getAccVectorWidth).
std::uint64_t acc_vector_width(ComputeDType dtype) {
  return dtype == ComputeDType::Float32 ? 4 : 8;
}

/// Worker threads of the chip (at least one).
std::uint64_t workers(const ChipParams& chip) {
  return std::max<std::uint32_t>(1, chip.worker_threads);
}

}  // namespace

std::uint64_t reduce_vertex_worker_cycles(std::uint64_t partials, std::uint64_t outputs,
                                          ComputeDType dtype, PoplarSdk sdk) {
  if (partials == 0 || outputs == 0) return 0;
  const std::uint64_t dp = data_path_elems(dtype);
  if (outputs == 1 && sdk == PoplarSdk::V1_0_49) {
    // Tag 1.0.49, CycleEstimationFunctions.cpp getCyclesEstimateForReduce: the entry / exit of
    // every specialisation (line 60), then the SCALAR_OUTPUT_SINGLE_INPUT branch (lines 77-94)
    // for the ASM vertex: 2 cycles per accumulator-width vector (2 x getVectorWidth), 1 per
    // remaining element, a flat 6 below 6 partials; FP32 output, so no conversion.
    const std::uint64_t acc = 2 * dp;
    return 5 + 1 + 1  // entry / exit
           + 8        // ASM vertex set-up
           + 11       // other init / checking
           + (partials < 6 ? 6 : 2 * (partials / acc) + partials % acc);
  }
  if (outputs == 1) {
    // getCyclesEstimateForSingleInput: elemsPerCycle = min(acc width, data path) = dp, two
    // loads per accumulator-width loop, cyclesPerLoop = max(2, 1) = 2, elemsPerLoop = 2 dp.
    const std::uint64_t per_loop = std::min(acc_vector_width(dtype), dp) * 2;
    return 1 + 2                            // entry, storage and exit
           + 6                              // other init / checking
           + 2 * (partials / per_loop) + 5  // loops, remainder set-up and accumulator read
           + partials % per_loop            // one cycle per remaining element
           + 3;                             // sum of the accumulators (FP32 output)
  }
  // getCyclesEstimateForStridedReduce, one outer stride, the outputs' row as the stride.
  const std::uint64_t per_loop = std::gcd(std::min(acc_vector_width(dtype), dp), outputs);
  const std::uint64_t post = dtype == ComputeDType::Float32 ? 3 + 2 : 1 + 6;
  const std::uint64_t outer = 3 + post + (3 + (partials - 1));
  // Entry / exit: 3 + 2 from SDK 2.4.0 on, 2 + 2 in 2.1.0 and 2.3.0 (their line 224).
  const std::uint64_t entry = sdk == PoplarSdk::V2_1_0 || sdk == PoplarSdk::V2_3_0 ? 2 : 3;
  return entry + 2  // entry / exit
         + 6 + 5    // loop set-up
         + ceil_div(outputs, per_loop) * outer;
}

std::uint64_t reduce_vertex_tile_cycles(const ChipParams& chip, std::uint64_t partials,
                                        std::uint64_t outputs, ComputeDType dtype) {
  if (partials == 0 || outputs == 0) return 0;
  const std::uint64_t w = workers(chip);
  // Grain of the outputs' split over the workers: 2 x vector width for ADD (4 floats, 8 halves).
  const std::uint64_t grain = 2 * data_path_elems(dtype);
  const std::uint64_t busiest =
      outputs == 1 ? 1 : std::min(outputs, ceil_div(ceil_div(outputs, grain), w) * grain);
  return w * reduce_vertex_worker_cycles(partials, busiest, dtype, chip.poplar_sdk);
}

std::uint64_t add_in_place_tile_cycles(const ChipParams& chip, std::uint64_t elems,
                                       std::uint32_t elem_bytes, bool integer) {
  if (elems == 0) return 0;
  const std::uint64_t w = workers(chip);
  // ADD FLOAT / HALF: cyclesPerLoop 1 on the natural vector width (64-bit path: 2 floats,
  // 4 halves) + 2 for load / store and the loop (an external codelet, not interleaved);
  // ADD UNSIGNED_INT: 7 cycles per element, not vectorised.
  const std::uint64_t vector = integer ? 1 : (elem_bytes == 2 ? 4 : 2);
  const std::uint64_t per_loop = integer ? 7 : 1 + 2;
  const std::uint64_t worker = 58 + ceil_div(ceil_div(elems, w), vector) * per_loop;
  return 11 + w * worker;
}

std::uint64_t dynamic_slice_tile_cycles(const ChipParams& chip, std::uint64_t elems,
                                        std::uint32_t elem_bytes) {
  if (elems == 0) return 0;
  const std::uint64_t w = workers(chip);
  const std::uint64_t vector = elem_bytes == 2 ? 4 : 2;  // data path width / (16 or 32 bits)
  const std::uint64_t copies = ceil_div(elems, w) / vector;
  const std::uint64_t worker = 39 + (24 + 2 * copies);  // one sub-element (see the header)
  return 11 + 1 + 6 + 1 + 6 + w * worker;
}

double vector_op_cycles_per_element(VectorOpKind kind, ComputeDType dtype, PoplarSdk sdk) {
  // Elements per 64-bit vector: 2 floats or 4 halves (Target::getVectorWidth).
  const double v = static_cast<double>(data_path_elems(dtype));
  const double reduce = 2.0 / (2.0 * v);  // 2 worker cycles per 2 vectors (8 halves, 4 floats)
  const double in_place = 2.0 / v;        // an in-place binary op's 2 cycles per vector
  const double add = (1.0 + 2.0) / v;     // ADD / SUB / MUL: 1 + 2 for load / store and the loop
  const double norm = 2.0 * reduce + 4.0 * in_place;  // poplin's Norms.cpp passes
  // EXPONENT {6, 2} / {4, 4}; SDK 2.1.0 {8, 2} / {6, 4}.
  const bool sdk_2_1 = sdk == PoplarSdk::V2_1_0;
  const double exponent =
      dtype == ComputeDType::Float32 ? (sdk_2_1 ? 4.0 : 3.0) : (sdk_2_1 ? 1.5 : 1.0);
  // GELU: FP16 the codelets' repeat blocks (8 and 15 bundles per vector; SDK 2.1.0's forward
  // block 9, its clamp a bundle of its own), FP32 the estimator's 10 cycles per vector for both.
  const bool fp32 = dtype == ComputeDType::Float32;
  const double gelu = (fp32 ? 10.0 : (sdk_2_1 ? 9.0 : 8.0)) / v;
  const double gelu_grad = (fp32 ? 10.0 : 15.0) / v;
  switch (kind) {
    case VectorOpKind::Relu:
    case VectorOpKind::ReluGrad:
      return 3.0 / v;  // RELU / RELU grad: 3 cycles per loop of one vector
    case VectorOpKind::Add:
      return add;
    case VectorOpKind::BatchNormForward:
    case VectorOpKind::BatchNormBackward:
    case VectorOpKind::LayerNorm:
    case VectorOpKind::LayerNormGrad:
      return norm;
    case VectorOpKind::Softmax:
      return 2.0 * reduce + 2.0 * add + exponent;  // max, sub, exp, sum, mul by 1 / sum
    case VectorOpKind::SoftmaxGrad:
      return 3.0 * add + reduce;  // mul, sum, mul, sub
    case VectorOpKind::Gelu:
      return gelu;
    case VectorOpKind::GeluGrad:
      return gelu_grad;
    case VectorOpKind::AddLayerNorm:
    case VectorOpKind::LayerNormGradAdd:
      return add + norm;
    case VectorOpKind::GeluLayerNorm:
      return gelu + norm;
    case VectorOpKind::GeluLayerNormGrad:
      return gelu_grad + norm;
    case VectorOpKind::Dropout:
      return 2.0 / v;  // poprand Dropout: rmask + load, mul by the scale + store, per vector
  }
  return 0;
}

double vector_cycles_per_flop(ComputeDType dtype, PoplarSdk sdk) {
  const ComputeDType d =
      dtype == ComputeDType::Float16 ? ComputeDType::Float16 : ComputeDType::Float32;
  return vector_op_cycles_per_element(VectorOpKind::Add, d, sdk);
}

}  // namespace ipusim
