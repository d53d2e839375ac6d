// /chip/compute/conv_input_exchange: the default plans a windowed convolution's im2col GEMM
// (its tiles receive im2col rows); input_field hands the window to the planner
// (models/ipu/gemm_tiling.hpp), which sends the tiles the input field their pixels read.
#include <catch2/catch.hpp>

#include "models/ipu/compute.hpp"
#include "tests/unit/models/ipu/amp_test_chip.hpp"

using namespace ipusim;

namespace {

/// The AMP tests' chip (amp_test_chip.hpp) with the given choice.
ChipParams chip(ConvInputExchange choice) {
  ChipParams c = test::amp_test_chip();
  c.conv_input_exchange = choice;
  c.amp_conv_units_fp16 = 16;
  c.poplar_sdk = PoplarSdk::V2_4_0;
  return c;
}

/// conv_window_test's 3x3 case on one tile: stride 1, 56 x 56 images, 16 input channels
/// (k = 144), 100 output pixels (m), 16 output channels (n).
ComputeSpec three_by_three() {
  ComputeSpec s;
  s.dtype = ComputeDType::Float16;
  s.m = 100;
  s.k = 144;
  s.n = 16;
  s.window.kernel = 3;
  s.window.stride = 1;
  s.window.in_h = s.window.in_w = 56;
  s.window.out_h = s.window.out_w = 56;
  s.window.in_channels = 16;
  return s;
}

}  // namespace

TEST_CASE("conv input exchange: the registry's default is im2col rows",
          "[compute][conv_window][params]") {
  CHECK(registry_hw_params().chip.conv_input_exchange == ConvInputExchange::Im2colRows);
}

TEST_CASE("conv input exchange: the default keeps the im2col block, input_field the field",
          "[compute][conv_window]") {
  const ComputeSpec s = three_by_three();
  // Default: the window is not planned; the tile receives the 100 x 144 = 14400 im2col block
  // and the 144 x 16 = 2304 weights, 2 B each at 4 B a cycle.
  CHECK(gemm_operand_exchange_cycles(chip(ConvInputExchange::Im2colRows), s, 1) ==
        Approx((14400.0 + 2304.0) * 2 / 4));
  // input_field: the 10 x 10 patch reads a 12 x 12 field of 16 channels, 2304 elements; with 16
  // channels the AMP's passes are the same either way (k = 144: 9 rows of 16 inputs), but the
  // unexpanded block runs the nx1 vertex (SDK 2.4.0): 10 outputs a row, workers of 16 or 17
  // outputs in 2 or 3 runs, 130 / 159 cycles (16 + 4 x outputs + 25 a run), pass 954; inner
  // 3 x 14 + 9 x (12 + 82 + 954) = 9474; outer 222 + 14 + 14 + 9474 = 9724; zeroing 432:
  // 10156 cycles against the expanded 1x1's 5873 (50 + 6 x 31 + 13 + 8 x 626 + 616). At AMP
  // efficiency 0.5 and 4 B a cycle: 20312 + 2304 unexpanded against 11746 + 8352 expanded, so
  // the planner expands and the tile receives the im2col block after all.
  CHECK(gemm_operand_exchange_cycles(chip(ConvInputExchange::InputField), s, 1) ==
        Approx((14400.0 + 2304.0) * 2 / 4));
  // At 1 B a cycle the exchange decides: 20312 + 9216 against 11746 + 33408, unexpanded.
  ChipParams slow = chip(ConvInputExchange::InputField);
  slow.exchange_bytes_per_cycle_per_tile = 1;
  CHECK(gemm_operand_exchange_cycles(slow, s, 1) == Approx((2304.0 + 2304.0) * 2 / 1));
}

TEST_CASE("conv input exchange: without a window the choice changes nothing",
          "[compute][conv_window]") {
  ComputeSpec s = three_by_three();
  s.window = ConvWindow{};
  CHECK(gemm_operand_exchange_cycles(chip(ConvInputExchange::InputField), s, 1) ==
        gemm_operand_exchange_cycles(chip(ConvInputExchange::Im2colRows), s, 1));
}
