// count_steps against the schedule generator: for every algorithm (and every tier method of
// the hierarchical one), op, group size, replica grouping and topology, the closed form must
// give exactly the steps and transfers that generate_schedule emits, and refuse exactly the
// requests the generator refuses.
#include "collectives/algorithms/step_count.hpp"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/algorithms/algorithm_table.hpp"
#include "request_helpers.hpp"

using namespace ipusim::coll;
using namespace ipusim::coll::test;

namespace {

const CollectiveOp kOps[] = {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter,
                             CollectiveOp::AllGather, CollectiveOp::AllToAll,
                             CollectiveOp::Broadcast};
/// Every algorithm of the table (a new row is swept without touching this test).
std::vector<Algorithm> all_algorithms() {
  std::vector<Algorithm> out;
  for (const AlgorithmInfo& a : algorithm_table()) {
    if (a.kind != AlgorithmKind::Best) out.push_back(a.algorithm);
  }
  return out;
}

/// The methods a hierarchical tier can take: auto and every ring or direct method.
std::vector<Algorithm> tier_methods() {
  std::vector<Algorithm> out{Algorithm::Auto};
  for (const AlgorithmInfo& a : algorithm_table()) {
    if (a.kind == AlgorithmKind::Ring || a.kind == AlgorithmKind::Direct)
      out.push_back(a.algorithm);
  }
  return out;
}

/// Groups of size k over R replicas taking every (R/k)-th replica (orthogonal:R/k).
Groups strided(std::uint32_t R, std::uint32_t k) {
  const std::uint32_t stride = R / k;
  Groups g(stride);
  for (std::uint32_t r = 0; r < R; ++r) g[r % stride].push_back(r);
  return g;
}

/// Consecutive groups whose members are listed in reverse, so group rank != position
/// (the hierarchical ReduceScatter / AllGather fragments then split into several runs).
Groups reversed(std::uint32_t R, std::uint32_t k) {
  Groups g = consecutive(R, k);
  for (auto& group : g) std::vector<std::uint32_t>(group.rbegin(), group.rend()).swap(group);
  return g;
}

/// Groups of size k whose members interleave across the replicas: group i = {i, i+R/k, ...}
/// listed with the odd positions first.
Groups shuffled(std::uint32_t R, std::uint32_t k) {
  Groups g = strided(R, k);
  for (auto& group : g) {
    std::vector<std::uint32_t> out;
    for (std::size_t i = 1; i < group.size(); i += 2) out.push_back(group[i]);
    for (std::size_t i = 0; i < group.size(); i += 2) out.push_back(group[i]);
    group = out;
  }
  return g;
}

std::string describe(const CollectiveRequest& r) {
  std::ostringstream os;
  os << to_string(r.op) << " " << to_string(r.algorithm)
     << " ild=" << to_string(r.hierarchical_ild_algorithm)
     << " gw=" << to_string(r.hierarchical_gw_algorithm) << " n=" << r.elements_per_replica
     << " K=" << r.topology.ipus_per_replica << " ild_size=" << r.topology.ild_size_ipus
     << " torus=" << r.topology.torus << " link=" << to_string(r.topology.link_config)
     << " reduce=" << to_string(r.reduce) << " groups=";
  for (const auto& g : r.groups) {
    os << "[";
    for (auto m : g) os << m << ",";
    os << "]";
  }
  return os.str();
}

/// Compares one request; returns 1 if the generator accepted it (so callers can check
/// that the sweep really exercised schedules, not only refusals).
int check_one(const CollectiveRequest& r) {
  INFO(describe(r));
  Schedule s;
  try {
    s = generate_schedule(r, [](const Superstep&) {});
  } catch (const RequestError&) {
    CHECK_THROWS_AS(count_steps(r), RequestError);
    return 0;
  }
  const StepCount c = count_steps(r);
  CHECK(c.steps == s.num_steps);
  CHECK(c.transfers == s.num_transfers);
  return 1;
}

/// Every op x algorithm (x tier methods for hierarchical) x size on the given groupings.
int sweep(const CollectiveTopology& topo, const std::vector<Groups>& groupings) {
  int accepted = 0;
  for (const auto& groups : groupings) {
    for (auto op : kOps) {
      for (std::uint64_t n : {0ull, 1ull, 7ull, 96ull, 1000ull}) {
        for (auto algorithm : all_algorithms()) {
          CollectiveRequest r;
          r.op = op;
          r.elements_per_replica = n;
          r.groups = groups;
          r.topology = topo;
          r.algorithm = algorithm;
          accepted += check_one(r);
          if (algorithm != Algorithm::Hierarchical) continue;
          for (auto ild : tier_methods()) {
            for (auto gw : tier_methods()) {
              r.hierarchical_ild_algorithm = ild;
              r.hierarchical_gw_algorithm = gw;
              accepted += check_one(r);
            }
          }
        }
      }
    }
  }
  return accepted;
}

CollectiveTopology topology(std::uint32_t K, std::uint32_t ild_size, bool torus,
                            LinkConfig link = LinkConfig::Default) {
  CollectiveTopology t;
  t.ipus_per_replica = K;
  t.ild_size_ipus = ild_size;
  t.torus = torus;
  t.link_config = link;
  return t;
}

}  // namespace

TEST_CASE("count_steps equals the generator on a ladder with small ILDs", "[step_count]") {
  // ILDs of 4 IPUs: groups of 8 and 16 replicas span 2 and 4 ILDs (hierarchical).
  const auto topo = topology(1, 4, false);
  const int accepted = sweep(topo, {consecutive(2, 2), consecutive(3, 3), consecutive(5, 5),
                                    consecutive(16, 4), consecutive(16, 16), strided(16, 8),
                                    reversed(8, 8), shuffled(16, 8), shuffled(16, 4)});
  CHECK(accepted > 1000);
}

TEST_CASE("count_steps equals the generator with two IPUs per replica", "[step_count]") {
  const auto topo = topology(2, 8, false);
  const int accepted = sweep(topo, {consecutive(4, 4), consecutive(8, 8), consecutive(12, 6),
                                    strided(8, 4), reversed(12, 12)});
  CHECK(accepted > 500);
}

TEST_CASE("count_steps equals the generator on a BarleyTwist torus", "[step_count]") {
  // quad-directional is only valid here (torus, one IPU per replica).
  const auto topo = topology(1, 8, true, LinkConfig::BarleyTwist);
  const int accepted = sweep(topo, {consecutive(8, 8), consecutive(6, 6), consecutive(16, 16),
                                    shuffled(16, 8), strided(16, 4)});
  CHECK(accepted > 500);
}

TEST_CASE("count_steps equals the generator on a sliding-window torus", "[step_count]") {
  const auto topo = topology(2, 8, true, LinkConfig::SlidingWindow);
  const int accepted = sweep(topo, {consecutive(4, 4), consecutive(8, 8), strided(8, 2)});
  CHECK(accepted > 300);
}

TEST_CASE("every row of the algorithm table schedules, and count_steps agrees", "[step_count]") {
  // A BarleyTwist torus of 8-IPU domains, 16 replicas in one group: 2 domains, so every method
  // (quad-directional, hierarchical) is valid; each must emit steps that its closed form counts.
  const auto topo = topology(1, 8, true, LinkConfig::BarleyTwist);
  for (const AlgorithmInfo& a : algorithm_table()) {
    if (a.kind == AlgorithmKind::Best) continue;
    for (auto op : {CollectiveOp::AllReduce, CollectiveOp::AllGather}) {
      CollectiveRequest r;
      r.op = op;
      r.elements_per_replica = 1000;
      r.groups = consecutive(16, 16);
      r.topology = topo;
      r.algorithm = a.algorithm;
      INFO(a.name << " " << to_string(op));
      const Schedule s = build_schedule(r);
      CHECK(s.num_steps > 0);
      const StepCount c = count_steps(r);
      CHECK(c.steps == s.num_steps);
      CHECK(c.transfers == s.num_transfers);
      CHECK(to_string(r.algorithm) == a.name);
      CHECK(parse_algorithm(a.name) == a.algorithm);
    }
  }
}

TEST_CASE("count_steps: local reductions move nothing, closed form on a flat ring",
          "[step_count]") {
  auto r = request(CollectiveOp::AllReduce, 4096, 1 << 20, Algorithm::Clockwise);
  r.topology.ild_size_ipus = 4096;
  // Hand-worked: 2 x 4095 steps, each moving every one of the 4096 fragments one hop.
  const StepCount c = count_steps(r);
  CHECK(c.steps == 8190);
  CHECK(c.transfers == 8190ull * 4096);
  r.reduce = ReduceOp::Local;
  CHECK(count_steps(r).steps == 0);
  CHECK(count_steps(r).transfers == 0);
}
