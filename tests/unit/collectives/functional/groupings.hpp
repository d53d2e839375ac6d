#pragma once
// Group lists built the PopART way (popart_semantics.md §1.1-1.3), for the functional tests.
#include <cstdint>
#include <vector>

namespace ipusim::coll::test {

using Groups = std::vector<std::vector<std::uint32_t>>;

/// ReplicaGrouping(R, stride, size): blocks of stride*size replicas, each holding `stride`
/// groups {b + i, b + i + stride, ...}.
inline Groups replica_grouping(std::uint32_t replicas, std::uint32_t stride, std::uint32_t size) {
  Groups groups;
  for (std::uint32_t block = 0; block < replicas; block += stride * size) {
    for (std::uint32_t i = 0; i < stride; ++i) {
      std::vector<std::uint32_t> g;
      for (std::uint32_t t = 0; t < size; ++t) g.push_back(block + i + t * stride);
      groups.push_back(g);
    }
  }
  return groups;
}
/// CommGroup Consecutive k.
inline Groups consecutive(std::uint32_t replicas, std::uint32_t k) {
  return replica_grouping(replicas, 1, k);
}
/// CommGroup Orthogonal k (definition (a): R/k groups of size k, stride R/k).
inline Groups orthogonal(std::uint32_t replicas, std::uint32_t k) {
  return replica_grouping(replicas, replicas / k, k);
}

}  // namespace ipusim::coll::test
