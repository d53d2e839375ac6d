// A windowed convolution's input field and the AMP's input-channel grouping on cases worked by
// hand from poplin's formulas (ConvModel.cpp getMaxInputRangeSize, ConvVertexType.cpp).
#include "models/ipu/conv_window.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "tests/unit/models/ipu/amp_test_chip.hpp"

using namespace ipusim;

using test::square_window;

TEST_CASE("conv window: a 3x3 block of 100 pixels x 16 channels reads a 12 x 12 field",
          "[compute][amp][conv_window]") {
  // 3x3, stride 1, 56 x 56, 16 channels (k = 144). 100 pixels = a 10 x 10 patch; it reads
  // (10 - 1) x 1 + 3 = 12 rows and columns: 144 pixels x 16 channels = 2304 elements, where the
  // im2col block is 100 x 144 = 14400.
  const ConvWindow w = square_window(3, 1, 56, 16);
  CHECK(input_range(10, 1, 3, 56) == 12);
  CHECK(input_field_pixels(w, 100) == 144);
  CHECK(conv_input_operand_elements(w, 100, 144, 144) == 2304);
  // The weight gradient is the transpose: channels along m, pixels along k.
  ConvWindow t = w;
  t.pixels_along_k = true;
  CHECK(conv_input_operand_elements(t, 144, 100, 144) == 2304);
  // Half the channel dimension (72 of 144) covers 8 channels: 1152.
  CHECK(conv_input_operand_elements(w, 100, 72, 144) == 1152);
  // No window: the im2col block.
  CHECK(conv_input_operand_elements(ConvWindow{}, 100, 144, 144) == 14400);
}

TEST_CASE("conv window: stride 2 spreads a patch's field", "[compute][amp][conv_window]") {
  // 3x3, stride 2, 56 x 56 in, 28 x 28 out, 128 channels (k = 1152). 49 pixels = a 7 x 7 patch:
  // (7 - 1) x 2 + 3 = 15 rows and columns, 225 pixels; a block of 288 of k covers 32 channels:
  // 7200 elements (im2col 49 x 288 = 14112).
  const ConvWindow w = square_window(3, 2, 56, 128);
  CHECK(input_field_pixels(w, 49) == 225);
  CHECK(conv_input_operand_elements(w, 49, 288, 1152) == 7200);
  // 50 pixels: an 8-wide patch of ceil(50 / 8) = 7 rows: 15 x 17 = 255.
  CHECK(input_field_pixels(w, 50) == 255);
}

TEST_CASE("conv window: a field is clipped at the input's edge, whole images read whole",
          "[compute][amp][conv_window]") {
  // 3x3, stride 1, 7 x 7 (stage 4). 36 pixels = a 6 x 6 patch: 6 - 1 + 3 = 8 > 7, clipped to 7:
  // 49 pixels; 16 channels: 784 (im2col 36 x 144 = 5184).
  const ConvWindow w = square_window(3, 1, 7, 16);
  CHECK(input_range(6, 1, 3, 7) == 7);
  CHECK(input_field_pixels(w, 36) == 49);
  CHECK(conv_input_operand_elements(w, 36, 144, 144) == 784);
  // 98 pixels = two whole 7 x 7 images: their inputs, 2 x 49.
  CHECK(input_field_pixels(w, 98) == 98);
  // 60 pixels: more than one image, so two whole images.
  CHECK(input_field_pixels(w, 60) == 98);
  // A field larger than the im2col block is capped by it: 1 pixel reads 3 x 3 = 9 pixels x 16
  // channels = 144 = 1 x 144.
  CHECK(conv_input_operand_elements(w, 1, 144, 144) == 144);
}

TEST_CASE("AMP input-channel grouping: the stem's 3 channels in 4s, 4 kernel rows a pass",
          "[compute][amp][conv_window]") {
  // FP16, 16 weights per conv unit: the groupings of whole 64-bit loads are 4, 8 and 16. For
  // 3 channels and a 7 x 7 kernel: 16 -> 1 row a pass, 7 x 7 = 49 passes; 8 -> 2 rows, 7 x 4 =
  // 28; 4 -> 4 rows, 7 x 2 = 14. So 4, and the AMP streams 14 x 16 = 224 inputs per output
  // (the expanded 147 = 3 x 49 is ceil(147 / 16) = 10 passes).
  const ConvWindow stem = square_window(7, 2, 224, 3);
  CHECK(amp_in_chans_per_group(3, 7, 16, false) == 4);
  CHECK(amp_unexpanded_k(stem, 16, false) == 224);
  // FP32, 8 weights per unit: 8 -> 49 passes, 4 -> 2 rows, 7 x 4 x 1 = 28, 2 -> 4 rows, 7 x 2 x
  // 2 = 28: the tie keeps 4; 28 x 8 = 224.
  CHECK(amp_in_chans_per_group(3, 7, 8, true) == 4);
  CHECK(amp_unexpanded_k(stem, 8, true) == 224);
  // 64 channels of a 3x3: 16 -> 3 x 3 x 4 = 36 passes; 8 -> 3 x 2 x 8 = 48; 4 -> 3 x 1 x 16 =
  // 48. So 16 and k = 36 x 16 = 576 = 64 x 9, unpadded.
  const ConvWindow c3 = square_window(3, 1, 56, 64);
  CHECK(amp_in_chans_per_group(64, 3, 16, false) == 16);
  CHECK(amp_unexpanded_k(c3, 16, false) == 576);
}
