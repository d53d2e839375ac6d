#pragma once
// Small builders shared by the algorithm tests.
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"

namespace ipusim::coll::test {

using Groups = std::vector<std::vector<std::uint32_t>>;
using Pair = std::pair<std::uint32_t, std::uint32_t>;

/// Consecutive groups of size k over R replicas.
inline Groups consecutive(std::uint32_t R, std::uint32_t k) {
  Groups g(R / k);
  for (std::uint32_t r = 0; r < R; ++r) g[r / k].push_back(r);
  return g;
}

/// A request with one group of all R replicas unless groups are given.
inline CollectiveRequest request(CollectiveOp op, std::uint32_t R, std::uint64_t n,
                                 Algorithm algorithm, DType dtype = DType::Float32) {
  CollectiveRequest r;
  r.op = op;
  r.dtype = dtype;
  r.elements_per_replica = n;
  r.groups = consecutive(R, R);
  r.algorithm = algorithm;
  return r;
}

/// Directed (src IPU, dst IPU) pairs of a step.
inline std::set<Pair> pairs(const Superstep& step) {
  std::set<Pair> p;
  for (const auto& t : step.transfers) p.insert({t.src_ipu, t.dst_ipu});
  return p;
}

/// Number of transfers per directed pair in a step.
inline std::map<Pair, int> pair_counts(const Superstep& step) {
  std::map<Pair, int> m;
  for (const auto& t : step.transfers) ++m[{t.src_ipu, t.dst_ipu}];
  return m;
}

/// Directed ring edges of a cyclic order (clockwise), or the reverse ones.
inline std::set<Pair> ring_edges(const std::vector<std::uint32_t>& order, bool reverse = false) {
  std::set<Pair> e;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto a = order[i];
    const auto b = order[(i + 1) % order.size()];
    e.insert(reverse ? Pair{b, a} : Pair{a, b});
  }
  return e;
}

/// Union of two pair sets.
inline std::set<Pair> unite(std::set<Pair> a, const std::set<Pair>& b) {
  a.insert(b.begin(), b.end());
  return a;
}

}  // namespace ipusim::coll::test
