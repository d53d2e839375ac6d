// The per-op-class compute model against closed forms worked out by hand.
#include <catch2/catch.hpp>
#include <cmath>

#include "models/ipu/compute.hpp"

using namespace ipusim;

namespace {

/// A chip with round numbers: 16 tiles, FP16 AMP 128 flop/cycle, vector FP16 4 flop/cycle,
/// 24 B/cycle memory, 4 B/cycle exchange.
ChipParams small_chip() {
  ChipParams c = registry_hw_params().chip;
  c.tiles = 16;
  c.amp_efficiency = 0.5;
  c.amp_inner_dim_half = 64;
  c.op_overhead_cycles = 2000;
  c.vector_efficiency = 0.5;
  return c;
}

}  // namespace

TEST_CASE("AMP GEMM: overhead + flops/T / (peak x eff x k/(k+k_half)) + operand exchange",
          "[compute][amp]") {
  const ChipParams c = small_chip();
  // m = n = k = 64, one group, FP16 on 8 tiles.
  ComputeSpec s;
  s.m = 64;
  s.k = 64;
  s.n = 64;
  s.groups = 1;
  s.flops = 2.0 * 64 * 64 * 64;  // 524288
  s.tiles = 8;
  // flops per tile 65536; rate 128 x 0.5 x 64/(64+64) = 32 flop/cycle -> 2048 cycles.
  // Block volume 64^3 / 8 = 32768 = 32^3 -> 2 x 32^2 = 2048 elements x 2 B / 4 B/cycle = 1024
  // cycles.
  CHECK(amp_inner_dim_factor(c, 64) == 0.5);
  CHECK(gemm_operand_exchange_cycles(c, s, 8) == Approx(1024.0));
  CHECK(compute_cycles(c, s) == 2000 + 2048 + 1024);
  // Two groups double the flops and the block volume: 131072 / 32 = 4096 work cycles;
  // block 2 x 64^3 / 8 = 65536, 2 x 65536^(2/3) = 2 x 1625.5 elements x 2 B / 4 = 1625.5 cycles.
  s.groups = 2;
  s.flops *= 2;
  CHECK(compute_cycles(c, s) ==
        2000 + static_cast<std::uint64_t>(std::ceil(4096 + std::pow(65536.0, 2.0 / 3.0))));
}

TEST_CASE("AMP: shape terms vanish when the GEMM shape is unknown", "[compute][amp]") {
  const ChipParams c = small_chip();
  ComputeSpec s;
  s.flops = 2.0 * 64 * 64 * 64;
  s.tiles = 8;
  // Without a shape: 65536 / (128 x 0.5) = 1024 cycles, no exchange term, no k factor.
  CHECK(gemm_operand_exchange_cycles(c, s, 8) == 0.0);
  CHECK(compute_cycles(c, s) == 2000 + 1024);
  s.m = 64;  // partly known is unknown
  s.n = 64;
  CHECK(compute_cycles(c, s) == 2000 + 1024);
}

TEST_CASE("AMP efficiency halves at k = amp_inner_dim_half", "[compute][amp]") {
  ChipParams c = small_chip();
  c.amp_inner_dim_half = 256;
  CHECK(amp_inner_dim_factor(c, 256) == 0.5);
  CHECK(amp_inner_dim_factor(c, 768) == Approx(0.75));
  CHECK(amp_inner_dim_factor(c, 0) == 1.0);
  c.amp_inner_dim_half = 0;
  CHECK(amp_inner_dim_factor(c, 16) == 1.0);
  // Work term alone (exchange 0 by a huge exchange rate, no overhead): k = 256 costs twice
  // the flop-only time.
  c = small_chip();
  c.amp_inner_dim_half = 256;
  c.op_overhead_cycles = 0;
  c.exchange_bytes_per_cycle_per_tile = 1e30;
  ComputeSpec s;
  s.m = 16;
  s.k = 256;
  s.n = 16;
  s.flops = 2.0 * 16 * 256 * 16;  // 131072
  s.tiles = 1;
  CHECK(compute_cycles(c, s) == 2 * static_cast<std::uint64_t>(131072 / (128 * 0.5)));
}

TEST_CASE("vector op: bound by bytes or by flops, divided by vector efficiency",
          "[compute][vector]") {
  const ChipParams c = small_chip();
  ComputeSpec s;
  s.unit = ComputeUnit::Vector;
  s.tiles = 16;
  // Bytes-bound: 16 x 4800 B -> 4800 / 24 = 200 cycles; flops 16 x 400 -> 400 / 4 = 100.
  s.bytes = 16 * 4800;
  s.flops = 16 * 400;
  CHECK(compute_cycles(c, s) == 2000 + 200 / 0.5);
  // Flops-bound: 16 x 4000 flops -> 1000 cycles > 200.
  s.flops = 16 * 4000;
  CHECK(compute_cycles(c, s) == 2000 + 1000 / 0.5);
  // FP32 halves the vector rate: 4000 / 2 = 2000 cycles.
  s.dtype = ComputeDType::Float32;
  CHECK(compute_cycles(c, s) == 2000 + 2000 / 0.5);
  // A GEMM shape on a vector op is ignored (no k factor, no operand exchange).
  s.m = s.k = s.n = 8;
  CHECK(compute_cycles(c, s) == 2000 + 2000 / 0.5);
  // Without the per-op overhead (a step whose sync is modelled elsewhere).
  s.op_overhead = false;
  CHECK(compute_cycles(c, s) == 2000 / 0.5);
  // No work, no time (not even the overhead).
  ComputeSpec none;
  none.unit = ComputeUnit::Vector;
  CHECK(compute_cycles(c, none) == 0);
}

TEST_CASE("compute tiles above the chip's tile count are an error", "[compute]") {
  const ChipParams c = small_chip();
  ComputeSpec s;
  s.flops = 1;
  s.tiles = 17;
  CHECK_THROWS(compute_cycles(c, s));
}
