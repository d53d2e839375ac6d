// RTS arithmetic: shard sizes, the sharding decision, sharding domains, the collectives a
// sharded weight implies, and the host <-> shard layout of remote RTS variables.
#include "collectives/sharding/rts.hpp"

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "collectives/sharding/cbr.hpp"

using namespace ipusim::coll;
using Catch::Matchers::Contains;
using Groups = std::vector<std::vector<unsigned>>;

TEST_CASE("IR-level shard sizes and padding", "[rts]") {
  CHECK(rtsShardElems(30, 4) == 8);
  CHECK(rtsPaddingElems(30, 4) == 2);
  CHECK(rtsShardElems(16, 4) == 4);
  CHECK(rtsPaddingElems(16, 4) == 0);
  CHECK(rtsShardElems(1, 4) == 1);
  CHECK(rtsPaddingElems(1, 4) == 3);
  CHECK(rtsShardElems(0, 4) == 0);
  CHECK(rtsShardElems(8193, 8) == 1025);
  CHECK(rtsPaddingElems(8193, 8) == 7);
  CHECK_THROWS_AS(rtsShardElems(8, 0), RtsError);
}

TEST_CASE("sharding domain -> shard factor", "[rts]") {
  CHECK(shardingDomainShardFactor(CommGroup(), 8) == 8);
  CHECK(shardingDomainShardFactor(CommGroup(CommGroupType::All, 3), 8) == 8);  // size ignored
  CHECK(shardingDomainShardFactor(CommGroup(CommGroupType::Consecutive, 4), 8) == 4);
  CHECK(shardingDomainShardFactor(CommGroup(CommGroupType::Consecutive, 8), 8) == 8);
  CHECK(shardingDomainShardFactor(CommGroup(CommGroupType::None, 0), 8) == 1);
  CHECK(shardingDomainGrouping(CommGroup(CommGroupType::Consecutive, 2), 8) ==
        ReplicaGrouping(8, 1, 2));
}

TEST_CASE("invalid sharding domains are rejected with a reason", "[rts]") {
  CHECK_THROWS_WITH(shardingDomainShardFactor(CommGroup(CommGroupType::Consecutive, 3), 8),
                    Contains("does not divide the replication factor 8"));
  CHECK_THROWS_WITH(shardingDomainShardFactor(CommGroup(CommGroupType::Consecutive, 16), 8),
                    Contains("exceeds the replication factor 8"));
  CHECK_THROWS_WITH(shardingDomainShardFactor(CommGroup(CommGroupType::Consecutive, 0), 8),
                    Contains("positive replicaGroupSize"));
  CHECK_THROWS_WITH(shardingDomainShardFactor(CommGroup(CommGroupType::Orthogonal, 2), 4),
                    Contains("Orthogonal sharding domains are ambiguous upstream"));
  CHECK_THROWS_AS(shardingDomainShardFactor(CommGroup(CommGroupType::Orthogonal, 2), 4), RtsError);
  CHECK_THROWS_AS(rtsWeightCollectives(8, CommGroup(CommGroupType::Consecutive, 3)), RtsError);
}

TEST_CASE("which tensors are sharded", "[rts]") {
  const RtsTensorSettings on;  // RTS on, minimum 8192, domain All
  SECTION("eligible kinds at the threshold") {
    for (auto kind : {TensorKind::Weight, TensorKind::OptimizerState, TensorKind::Accumulator}) {
      const auto d = decideReplicatedTensorSharding(kind, 8192, 4, on);
      INFO(to_string(kind));
      CHECK(d.sharded);
      CHECK(d.shardFactor == 4);
      CHECK(d.shardElems == 2048);
      CHECK(d.paddingElems == 0);
    }
  }
  SECTION("below the threshold") {
    const auto d = decideReplicatedTensorSharding(TensorKind::Weight, 8191, 4, on);
    CHECK_FALSE(d.sharded);
    CHECK(d.shardFactor == 1);
    CHECK(d.shardElems == 8191);
  }
  SECTION("activations never") {
    CHECK_FALSE(decideReplicatedTensorSharding(TensorKind::Activation, 1 << 20, 4, on).sharded);
  }
  SECTION("no replication") {
    const auto d = decideReplicatedTensorSharding(TensorKind::Weight, 1 << 20, 1, on);
    CHECK_FALSE(d.sharded);
    CHECK_THAT(d.reason, Contains("lack of replication"));
  }
  SECTION("RTS off") {
    RtsTensorSettings off;
    off.replicatedTensorSharding = false;
    CHECK_FALSE(decideReplicatedTensorSharding(TensorKind::Weight, 1 << 20, 4, off).sharded);
  }
  SECTION("sharding domain None") {
    RtsTensorSettings none;
    none.shardingDomain = CommGroup(CommGroupType::None, 0);
    CHECK_FALSE(decideReplicatedTensorSharding(TensorKind::Weight, 1 << 20, 4, none).sharded);
  }
  SECTION("variable domain None: one copy per replica") {
    const VariableSettings perReplica(CommGroup(CommGroupType::None, 0));
    CHECK_FALSE(
        decideReplicatedTensorSharding(TensorKind::Weight, 1 << 20, 4, on, perReplica).sharded);
  }
  SECTION("Consecutive domain shards by its size, padding included") {
    RtsTensorSettings c2;
    c2.shardingDomain = CommGroup(CommGroupType::Consecutive, 2);
    c2.minElementsForReplicatedTensorSharding = 4;
    const auto d = decideReplicatedTensorSharding(TensorKind::OptimizerState, 9, 8, c2);
    CHECK(d.sharded);
    CHECK(d.shardFactor == 2);
    CHECK(d.shardElems == 5);
    CHECK(d.paddingElems == 1);
  }
  SECTION("an invalid domain is an error even for small tensors") {
    RtsTensorSettings bad;
    bad.shardingDomain = CommGroup(CommGroupType::Orthogonal, 2);
    CHECK_THROWS_AS(decideReplicatedTensorSharding(TensorKind::Weight, 4, 8, bad), RtsError);
  }
}

TEST_CASE("collectives RTS inserts for one sharded weight", "[rts]") {
  SECTION("R = 8, Consecutive 2: AllReduce over the replicas holding the same shard") {
    const auto ops = rtsWeightCollectives(8, CommGroup(CommGroupType::Consecutive, 2));
    REQUIRE(ops.size() == 3);
    CHECK(ops[0].grouping.getGroups() == Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
    CHECK(ops[1].op == CollectiveOp::ReduceScatter);
    CHECK(ops[2].op == CollectiveOp::AllReduce);
    CHECK(ops[2].grouping.getGroups() == Groups{{0, 2, 4, 6}, {1, 3, 5, 7}});
  }
  SECTION("R = 16, Consecutive 4") {
    const auto ops = rtsWeightCollectives(16, CommGroup(CommGroupType::Consecutive, 4));
    REQUIRE(ops.size() == 3);
    CHECK(ops[2].grouping == ReplicaGrouping(16, 4, 4));
  }
  SECTION("domain covering every replica: no extra AllReduce") {
    CHECK(rtsWeightCollectives(8, CommGroup()).size() == 2);
    CHECK(rtsWeightCollectives(8, CommGroup(CommGroupType::Consecutive, 8)).size() == 2);
  }
  SECTION("domain equal to the variable grouping: no extra AllReduce") {
    const VariableSettings var(CommGroup(CommGroupType::Consecutive, 4));
    const auto ops = rtsWeightCollectives(8, CommGroup(CommGroupType::Consecutive, 4), var);
    REQUIRE(ops.size() == 2);
    CHECK(ops[0].grouping == ReplicaGrouping(8, 1, 4));
  }
  SECTION("domain wider than the variable groups is unsupported") {
    const VariableSettings var(CommGroup(CommGroupType::Consecutive, 4));
    CHECK_THROWS_WITH(rtsWeightCollectives(8, CommGroup(), var),
                      Contains("Could not return a supported ReplicaGrouping transpose"));
  }
  SECTION("non-sharding domains insert nothing") {
    CHECK(rtsWeightCollectives(8, CommGroup(CommGroupType::None, 0)).empty());
    CHECK(rtsWeightCollectives(8, CommGroup(CommGroupType::Consecutive, 1)).empty());
  }
}

TEST_CASE("complementary AllReduce rule", "[rts]") {
  CHECK(keepsComplementaryAllReduce(ReplicaGrouping(8, 4, 2)));        // stride == numGroups
  CHECK(keepsComplementaryAllReduce(ReplicaGrouping(8, 1, 4)));        // stride 1
  CHECK_FALSE(keepsComplementaryAllReduce(ReplicaGrouping(8, 1, 1)));  // size 1
  CHECK_FALSE(keepsComplementaryAllReduce(ReplicaGrouping(8, 1, 8)));  // size N
  CHECK_FALSE(keepsComplementaryAllReduce(ReplicaGrouping(8, 2, 2)));  // stride 2, 4 groups
}

namespace {

std::vector<float> floatsOf(const std::vector<std::uint8_t>& b) {
  std::vector<float> v(b.size() / sizeof(float));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

}  // namespace

TEST_CASE("host layout: R = 8, variable All, sharded over Consecutive 4", "[rts]") {
  // E27's mapping over 4 shards: shard m = [0,1,_,10,11] [2,3,4,12,13] [5,6,_,14,15] [7,8,9,_,_].
  const CollectiveBalancedReorder cbr({{{0, 10}}, {{10, 16}}}, 4);
  std::vector<float> host(16);
  for (int i = 0; i < 16; ++i) host[i] = static_cast<float>(100 + i);
  const VariableSettings var;
  const auto shards = rtsShardsFromHost(host.data(), 4, cbr.getHostRearrangement(), var, 8);
  REQUIRE(shards.size() == 8);
  const std::vector<std::vector<float>> expected = {{100, 101, 0, 110, 111},
                                                    {102, 103, 104, 112, 113},
                                                    {105, 106, 0, 114, 115},
                                                    {107, 108, 109, 0, 0}};
  for (unsigned r = 0; r < 8; ++r) {
    INFO("replica " << r);
    CHECK(floatsOf(shards[r]) == expected[r % 4]);
  }
  const auto one = rtsHostFromShards(shards, 4, cbr.getHostRearrangement(), var, 8, {4, 4});
  CHECK(one.shape == Shape{4, 4});
  CHECK(floatsOf(one.bytes) == host);
  const VariableSettings allReplicas(VariableRetrievalMode::AllReplicas);
  const auto every = rtsHostFromShards(shards, 4, cbr.getHostRearrangement(), allReplicas, 8, {16});
  CHECK(every.shape == Shape{8, 16});
  const auto values = floatsOf(every.bytes);
  for (unsigned r = 0; r < 8; ++r) {
    CHECK(std::vector<float>(values.begin() + r * 16, values.begin() + (r + 1) * 16) == host);
  }
}

TEST_CASE("host layout: grouped variables, one group per slot", "[rts]") {
  // R = 4; one tile [0,6) over 2 shards: shard 0 = elements 0..2, shard 1 = 3..5.
  const CollectiveBalancedReorder cbr({{{0, 6}}}, 2);
  const std::vector<float> host = {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15};  // [2, 6]
  SECTION("Consecutive 2: groups {0,1}, {2,3}") {
    const VariableSettings var(CommGroup(CommGroupType::Consecutive, 2));
    const auto shards = rtsShardsFromHost(host.data(), 4, cbr.getHostRearrangement(), var, 4);
    CHECK(floatsOf(shards[0]) == std::vector<float>{0, 1, 2});
    CHECK(floatsOf(shards[1]) == std::vector<float>{3, 4, 5});
    CHECK(floatsOf(shards[2]) == std::vector<float>{10, 11, 12});
    CHECK(floatsOf(shards[3]) == std::vector<float>{13, 14, 15});
    const auto back = rtsHostFromShards(shards, 4, cbr.getHostRearrangement(), var, 4, {6});
    CHECK(back.shape == Shape{2, 6});
    CHECK(floatsOf(back.bytes) == host);
    const VariableSettings every(CommGroup(CommGroupType::Consecutive, 2),
                                 VariableRetrievalMode::AllReplicas);
    const auto all = rtsHostFromShards(shards, 4, cbr.getHostRearrangement(), every, 4, {6});
    CHECK(all.shape == Shape{4, 6});
    CHECK(floatsOf(all.bytes) == std::vector<float>{0,  1,  2,  3,  4,  5,  0,  1,
                                                    2,  3,  4,  5,  10, 11, 12, 13,
                                                    14, 15, 10, 11, 12, 13, 14, 15});
  }
  SECTION("Orthogonal 2: groups {0,2}, {1,3}") {
    const VariableSettings var(CommGroup(CommGroupType::Orthogonal, 2));
    const auto shards = rtsShardsFromHost(host.data(), 4, cbr.getHostRearrangement(), var, 4);
    CHECK(floatsOf(shards[0]) == std::vector<float>{0, 1, 2});
    CHECK(floatsOf(shards[2]) == std::vector<float>{3, 4, 5});
    CHECK(floatsOf(shards[1]) == std::vector<float>{10, 11, 12});
    CHECK(floatsOf(shards[3]) == std::vector<float>{13, 14, 15});
    const auto back = rtsHostFromShards(shards, 4, cbr.getHostRearrangement(), var, 4, {2, 3});
    CHECK(back.shape == Shape{2, 2, 3});
    CHECK(floatsOf(back.bytes) == host);
  }
  SECTION("shards must divide the variable group") {
    const CollectiveBalancedReorder four({{{0, 6}}}, 4);
    const VariableSettings var(CommGroup(CommGroupType::Consecutive, 2));
    CHECK_THROWS_AS(rtsShardsFromHost(host.data(), 4, four.getHostRearrangement(), var, 4),
                    RtsError);
  }
  SECTION("read-back checks its inputs") {
    const VariableSettings var(CommGroup(CommGroupType::Consecutive, 2));
    auto shards = rtsShardsFromHost(host.data(), 4, cbr.getHostRearrangement(), var, 4);
    CHECK_THROWS_AS(rtsHostFromShards(shards, 4, cbr.getHostRearrangement(), var, 4, {5}),
                    RtsError);
    shards[3].pop_back();
    CHECK_THROWS_AS(rtsHostFromShards(shards, 4, cbr.getHostRearrangement(), var, 4, {6}),
                    RtsError);
  }
}
