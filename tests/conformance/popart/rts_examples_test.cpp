// PopART conformance, reference §2.5 (E21–E25): RTS collectives, shard sizes and the
// tensor_locations.rst example.
#include <catch2/catch.hpp>
#include <vector>

#include "collectives/sharding/cbr.hpp"
#include "collectives/sharding/rts.hpp"

using namespace ipusim::coll;
using Catch::Matchers::Contains;

TEST_CASE("E21 single-instance RTS: R = 4, domain All", "[conformance][E21]") {
  const auto ops = rtsWeightCollectives(4, CommGroup());
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].op == CollectiveOp::AllGather);
  CHECK(ops[0].grouping == ReplicaGrouping(4, 1, 4));
  CHECK(ops[1].op == CollectiveOp::ReduceScatter);
  CHECK(ops[1].grouping == ReplicaGrouping(4, 1, 4));
  // Weights and optimizer state with a 4-element minimum are sharded 4 ways.
  RtsTensorSettings settings;
  settings.minElementsForReplicatedTensorSharding = 4;
  const auto w = decideReplicatedTensorSharding(TensorKind::Weight, 4, 4, settings);
  CHECK(w.sharded);
  CHECK(w.shardFactor == 4);
  CHECK(w.shardElems == 1);
  CHECK(decideReplicatedTensorSharding(TensorKind::OptimizerState, 4, 4, settings).sharded);
}

TEST_CASE("E22 multi-instance RTS: R = 8, domain Consecutive 4", "[conformance][E22]") {
  const auto ops = rtsWeightCollectives(8, CommGroup(CommGroupType::Consecutive, 4));
  REQUIRE(ops.size() == 3);
  CHECK(ops[0].op == CollectiveOp::AllGather);
  CHECK(ops[0].grouping == ReplicaGrouping(8, 1, 4));
  CHECK(ops[1].op == CollectiveOp::ReduceScatter);
  CHECK(ops[1].grouping == ReplicaGrouping(8, 1, 4));
  CHECK(ops[2].op == CollectiveOp::AllReduce);
  CHECK(ops[2].grouping == ReplicaGrouping(8, 4, 2));
  CHECK(ops[0].grouping.getGroups() ==
        std::vector<std::vector<unsigned>>{{0, 1, 2, 3}, {4, 5, 6, 7}});
  CHECK(ops[2].grouping.getGroups() ==
        std::vector<std::vector<unsigned>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
}

TEST_CASE("E23 popxl shard_over buffer shapes (R = 8)", "[conformance][E23]") {
  const ReplicaGrouping all(8);
  CHECK(popxlShardedBufferShape({4, 4}, all, 4u) == Shape{4});
  CHECK(popxlShardedBufferShape({4, 4}, all, 2u) == Shape{8});
  CHECK(popxlShardedBufferShape({4, 4}, all) == Shape{2});  // default: the group size, 8
}

TEST_CASE("E24 invalid popxl sharding factors (R = 8)", "[conformance][E24]") {
  CHECK_THROWS_AS(popxlShardOver(ReplicaGrouping(8), 16u), RtsError);
  CHECK_THROWS_AS(popxlShardOver(ReplicaGrouping(8, 1, 4), 8u), RtsError);
  CHECK_THROWS_AS(popxlShardOver(ReplicaGrouping(8, 1, 4), 3u), RtsError);
  CHECK(popxlShardOver(ReplicaGrouping(8), 8u) == 8);
}

TEST_CASE("E25 shape 5x2x3 over 4 replicas: 8 per replica, two 8s and two 7s",
          "[conformance][E25]") {
  CHECK(rtsShardElems(5 * 2 * 3, 4) == 8);
  CHECK(rtsPaddingElems(30, 4) == 2);
  const CollectiveBalancedReorder cbr({{{0, 30}}}, 4);
  CHECK(cbr.getTotalElementsPerReplica() == 8);
  std::vector<std::uint64_t> real;
  for (unsigned r = 0; r < 4; ++r) real.push_back(cbr.getNumRealElemsOnReplica(r));
  CHECK(real == std::vector<std::uint64_t>{7, 8, 7, 8});
  // Joining the pieces on the host removes the padding.
  std::vector<float> ref(30);
  for (int i = 0; i < 30; ++i) ref[i] = static_cast<float>(i + 1);
  const auto gathered = cbr.getHostRearrangement().rearrangeForCollective(ref);
  CHECK(gathered.size() == 32);
  CHECK(cbr.getHostRearrangement().undoRearrangeForCollective(gathered) == ref);
}
