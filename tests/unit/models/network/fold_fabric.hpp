#pragma once
// Shared by the folding tests: 4 IPU-Link domains on 2 leaves and a spine, with its symmetry
// cells, and the batches the tests fold.
#include <vector>

#include "models/network/flow_engine.hpp"
#include "tests/unit/models/network/resource_spec_helper.hpp"

namespace ipusim::test {

/// 4 domains on 2 leaves, one spine. Per domain d: out_d (GB/s 10), in_d (10); per leaf l:
/// sw_l (100), up_l (8), down_l (8). Ids: out 0-3, in 4-7, sw 8-9, up 10-11, down 12-13.
struct Fabric {
  std::vector<ResourceSpec> specs;
  std::vector<std::uint32_t> candidate;  // cells: out, in, sw, up, down
  Fabric() {
    for (int d = 0; d < 4; ++d) specs.push_back(res("out", 10, 0));
    for (int d = 0; d < 4; ++d) specs.push_back(res("in", 10, 0));
    for (int l = 0; l < 2; ++l) specs.push_back(res("sw", 100, 0));
    for (int l = 0; l < 2; ++l) specs.push_back(res("up", 8, 0));
    for (int l = 0; l < 2; ++l) specs.push_back(res("down", 8, 0));
    candidate = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4};
  }
  static ResourceId out(int d) { return static_cast<ResourceId>(d); }
  static ResourceId in(int d) { return static_cast<ResourceId>(4 + d); }
  static ResourceId sw(int d) { return static_cast<ResourceId>(8 + d / 2); }
  static ResourceId up(int d) { return static_cast<ResourceId>(10 + d / 2); }
  static ResourceId down(int d) { return static_cast<ResourceId>(12 + d / 2); }
  /// Spine ring: d -> d+2 (the other leaf); leaf ring: d -> d^1 (the same leaf).
  static Route spine(int d) {
    const int e = (d + 2) % 4;
    return {out(d), sw(d), up(d), down(e), sw(e), in(e)};
  }
  static Route leaf(int d) { return {out(d), sw(d), in(d ^ 1)}; }
};

/// The batch both hand-worked cases use: every domain's spine-ring and leaf-ring flow, 1000 B
/// each, in domain order (spine then leaf).
inline void spine_and_leaf_batch(std::vector<Route>& routes, std::vector<std::uint64_t>& bytes) {
  for (int d = 0; d < 4; ++d) {
    routes.push_back(Fabric::spine(d));
    bytes.push_back(1000);
    routes.push_back(Fabric::leaf(d));
    bytes.push_back(1000);
  }
}

inline std::vector<const Route*> pointers(const std::vector<Route>& routes) {
  std::vector<const Route*> out;
  for (const Route& r : routes) out.push_back(&r);
  return out;
}

}  // namespace ipusim::test
