// poplin's SLIC, VMAC and HMAC vertex estimates against cycle counts worked out by hand from
// lib/poplin/PerformanceEstimation.hpp (PE) and ConvModel.cpp at sdk/poplar/2.4.0, and the
// planner's choice among them and the AMP for grouped convolutions.
#include "models/ipu/conv_vertices_grouped.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <utility>

#include "models/ipu/compute.hpp"
#include "models/ipu/conv_vertices.hpp"
#include "models/ipu/gemm_tiling.hpp"
#include "models/ipu/grouped_conv_choice.hpp"
#include "models/params/hw_params.hpp"

using namespace ipusim;

namespace {

/// The registry's GC200 (16 FP16 conv units, 8 FP16.32) with 6 workers, at SDK 2.4.0.
ChipParams chip() {
  ChipParams c = registry_hw_params().chip;
  c.worker_threads = 6;
  c.poplar_sdk = PoplarSdk::V2_4_0;
  return c;
}

ConvTileShare share(std::uint64_t groups, std::uint64_t field, std::uint64_t in, std::uint64_t out,
                    std::uint64_t kh, std::uint64_t kw) {
  ConvTileShare s;
  s.conv_groups = groups;
  s.field = field;
  s.in_chans = in;
  s.out_chans = out;
  s.kernel_h = kh;
  s.kernel_w = kw;
  return s;
}

}  // namespace

TEST_CASE("HMAC: 4 half inputs, 1 output, 12 outputs a tile, by hand", "[compute][conv][grouped]") {
  // Half partials: 2 partial channels a group (1 out group). The row split over 6 workers
  // gives one entry of 2 outputs. PE 53-95: dot(4 halves, half partials) = 2 (1 + 2) + 1 + 3 +
  // 1 + 4 / 4 = 12. PE 109-127: 16 + 19 + 2 x (7 + (2 / 2) x 12) = 73; + 16 = 89 a worker,
  // x 6 = 534. Zeroing (PE 1405-1422, 129-144): ceil(12 x 2 / 6) = 4 floats, 2 vectors + 14 - 9
  // = 7, x 6 = 42. Outer (PE 176-186): 63 + 6 x 10 + (23 + (15 + (10 + 534))) = 705; + 42.
  CHECK(hmac_tile_cycles(chip(), ComputeDType::Float16, share(1, 12, 4, 1, 1, 1), 4) == 747);
}

TEST_CASE("VMAC: 4 and 16 groups of a 3x3 depthwise kernel, by hand", "[compute][conv][grouped]") {
  // 12 outputs over 6 workers: split factor 6 / gcd(6, 12) = 1, 2 whole rows a worker, so 3
  // kernel rows x 2 = 6 entries of width 3. Groups of 4 (PE 241-259): 18 + 6 x (7 + 3 + (3 +
  // 2 x 2 x 1)) = 120, x 6 = 720. Zero (298-303): 4 + 12 / 4 = 7. Reduction (264-271, 305-314):
  // 10 + (7 + 5) x 2 / 4 = 16. Outer (316-327): 61 + 14 + 1 + (7 + 32 + (24 + 720) + 16) x 2
  // conv-group groups (8 groups / 4).
  CHECK(vmac_tile_cycles(chip(), ComputeDType::Float16, share(8, 12, 1, 1, 3, 3), 4) == 1674);
  // Groups of 16, half partials (PE 224-239): 25 + 2 x 6 x (7 + 15 + (3 + 3 x 2)) = 397, x 6 =
  // 2382; reduction 10 + 12 x 2 / 16 = 11; 76 + (7 + 32 + 24 + 2382 + 11).
  CHECK(vmac_tile_cycles(chip(), ComputeDType::Float16, share(16, 12, 1, 1, 3, 3), 16) == 2532);
  // More than one output channel a group: no VMAC (ConvModel.cpp line 451).
  CHECK(vmac_tile_cycles(chip(), ComputeDType::Float16, share(8, 12, 1, 2, 3, 3), 4) == 0);
}

TEST_CASE("SLIC: 16 groups of a 3x3 kernel on 4 chains, and a 1x4 kernel on 2, by hand",
          "[compute][conv][grouped]") {
  // 16 x 1 on 4 chains, half partials (one input pass). Worker preamble (PE 873-889) 2 + 3 + 1
  // + 2 + 4 + 2 + 2 + 1 + 4 = 21; one entry of 2 outputs: zeroing 21 + 10 + 1 + (10 + 2 + 3)
  // = 47, x 6 = 282; not zeroing 21 + 10 + (7 + 1 + 1 + 2 + 2 + 2 + 1 + 3) = 50, x 6 = 300.
  // Weights (734-768): 9 + 6 + 11 x 6 + 6 + 16 = 103. Outer (770-850): 4 group strides of
  // 103 + 21 = 124, + brnzdec(4) 19 + 15 = 530 a sub-kernel; 3 sub-kernels (ceil(3 / 4) x 3);
  // 28 + (15 + 8) + 1 + 530 x 3 + 13 + 282 + 2 x (300 x 4).
  CHECK(slic_tile_cycles(chip(), ComputeDType::Float16, share(16, 12, 1, 1, 3, 3), 16, 1, 4) ==
        4337);
  // 1 x 4 with FP32 partials on 2 chains (two input passes; not the half-8 path): preamble
  // 17; zeroing 17 + 11 + 3 + 2 x (15 - 1) = 59, x 6 = 354; (not zeroing: 1 sub-kernel, unused).
  // Weights 6 + 6 + 6 + 16 = 34; sub-kernel body 34 + 3 + 2 + 1 + 6 + 1 + 6 + 1 = 54;
  // 28 + 15 + 1 + 54 + 1 + 354.
  CHECK(slic_tile_cycles(chip(), ComputeDType::Float16_32, share(1, 12, 4, 4, 1, 4), 1, 4, 2) ==
        453);
  // Five input channels do not fit a group of 4 (ConvModel.cpp line 335).
  CHECK(slic_tile_cycles(chip(), ComputeDType::Float16, share(1, 12, 5, 4, 3, 3), 1, 4, 4) == 0);
}

namespace {

/// A grouped convolution's forward GEMM as the ONNX importer gives it: m = batch x output
/// pixels, k = input channels a group x kernel, n = output channels a group.
ComputeSpec grouped_conv(double groups, double m, double in, double out, double kh, double kw) {
  ComputeSpec s;
  s.dtype = ComputeDType::Float16;
  s.m = m;
  s.k = in * kh * kw;
  s.n = out;
  s.groups = groups;
  s.kernel_h = kh;
  s.kernel_w = kw;
  return s;
}

/// The AMP block gemm_tiling gives the spec, and the vertex the choice then costs it by.
std::pair<ConvMethod, GemmTileBlock> choose(const ComputeSpec& s, double tiles) {
  GemmTileBlock b = gemm_tile_block(chip(), s.dtype, s.m, s.k, s.n, s.groups, tiles);
  const ConvMethod m = choose_grouped_conv_vertex(chip(), s, tiles, b);
  return {m, b};
}

}  // namespace

TEST_CASE("choice: a depthwise 3x3 FP16 layer leaves the AMP for SLIC",
          "[compute][conv][grouped]") {
  // 144 channels, 4 x 56 x 56 outputs, 1472 tiles. The AMP block (one group, 1255 rows a tile,
  // k = 9 of 16 inputs and n = 1 of 16 units) costs ~5.3k vertex cycles. SLIC's 4-group
  // grouping takes 4 groups a tile: ceil(12544 x 144 / (1472 x 4)) = 307 outputs each.
  const ComputeSpec s = grouped_conv(144, 12544, 1, 1, 3, 3);
  const auto [method, block] = choose(s, 1472);
  CHECK(method == ConvMethod::Slic);
  const ConvTileShare four = share(4, 307, 1, 1, 3, 3);
  const std::uint64_t slic4 = std::min(slic_tile_cycles(chip(), s.dtype, four, 4, 1, 4),
                                       slic_tile_cycles(chip(), s.dtype, four, 4, 1, 2));
  CHECK(block.amp_cycles == Approx(static_cast<double>(slic4) / chip().amp_efficiency));
  // It beats the other groupings on their shares (16 groups of 77 outputs; VMAC's 4 groups).
  CHECK(slic4 < slic_tile_cycles(chip(), s.dtype, share(16, 77, 1, 1, 3, 3), 16, 1, 4));
  CHECK(slic4 < vmac_tile_cycles(chip(), s.dtype, four, 4));
  const GemmTileBlock amp = gemm_tile_block(chip(), s.dtype, s.m, s.k, s.n, s.groups, 1472);
  CHECK(block.amp_cycles < amp.amp_cycles);
  CHECK(block.exchange_cycles == amp.exchange_cycles);  // the AMP split's exchange stays
}

TEST_CASE("choice: 4 channels a group (ResNeXt 32x4d) leaves the AMP for SLIC 1x4",
          "[compute][conv][grouped]") {
  // 32 groups of 4 -> 4 channels, 3x3, 4 x 56 x 56 outputs on 1472 tiles: SLIC's one group of
  // 4 channels, ceil(12544 x 32 / 1472) = 273 outputs a tile, 3 sub-kernels of 1x4.
  const ComputeSpec s = grouped_conv(32, 12544, 4, 4, 3, 3);
  const auto [method, block] = choose(s, 1472);
  CHECK(method == ConvMethod::Slic);
  const ConvTileShare one = share(1, 273, 4, 4, 3, 3);
  const std::uint64_t slic = std::min(slic_tile_cycles(chip(), s.dtype, one, 1, 4, 4),
                                      slic_tile_cycles(chip(), s.dtype, one, 1, 4, 2));
  CHECK(block.amp_cycles == Approx(static_cast<double>(slic) / chip().amp_efficiency));
}

TEST_CASE("choice: an ordinary or wide-group convolution stays on the AMP, unchanged",
          "[compute][conv][grouped]") {
  for (const double groups : {1.0, 2.0}) {
    // groups 1: no choice at all; groups 2 of 64 -> 64 channels: every candidate costs more.
    const ComputeSpec s = grouped_conv(groups, 3136, 64, 64, 3, 3);
    const GemmTileBlock amp = gemm_tile_block(chip(), s.dtype, s.m, s.k, s.n, s.groups, 1472);
    const auto [method, block] = choose(s, 1472);
    CHECK(method == ConvMethod::Amp);
    CHECK(block.amp_cycles == amp.amp_cycles);
    CHECK(block.cycles() == amp.cycles());
  }
  // A grouped GEMM without a kernel (attention heads, batched matmuls) is not a convolution.
  ComputeSpec heads = grouped_conv(64, 384, 64, 384, 1, 1);
  heads.kernel_h = heads.kernel_w = 0;
  CHECK(choose(heads, 1472).first == ConvMethod::Amp);
  // A run of another SDK keeps the AMP: only 2.4.0's estimates are modelled.
  ChipParams other = chip();
  other.poplar_sdk = PoplarSdk::V2_3_0;
  const ComputeSpec dw = grouped_conv(144, 12544, 1, 1, 3, 3);
  GemmTileBlock b = gemm_tile_block(other, dw.dtype, dw.m, dw.k, dw.n, dw.groups, 1472);
  CHECK(choose_grouped_conv_vertex(other, dw, 1472, b) == ConvMethod::Amp);
}
