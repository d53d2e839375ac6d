// popops' vertex estimators (models/ipu/popops_vertices.hpp) and popops::reduce's plan
// (models/ipu/reduce_plan.hpp) against hand-worked values of poplibs' formulas.
#include <catch2/catch.hpp>

#include "models/ipu/popops_vertices.hpp"
#include "models/ipu/reduce_plan.hpp"
#include "models/params/hw_params.hpp"
#include "tests/unit/models/ipu/reduction_chip.hpp"

using namespace ipusim;

namespace {

/// A chip whose exchange and sync are set here, so the closed forms do not follow fitted values.
ChipParams chip_of(std::uint32_t tiles) {
  ChipParams c = registry_hw_params().chip;
  c.tiles = tiles;
  return test::with_round_reduction_costs(c);
}

std::vector<std::uint64_t> first_tiles(std::uint64_t n) {
  std::vector<std::uint64_t> v(n);
  for (std::uint64_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace

TEST_CASE("ReduceAdd vertex estimates by hand", "[popops][reduce]") {
  // One output (getCyclesEstimateForSingleInput), FP32: 3 + 6 + 2 floor(n / 4) + 5 + n mod 4
  // + 3. 64 partials: 3 + 6 + 32 + 5 + 0 + 3 = 49; 19: 3 + 6 + 8 + 5 + 3 + 3 = 28.
  const PoplarSdk sdk2 = PoplarSdk::V2_4_0;
  CHECK(reduce_vertex_worker_cycles(64, 1, ComputeDType::Float32, sdk2) == 49);
  CHECK(reduce_vertex_worker_cycles(19, 1, ComputeDType::Float32, sdk2) == 28);
  // FP16 loads 8 halves per loop: 19 -> 3 + 6 + 4 + 5 + 3 + 3 = 24.
  CHECK(reduce_vertex_worker_cycles(19, 1, ComputeDType::Float16, sdk2) == 24);
  // Several outputs (getCyclesEstimateForStridedReduce), FP32, 64 partials into 8 outputs:
  // E = gcd(2, 8) = 2 per loop, 4 loops of 3 + 5 + 3 + 63 = 74: 5 + 11 + 4 x 74 = 312.
  CHECK(reduce_vertex_worker_cycles(64, 8, ComputeDType::Float32, sdk2) == 312);
  CHECK(reduce_vertex_worker_cycles(0, 1, ComputeDType::Float32, sdk2) == 0);
  const ChipParams c = chip_of(16);
  // On the tile: 6 workers round robin, one output on one worker: 6 x 49 = 294.
  CHECK(reduce_vertex_tile_cycles(c, 64, 1, ComputeDType::Float32) == 294);
  // 64 outputs: 16 grains of 4 over 6 workers, the busiest has 3 grains = 12 outputs:
  // 5 + 11 + 6 x (3 + 5 + 3 + 63) = 460 worker cycles, 2760 on the tile.
  CHECK(reduce_vertex_tile_cycles(c, 64, 64, ComputeDType::Float32) == 2760);
}

TEST_CASE("SDK 1.0.49's ReduceAdd estimate by hand (the Citadel report's release)",
          "[popops][reduce]") {
  // Tag 1.0.49, lib/popops/reduction/CycleEstimationFunctions.cpp getCyclesEstimateForReduce,
  // SCALAR_OUTPUT_SINGLE_INPUT: 5 + 1 + 1 (line 60) + 8 + 11 (lines 79-81), then 2 per
  // accumulator vector of 2 x getVectorWidth (4 floats, 8 halves) + 1 per remaining element
  // (lines 82-90), or 6 for fewer than 6 partials (line 84); FP32 output: + 0 (lines 91-92).
  const PoplarSdk sdk1 = PoplarSdk::V1_0_49;
  // 64 floats: 26 + 2 x 16 + 0 = 58 (2.4.0: 49); 19: 26 + 2 x 4 + 3 = 37 (2.4.0: 28).
  CHECK(reduce_vertex_worker_cycles(64, 1, ComputeDType::Float32, sdk1) == 58);
  CHECK(reduce_vertex_worker_cycles(19, 1, ComputeDType::Float32, sdk1) == 37);
  // Below 6 partials a flat 6: 2 floats -> 26 + 6 = 32 (2.4.0: 19).
  CHECK(reduce_vertex_worker_cycles(2, 1, ComputeDType::Float32, sdk1) == 32);
  // 19 halves: 26 + 2 x 2 + 3 = 33 (2.4.0: 24).
  CHECK(reduce_vertex_worker_cycles(19, 1, ComputeDType::Float16, sdk1) == 33);
  CHECK(reduce_vertex_worker_cycles(0, 1, ComputeDType::Float32, sdk1) == 0);
  // Several outputs: 1.0.49's own vertices are not modelled; 2.4.0's strided estimate (312).
  CHECK(reduce_vertex_worker_cycles(64, 8, ComputeDType::Float32, sdk1) == 312);
  // The tile's cycles follow the run's SDK: 6 workers x 58 = 348 on 1.0.49, 6 x 49 = 294 on
  // 2.4.0.
  ChipParams c = chip_of(16);
  c.poplar_sdk = sdk1;
  CHECK(reduce_vertex_tile_cycles(c, 64, 1, ComputeDType::Float32) == 348);
  c.poplar_sdk = PoplarSdk::V2_4_0;
  CHECK(reduce_vertex_tile_cycles(c, 64, 1, ComputeDType::Float32) == 294);
}

TEST_CASE("addInPlace and dynamic slice estimates by hand", "[popops]") {
  const ChipParams c = chip_of(16);
  // FP32, 32 elements: ceil(32 / 6) = 6 per worker, 3 loops of 2 at 1 + 2 cycles:
  // 11 + 6 x (58 + 9) = 413.
  CHECK(add_in_place_tile_cycles(c, 32, 4) == 413);
  // FP16 packs 4 per loop: ceil(6 / 4) = 2 loops: 11 + 6 x (58 + 6) = 395.
  CHECK(add_in_place_tile_cycles(c, 32, 2) == 395);
  // The ring index (one UNSIGNED_INT, 7 cycles): 11 + 6 x (58 + 7) = 401.
  CHECK(add_in_place_tile_cycles(c, 1, 4, true) == 401);
  CHECK(add_in_place_tile_cycles(c, 0, 4) == 0);
  // Dynamic slice of 32 floats: 6 per worker, floor(6 / 2) = 3 copies:
  // 11 + 14 + 6 x (39 + 24 + 6) = 439.
  CHECK(dynamic_slice_tile_cycles(c, 32, 4) == 439);
}

TEST_CASE("strided reduce estimates per SDK release by hand", "[popops]") {
  // Strided reduce, 16 float partials into 4 outputs: 2 outputs a loop (gcd(2, 4)), each outer
  // loop 3 + 5 + (3 + 15) = 26, 2 loops = 52; entry / exit 3 + 2 from 2.4.0 (+ 6 + 5 set-up):
  // 68; 2.1.0 and 2.3.0 2 + 2: 67.
  CHECK(reduce_vertex_worker_cycles(16, 4, ComputeDType::Float32, PoplarSdk::V2_4_0) == 68);
  CHECK(reduce_vertex_worker_cycles(16, 4, ComputeDType::Float32, PoplarSdk::V2_5_1) == 68);
  CHECK(reduce_vertex_worker_cycles(16, 4, ComputeDType::Float32, PoplarSdk::V2_3_0) == 67);
  CHECK(reduce_vertex_worker_cycles(16, 4, ComputeDType::Float32, PoplarSdk::V2_1_0) == 67);
  // One output: the single-input estimate is the same from 2.1.0 to 2.5.1 (64 floats: 49).
  CHECK(reduce_vertex_worker_cycles(64, 1, ComputeDType::Float32, PoplarSdk::V2_1_0) == 49);
}

TEST_CASE("SDK 2.1.0's EXPONENT and FP16 GELU per element by hand", "[popops][vector]") {
  const PoplarSdk v21 = PoplarSdk::V2_1_0;
  // EXPONENT {6, 4 halves} / {8, 2 floats} (sdk/poplar/2.1.0 popopsCycleEstimators.hpp lines
  // 141-143): softmax FP16 2 x 0.25 + 2 x 0.75 + 6 / 4 = 3.5 (2.4.0: 3.0), FP32 2 x 0.5 +
  // 2 x 1.5 + 8 / 2 = 8 (2.4.0: 7).
  CHECK(vector_op_cycles_per_element(VectorOpKind::Softmax, ComputeDType::Float16, v21) == 3.5);
  CHECK(vector_op_cycles_per_element(VectorOpKind::Softmax, ComputeDType::Float32, v21) == 8.0);
  // The FP16 GELU loop's clamp bundle: 9 bundles per 4 halves = 2.25 (2.4.0: 2.0); with the
  // layer norm 2.25 + 2.5 = 4.75. Its gradient's loop and the FP32 estimate are unchanged.
  CHECK(vector_op_cycles_per_element(VectorOpKind::Gelu, ComputeDType::Float16, v21) == 2.25);
  CHECK(vector_op_cycles_per_element(VectorOpKind::GeluLayerNorm, ComputeDType::Float16, v21) ==
        4.75);
  CHECK(vector_op_cycles_per_element(VectorOpKind::GeluGrad, ComputeDType::Float16, v21) == 3.75);
  CHECK(vector_op_cycles_per_element(VectorOpKind::Gelu, ComputeDType::Float32, v21) == 5.0);
  // The other rows are the same in every 2.x release.
  CHECK(vector_op_cycles_per_element(VectorOpKind::SoftmaxGrad, ComputeDType::Float16, v21) == 2.5);
  CHECK(vector_op_cycles_per_element(VectorOpKind::Dropout, ComputeDType::Float16, v21) == 0.5);
  for (PoplarSdk sdk : {PoplarSdk::V2_3_0, PoplarSdk::V2_5_1}) {
    CHECK(vector_op_cycles_per_element(VectorOpKind::Softmax, ComputeDType::Float16, sdk) == 3.0);
    CHECK(vector_op_cycles_per_element(VectorOpKind::Gelu, ComputeDType::Float16, sdk) == 2.0);
  }
}

TEST_CASE("popops::reduce of one float per tile on a GC2: 1216 -> 19 -> 1", "[popops][reduce]") {
  // calculateNextStep: 1216 partials >= 2 sqrt(1216) = 69.7 and 1216 > 32: an intermediate
  // stage. calculateSplit: ideal piece 1216 / 1216 = 1, N = 1216; 1216 / 1216 < 64, so
  // N = 1216 / 64 = 19 (19 rows each >= 2): groups of ceil(1216 / 19) = 64 rows on tiles
  // 0..18. Then 19 partials on 19 tiles: 19 <= 32, the output stage on tile 0.
  const auto stages = plan_popops_reduce(first_tiles(1216), 1, 4, 1216, 1216, 0);
  REQUIRE(stages.size() == 2);
  REQUIRE(stages[0].pieces.size() == 19);
  for (std::size_t i = 0; i < 19; ++i) {
    CHECK(stages[0].pieces[i].tile == i);
    CHECK(stages[0].pieces[i].sources.size() == 64);
    CHECK(stages[0].pieces[i].sources.front() == 64 * i);
  }
  REQUIRE(stages[1].pieces.size() == 1);
  CHECK(stages[1].pieces[0].tile == 0);
  CHECK(stages[1].pieces[0].sources == first_tiles(19));
  CHECK(stages[1].elem_bytes == 4);
}

TEST_CASE("a two-stage reduction to a scalar on a 128-tile chip, closed form", "[popops][reduce]") {
  const ChipParams c = chip_of(128);
  // 128 partials > 32: an intermediate stage; N = 128 / 64 = 2 groups of 64 rows on tiles 0
  // and 1, then the output stage on tile 0 with 2 partials (tile 0's own and tile 1's).
  const auto stages = plan_popops_reduce(first_tiles(128), 1, 4, 128, 128, 0);
  REQUIRE(stages.size() == 2);
  REQUIRE(stages[0].pieces.size() == 2);
  CHECK(stages[0].pieces[1].sources.front() == 64);
  CHECK(stages[1].pieces[0].sources == first_tiles(2));
  // Stage 1: sync 150; exchange: tile 1 receives 64 x 4 B = 64 cycles (tile 0 receives 63), the
  // destinations not listed (the whole chip: ceil(1 x 15) + 1 = 16 cycles of flight):
  // 100 + 64 = 164; vertex 64 partials: 6 x 49 = 294. 150 + 164 + 294 = 608.
  // Stage 2: sync 150; exchange: 4 B = 1 cycle, flight 16: 100 + 16 = 116; vertex 2 partials:
  // 6 x (3 + 6 + 0 + 5 + 2 + 3) = 6 x 19 = 114. 150 + 116 + 114 = 380.
  CHECK(reduce_stage_compute_cycles(c, stages[0]) == 294);
  CHECK(reduce_stage_compute_cycles(c, stages[1]) == 114);
  CHECK(scalar_reduce_cycles(c, 128) == Approx(608 + 380));
  // 16 tiles: 16 partials <= 32, one stage: tile 0 receives 15 x 4 B = 15 cycles, flight 16:
  // 150 + 116 + 6 x (3 + 6 + 8 + 5 + 0 + 3) = 150 + 116 + 150 = 416.
  CHECK(scalar_reduce_cycles(chip_of(16), 16) == Approx(416));
  // One tile: nothing to exchange or sum.
  CHECK(scalar_reduce_cycles(c, 1) == 0);
}

TEST_CASE("a reduction to a scalar follows the chip it is asked for, whatever was asked before",
          "[popops][reduce]") {
  // scalar_reduce_cycles keeps its results per chip: the same 128-tile reduction on a chip
  // whose exchange phase costs 30 cycles more and whose sync 20 more pays both twice (two
  // stages: 988 + 2 x 50 = 1088), and asking for the first chip again gives 988 again.
  const ChipParams c = chip_of(128);
  ChipParams slower = c;
  slower.exchange_fixed_cycles += 30;
  slower.sync_internal_cycles += 20;
  CHECK(scalar_reduce_cycles(c, 128) == Approx(988));
  CHECK(scalar_reduce_cycles(slower, 128) == Approx(1088));
  CHECK(scalar_reduce_cycles(c, 128) == Approx(988));
  // Another worker count moves the vertices: 8 workers instead of 6 (x 8 / 6 on both stages'
  // vertices: 294 + 114 = 408 -> 544), 988 + 136 = 1124.
  ChipParams wider = c;
  wider.worker_threads = 8;
  CHECK(scalar_reduce_cycles(wider, 128) == Approx(1124));
  // Another SDK moves them too: 1.0.49's vertices, 6 x 58 = 348 for 64 partials and
  // 6 x 32 = 192 for 2 (294 and 114 on 2.4.0): 988 + 54 + 78 = 1120.
  ChipParams sdk1 = c;
  sdk1.poplar_sdk = PoplarSdk::V1_0_49;
  CHECK(scalar_reduce_cycles(sdk1, 128) == Approx(1120));
  CHECK(scalar_reduce_cycles(c, 128) == Approx(988));
}

TEST_CASE("popops::reduce of a row of 16 floats per tile: column pieces", "[popops][reduce]") {
  // 128 rows of 16 columns on 128 tiles: 2048 partials > 16 x 32. Grain 4 columns: 4 pieces;
  // ideal piece 2048 / 128 = 16; each piece 128 x 4 = 512 / 16 = 32 groups of 4 rows, but
  // 512 / 32 = 16 < 64 so N = 512 / 64 = 8 groups of 16 rows: 32 tiles (0..31) each sum 16
  // partials of 4 columns. Then 8 partials per output: the output stage, 16 outputs at >= 8
  // per tile: tiles 0 and 1, 8 columns each, 8 partials each, from two pieces' groups.
  const auto stages = plan_popops_reduce(first_tiles(128), 16, 4, 128, 128, 0);
  REQUIRE(stages.size() == 2);
  REQUIRE(stages[0].pieces.size() == 32);
  CHECK(stages[0].pieces[31].tile == 31);
  CHECK(stages[0].pieces[31].sources.size() == 16);
  CHECK(stages[0].pieces[31].cols() == 4);
  REQUIRE(stages[1].pieces.size() == 4);
  CHECK(stages[1].pieces[0].tile == 0);
  CHECK(stages[1].pieces[2].tile == 1);
  CHECK(stages[1].pieces[2].col_begin == 8);
  CHECK(stages[1].pieces[2].sources.size() == 8);
}

TEST_CASE("element-wise ops at poplibs' per-element cost by hand", "[popops][vector]") {
  // RELU HALF {3 cycles, 4 per loop} (popopsCycleEstimators.hpp l. 206): 3 / 4; FLOAT 3 / 2.
  CHECK(vector_op_cycles_per_element(VectorOpKind::Relu, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 0.75);
  CHECK(vector_op_cycles_per_element(VectorOpKind::Relu, ComputeDType::Float32,
                                     PoplarSdk::V2_4_0) == 1.5);
  // ADD {1, natural width} + 2 for load / store and loop (binaryOpInnerLoopCycles): 3 / 4.
  CHECK(vector_op_cycles_per_element(VectorOpKind::Add, ComputeDType::Float16, PoplarSdk::V2_4_0) ==
        0.75);
  CHECK(vector_op_cycles_per_element(VectorOpKind::Add, ComputeDType::Float32, PoplarSdk::V2_4_0) ==
        1.5);
  // Batch norm: 2 reductions at 2 cycles per 8 halves + 4 in-place passes at 2 per 4 halves:
  // 2 x 0.25 + 4 x 0.5 = 2.5; FP32 2 x 0.5 + 4 x 1 = 5. FP16.32's operands are halves: the
  // FP16 rows.
  CHECK(vector_op_cycles_per_element(VectorOpKind::BatchNormForward, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 2.5);
  CHECK(vector_op_cycles_per_element(VectorOpKind::BatchNormBackward, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 2.5);
  CHECK(vector_op_cycles_per_element(VectorOpKind::BatchNormForward, ComputeDType::Float32,
                                     PoplarSdk::V2_4_0) == 5.0);
  CHECK(vector_op_cycles_per_element(VectorOpKind::Add, ComputeDType::Float16_32,
                                     PoplarSdk::V2_4_0) == 0.75);
}

TEST_CASE("the transformer's vector ops composed from poplibs' vertices by hand",
          "[popops][vector]") {
  // Softmax (popnn softmaxImpl): reduce MAX 1 cycle per 4 halves (0.25), subtract 3 per 4
  // (0.75), EXPONENT HALF {4, 4 per loop} (1), reduce ADD (0.25), multiply (0.75) = 3.0;
  // FP32: 0.5 + 1.5 + EXPONENT FLOAT {6, 2 per loop} 3 + 0.5 + 1.5 = 7.
  CHECK(vector_op_cycles_per_element(VectorOpKind::Softmax, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 3.0);
  CHECK(vector_op_cycles_per_element(VectorOpKind::Softmax, ComputeDType::Float32,
                                     PoplarSdk::V2_4_0) == 7.0);
  // Softmax gradient: mul, reduce ADD, mul, sub: 3 x 0.75 + 0.25 = 2.5; FP32 3 x 1.5 + 0.5 = 5.
  CHECK(vector_op_cycles_per_element(VectorOpKind::SoftmaxGrad, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 2.5);
  CHECK(vector_op_cycles_per_element(VectorOpKind::SoftmaxGrad, ComputeDType::Float32,
                                     PoplarSdk::V2_4_0) == 5.0);
  // GELU: FP16 the codelet's repeat block, 8 bundles per vector of 4 halves = 2; its gradient
  // 15 bundles = 3.75; FP32 the estimator's 10 per 2 floats = 5 for both.
  CHECK(vector_op_cycles_per_element(VectorOpKind::Gelu, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 2.0);
  CHECK(vector_op_cycles_per_element(VectorOpKind::GeluGrad, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 3.75);
  CHECK(vector_op_cycles_per_element(VectorOpKind::Gelu, ComputeDType::Float32,
                                     PoplarSdk::V2_4_0) == 5.0);
  CHECK(vector_op_cycles_per_element(VectorOpKind::GeluGrad, ComputeDType::Float32,
                                     PoplarSdk::V2_4_0) == 5.0);
  // Layer norm = the batch norm's vertices (2.5); with the residual add 0.75 + 2.5 = 3.25,
  // backward with the residual gradient's add the same; after a GELU 2 + 2.5 = 4.5, backward
  // 3.75 + 2.5 = 6.25 (FP32 5 + 5 = 10).
  CHECK(vector_op_cycles_per_element(VectorOpKind::LayerNorm, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 2.5);
  CHECK(vector_op_cycles_per_element(VectorOpKind::LayerNormGrad, ComputeDType::Float32,
                                     PoplarSdk::V2_4_0) == 5.0);
  CHECK(vector_op_cycles_per_element(VectorOpKind::AddLayerNorm, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 3.25);
  CHECK(vector_op_cycles_per_element(VectorOpKind::LayerNormGradAdd, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 3.25);
  CHECK(vector_op_cycles_per_element(VectorOpKind::AddLayerNorm, ComputeDType::Float32,
                                     PoplarSdk::V2_4_0) == 6.5);
  // Dropout (poprand's Dropout vertex, sdk/poplar/2.3.0 poprandCycleEstimators.cpp line 136):
  // 2 cycles per 64-bit vector, 4 halves = 0.5 per half, 2 floats = 1 per float.
  CHECK(vector_op_cycles_per_element(VectorOpKind::Dropout, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 0.5);
  CHECK(vector_op_cycles_per_element(VectorOpKind::Dropout, ComputeDType::Float32,
                                     PoplarSdk::V2_4_0) == 1.0);
  CHECK(vector_op_cycles_per_element(VectorOpKind::GeluLayerNorm, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 4.5);
  CHECK(vector_op_cycles_per_element(VectorOpKind::GeluLayerNormGrad, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 6.25);
  CHECK(vector_op_cycles_per_element(VectorOpKind::GeluLayerNormGrad, ComputeDType::Float32,
                                     PoplarSdk::V2_4_0) == 10.0);
  // ReLU gradient: NonLinearityGrad RELU 3 cycles per vector: 0.75 / 1.5.
  CHECK(vector_op_cycles_per_element(VectorOpKind::ReluGrad, ComputeDType::Float16,
                                     PoplarSdk::V2_4_0) == 0.75);
  CHECK(vector_op_cycles_per_element(VectorOpKind::ReluGrad, ComputeDType::Float32,
                                     PoplarSdk::V2_4_0) == 1.5);
  // An op without a vertex cost: each counted flop an ADD element, 0.75 per FP16 flop and 1.5
  // per FP32 one; float16_32 (FP32 states) as FP32.
  CHECK(vector_cycles_per_flop(ComputeDType::Float16, PoplarSdk::V2_4_0) == 0.75);
  CHECK(vector_cycles_per_flop(ComputeDType::Float32, PoplarSdk::V2_4_0) == 1.5);
  CHECK(vector_cycles_per_flop(ComputeDType::Float16_32, PoplarSdk::V2_4_0) == 1.5);
}
