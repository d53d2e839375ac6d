// The busiest tile's block of a GEMM: the cube of least operand exchange, clamped by the
// GEMM's own dimensions.
#include "models/ipu/gemm_tiling.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace ipusim {

GemmTileBlock gemm_tile_block(double m, double k, double n, double groups, double tiles) {
  GemmTileBlock b;
  if (groups >= tiles) {
    // Each tile computes whole GEMMs: no operand is shared and no partial is split.
    b.m = m;
    b.k = k;
    b.n = n;
    b.count = groups / tiles;
    return b;
  }
  const double tiles_per_gemm = tiles / groups;
  std::array<double, 3> dims = {m, k, n};
  std::array<double, 3> block = dims;
  std::array<int, 3> order = {0, 1, 2};
  std::sort(order.begin(), order.end(), [&](int a, int c) { return dims[a] < dims[c]; });
  // Shortest dimension first: a dimension shorter than the cube side of the volume still to
  // share is taken whole; once one is not, the rest (longer) share the remaining volume evenly.
  double volume = m * k * n / tiles_per_gemm;
  int left = 3;
  for (int i = 0; i < 3; ++i) {
    const double side = std::pow(volume, 1.0 / left);
    const int d = order[i];
    if (dims[d] <= side) {
      block[d] = dims[d];
      volume /= dims[d];
      --left;
      continue;
    }
    for (int j = i; j < 3; ++j) block[order[j]] = side;
    break;
  }
  b.m = block[0];
  b.k = block[1];
  b.n = block[2];
  b.k_splits = std::max(1.0, k / b.k);
  return b;
}

}  // namespace ipusim
