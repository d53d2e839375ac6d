// Seeded randomised property test: for many (replicas, grouping, topology, op, reduction, n,
// dtype, algorithm) the functional result of the schedule equals the schedule-free
// reference. Inputs are small integers, so float32 and float16 results are exact.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <sstream>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/algorithms/algorithm_groups.hpp"
#include "collectives/functional/functional.hpp"
#include "groupings.hpp"

using namespace ipusim::coll;
using ipusim::coll::test::Groups;

namespace {

using Rng = std::mt19937;

template <class T>
T pick(Rng& rng, const std::vector<T>& options) {
  return options[std::uniform_int_distribution<std::size_t>(0, options.size() - 1)(rng)];
}

std::vector<std::uint32_t> divisors(std::uint32_t n) {
  std::vector<std::uint32_t> d;
  for (std::uint32_t i = 1; i <= n; ++i) {
    if (n % i == 0) d.push_back(i);
  }
  return d;
}

/// Consecutive, orthogonal, all, or a general strided ReplicaGrouping; sometimes with the
/// members of each group shuffled so that group rank and physical order differ.
Groups random_groups(Rng& rng, std::uint32_t R, std::string& kind) {
  Groups groups;
  switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
    case 0:
      kind = "all";
      groups = test::consecutive(R, R);
      break;
    case 1:
      kind = "consecutive";
      groups = test::consecutive(R, pick(rng, divisors(R)));
      break;
    case 2:
      kind = "orthogonal";
      groups = test::orthogonal(R, pick(rng, divisors(R)));
      break;
    default: {
      const auto stride = pick(rng, divisors(R));
      const auto size = pick(rng, divisors(R / stride));
      kind = "strided(" + std::to_string(stride) + "," + std::to_string(size) + ")";
      groups = test::replica_grouping(R, stride, size);
    }
  }
  if (std::uniform_int_distribution<int>(0, 4)(rng) == 0) {
    kind += "+shuffled";
    for (auto& g : groups) std::shuffle(g.begin(), g.end(), rng);
  }
  return groups;
}

std::string describe(const CollectiveRequest& r, const std::string& kind, std::uint32_t R) {
  std::ostringstream os;
  os << to_string(r.op) << " " << to_string(r.reduce) << " " << to_string(r.dtype)
     << " n=" << r.elements_per_replica << " R=" << R << " groups=" << kind
     << " k=" << r.groups.front().size() << " K=" << r.topology.ipus_per_replica
     << " ild=" << r.topology.ild_size_ipus << " torus=" << r.topology.torus
     << " cfg=" << to_string(r.topology.link_config) << " alg=" << to_string(r.algorithm)
     << " ild_alg=" << to_string(r.hierarchical_ild_algorithm)
     << " gw_alg=" << to_string(r.hierarchical_gw_algorithm);
  return os.str();
}

/// Structural invariants every schedule must satisfy.
void check_structure(const Schedule& s) {
  std::vector<std::uint32_t> group_of(s.num_replicas, ~0u);
  for (std::uint32_t g = 0; g < s.groups.size(); ++g) {
    for (auto r : s.groups[g]) group_of[r] = g;
  }
  const std::uint32_t e = dtype_bytes(s.dtype);
  for (const auto& step : s.steps) {
    REQUIRE_FALSE(step.transfers.empty());
    std::vector<std::uint64_t> received(static_cast<std::size_t>(s.num_replicas) *
                                        s.ipus_per_replica);
    for (const auto& t : step.transfers) {
      REQUIRE(t.bytes > 0);
      REQUIRE(t.bytes % e == 0);
      REQUIRE(t.src_ipu != t.dst_ipu);
      // IPU j only talks to IPU j of other replicas (K parallel rings), inside its group.
      REQUIRE(s.ipu_in_replica(t.src_ipu) == s.ipu_in_replica(t.dst_ipu));
      REQUIRE(group_of[s.replica_of(t.src_ipu)] == group_of[s.replica_of(t.dst_ipu)]);
      REQUIRE(t.src_offset + s.elems_of(t) <= s.working_elems);
      REQUIRE(t.dst_offset + s.elems_of(t) <= s.working_elems);
      received[t.dst_ipu] += s.elems_of(t);
    }
    const auto most = *std::max_element(received.begin(), received.end());
    REQUIRE(step.max_reduce_elems_per_ipu == (step.reduce ? most : 0));
  }
}

std::vector<double> random_values(Rng& rng, std::uint64_t n, ReduceOp reduce, DType dtype) {
  std::vector<double> v(n);
  for (auto& x : v) {
    if (reduce == ReduceOp::Mul) {
      // Powers of two keep every partial product exact (float16: +-1 only, no overflow).
      x = dtype == DType::Float16 ? pick<double>(rng, {-1, 1}) : pick<double>(rng, {-2, -1, 1, 2});
    } else {
      x = std::uniform_int_distribution<int>(-8, 8)(rng);
    }
  }
  return v;
}

}  // namespace

TEST_CASE("functional schedules match the direct reference (randomised)",
          "[functional][property]") {
  Rng rng(20240611);
  const std::vector<std::uint32_t> replica_counts = {1,  2,  3,  4,  5,  6,  7,  8, 9,
                                                     10, 11, 12, 13, 14, 15, 16, 32};
  const std::vector<CollectiveOp> ops = {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter,
                                         CollectiveOp::AllGather, CollectiveOp::AllToAll,
                                         CollectiveOp::Broadcast};
  const std::vector<ReduceOp> reduces = {ReduceOp::Add, ReduceOp::Mean, ReduceOp::Mul,
                                         ReduceOp::Min, ReduceOp::Max,  ReduceOp::Local};
  int hierarchical_runs = 0;
  int rejected = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    const std::uint32_t R = pick(rng, replica_counts);
    std::string kind;
    CollectiveRequest req;
    req.groups = random_groups(rng, R, kind);
    const auto k = static_cast<std::uint32_t>(req.groups.front().size());
    auto& topo = req.topology;
    topo.ipus_per_replica = pick<std::uint32_t>(rng, {1, 1, 1, 2, 4});
    topo.ild_size_ipus = topo.ipus_per_replica * pick<std::uint32_t>(rng, {1, 2, 4, 8, 64});
    topo.torus = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    if (topo.torus && topo.ipus_per_replica == 1 &&
        std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
      topo.link_config = LinkConfig::BarleyTwist;
    } else if (topo.torus && std::uniform_int_distribution<int>(0, 5)(rng) == 0) {
      topo.link_config = LinkConfig::SlidingWindow;
    }
    req.op = pick(rng, ops);
    req.reduce = pick(rng, reduces);
    req.dtype = pick(rng, std::vector<DType>{DType::Float32, DType::Float16});
    if (req.op == CollectiveOp::AllToAll) {
      req.elements_per_replica = k * std::uniform_int_distribution<std::uint64_t>(0, 5)(rng);
    } else {
      req.elements_per_replica = std::uniform_int_distribution<std::uint64_t>(0, 3 * k + 5)(rng);
    }

    const bool barley = topo.link_config == LinkConfig::BarleyTwist;
    // Hierarchical runs when every group spans 2+ ILDs with equal members in each.
    const auto structure = ild_structure(req.groups, topo.ipus_per_replica, topo.ild_size_ipus);
    const bool balanced = structure.has_value() && structure->num_ilds > 1;
    std::vector<Algorithm> tier_methods = {Algorithm::Auto,
                                           Algorithm::Clockwise,
                                           Algorithm::Anticlockwise,
                                           Algorithm::BidirectionalPair,
                                           Algorithm::MeetInTheMiddle,
                                           Algorithm::Direct};
    if (barley) tier_methods.push_back(Algorithm::QuadDirectional);
    std::vector<Algorithm> algorithms = {Algorithm::Auto, Algorithm::Direct};
    if (req.op != CollectiveOp::AllToAll) {
      algorithms = tier_methods;
      if (balanced) algorithms.push_back(Algorithm::Hierarchical);
    }
    req.algorithm = pick(rng, algorithms);
    if (req.algorithm == Algorithm::Hierarchical) {
      req.hierarchical_ild_algorithm = pick(rng, tier_methods);
      req.hierarchical_gw_algorithm = pick(rng, tier_methods);
    }
    if (std::uniform_int_distribution<int>(0, 9)(rng) == 0) req.direct_max_bytes = 64;

    ReplicaBuffers inputs(R);
    for (auto& in : inputs)
      in = random_values(rng, req.elements_per_replica, req.reduce, req.dtype);

    INFO(describe(req, kind, R));
    const Schedule s = build_schedule(req);
    hierarchical_runs += s.algorithm == Algorithm::Hierarchical ? 1 : 0;
    REQUIRE(s.algorithm != Algorithm::Auto);
    check_structure(s);
    const auto got = run_functional(s, inputs);
    const auto want = direct_reference(req.op, req.reduce, req.dtype, req.groups, inputs);
    REQUIRE(got == want);

    // An explicit hierarchical request on unbalanced or single-ILD groups must be refused.
    if (!balanced && req.op != CollectiveOp::AllToAll) {
      req.algorithm = Algorithm::Hierarchical;
      REQUIRE_THROWS_AS(build_schedule(req), std::invalid_argument);
      ++rejected;
    }
  }
  // Two-tier groupings only: 122 with this seed (171 before auto took direct for small messages
  // over several domains: every request here is small, so only explicit hierarchical and the
  // broadcasts above 1216 B reach it).
  CHECK(hierarchical_runs > 100);
  CHECK(rejected > 10);
}
