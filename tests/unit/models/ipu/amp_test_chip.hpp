// The chip and window shapes that the AMP tiling tests work their cycles by hand with, in one
// place so that the hand-worked numbers of every such test follow the same assumptions.
#pragma once

#include <cmath>

#include "models/ipu/compute.hpp"
#include "models/ipu/conv_window.hpp"
#include "models/params/hw_params.hpp"

namespace ipusim::test {

/// GC200's AMP peaks (FP16 on 16 conv units of 16 halves), 6 workers, AMP efficiency 0.5, the
/// exchange at `exchange_bytes_per_cycle` per tile; partial sums at popops' ADD vertex's 0.75
/// cycles per half (4 vector flops a cycle).
inline ChipParams amp_test_chip(double exchange_bytes_per_cycle = 4) {
  ChipParams c = registry_hw_params().chip;
  c.worker_threads = 6;
  c.amp_flops_per_cycle_fp16 = 128;
  c.amp_efficiency = 0.5;
  c.exchange_bytes_per_cycle_per_tile = exchange_bytes_per_cycle;
  c.vector_flops_per_cycle_fp16 = 4;
  return c;
}

/// A "same"-padded square convolution: a `kernel` x `kernel` window at `stride` over `in` x
/// `in` inputs of `in_channels` channels (outputs ceil(in / stride) a side).
inline ConvWindow square_window(double kernel, double stride, double in, double in_channels) {
  ConvWindow w;
  w.kernel = kernel;
  w.stride = stride;
  w.in_h = w.in_w = in;
  w.out_h = w.out_w = std::ceil(in / stride);
  w.in_channels = in_channels;
  return w;
}

/// gemm_tiling_test's first hand-worked GEMM: out[12 x 16] = in[12 x 32] x w[32 x 16] in FP16
/// on 2 tiles, which the planner splits in k (a 12 x 16 x 16 block a tile).
inline ComputeSpec two_tile_k_split_gemm() {
  ComputeSpec s;
  s.m = 12;
  s.k = 32;
  s.n = 16;
  s.flops = 2.0 * 12 * 32 * 16;
  s.tiles = 2;
  return s;
}

/// compute_model_test's batched GEMM: 32 independent 16 x 16 x 16 FP16 GEMMs on 16 tiles (two
/// whole GEMMs a tile, no k split).
inline ComputeSpec sixteen_tile_batched_gemm() {
  ComputeSpec g;
  g.m = g.k = g.n = 16;
  g.groups = 32;
  g.flops = 2.0 * 16 * 16 * 16 * 32;
  g.tiles = 16;
  return g;
}

}  // namespace ipusim::test
