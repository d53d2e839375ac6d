// Worked examples E19 and E20 of popart_semantics.md §2.4, on every applicable algorithm.
#include <catch2/catch.hpp>
#include <cmath>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/functional/functional.hpp"
#include "groupings.hpp"

using namespace ipusim::coll;
using ipusim::coll::test::Groups;

namespace {

const Algorithm kRingAndDirect[] = {Algorithm::Auto,
                                    Algorithm::Clockwise,
                                    Algorithm::Anticlockwise,
                                    Algorithm::BidirectionalPair,
                                    Algorithm::MeetInTheMiddle,
                                    Algorithm::Direct};

ReplicaBuffers run(CollectiveOp op, ReduceOp reduce, const Groups& groups, std::uint64_t n,
                   Algorithm algorithm, const ReplicaBuffers& inputs, std::uint32_t ild_size = 64) {
  CollectiveRequest req;
  req.op = op;
  req.reduce = reduce;
  req.elements_per_replica = n;
  req.groups = groups;
  req.algorithm = algorithm;
  req.topology.ild_size_ipus = ild_size;
  return run_functional(build_schedule(req), inputs);
}

}  // namespace

TEST_CASE("E19: AllGather with groupings returns the group's member ids", "[functional][E19]") {
  ReplicaBuffers inputs;
  for (int r = 0; r < 8; ++r) inputs.push_back({double(r)});
  struct Row {
    std::uint32_t stride, size;
    ReplicaBuffers expected;
  };
  const Row rows[] = {
      {1, 2, {{0, 1}, {0, 1}, {2, 3}, {2, 3}, {4, 5}, {4, 5}, {6, 7}, {6, 7}}},
      {1, 8, ReplicaBuffers(8, {0, 1, 2, 3, 4, 5, 6, 7})},
      {4, 2, {{0, 4}, {1, 5}, {2, 6}, {3, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}}},
  };
  for (const auto& row : rows) {
    const auto groups = test::replica_grouping(8, row.stride, row.size);
    for (auto alg : kRingAndDirect) {
      INFO("grouping (" << row.stride << "," << row.size << ") algorithm " << to_string(alg));
      CHECK(run(CollectiveOp::AllGather, ReduceOp::Add, groups, 1, alg, inputs) == row.expected);
    }
    // Hierarchical, with IPU-Link domains of 1 IPU so every grouping spans several.
    INFO("grouping (" << row.stride << "," << row.size << ") hierarchical");
    CHECK(run(CollectiveOp::AllGather, ReduceOp::Add, groups, 1, Algorithm::Hierarchical, inputs,
              1) == row.expected);
  }
}

TEST_CASE("E20: ReduceScatter without RTS, every operator", "[functional][E20]") {
  // R = 2, n = 11, A_i[j] = 2j + (1 if j % 2 == i else 0).
  ReplicaBuffers inputs(2);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 11; ++j) inputs[i].push_back(2.0 * j + (j % 2 == i ? 1 : 0));
  }
  struct Op {
    ReduceOp op;
    double (*value)(int k);
  };
  const Op ops[] = {
      {ReduceOp::Add, [](int k) { return 4.0 * k + 1; }},
      {ReduceOp::Mean, [](int k) { return (4.0 * k + 1) / 2; }},
      {ReduceOp::Mul, [](int k) { return (2.0 * k + 1) * (2.0 * k); }},
      {ReduceOp::Max, [](int k) { return 2.0 * k + 1; }},
      {ReduceOp::Min, [](int k) { return 2.0 * k; }},
      // Local: the owning replica's own A_i[k], owner i = k / 6.
      {ReduceOp::Local, [](int k) { return 2.0 * k + (k % 2 == k / 6 ? 1 : 0); }},
  };
  const Groups all = {{0, 1}};
  for (const auto& op : ops) {
    ReplicaBuffers expected(2, std::vector<double>(6, 0.0));
    for (int k = 0; k < 11; ++k) expected[k / 6][k % 6] = op.value(k);
    // Index 11, the last element of replica 1, is the padding value 0.
    for (auto alg : kRingAndDirect) {
      INFO("operator " << to_string(op.op) << " algorithm " << to_string(alg));
      CHECK(run(CollectiveOp::ReduceScatter, op.op, all, 11, alg, inputs) == expected);
    }
    INFO("operator " << to_string(op.op) << " hierarchical over two 1-IPU domains");
    CHECK(run(CollectiveOp::ReduceScatter, op.op, all, 11, Algorithm::Hierarchical, inputs, 1) ==
          expected);
  }
}
