// The gradient collectives the pipeline lowering emits for an optimizer state sharded over a
// part of the replicas, against PopART 2.3's StreamingMemoryOpInserter::RTSAllReduceToScatter
// worked by hand: a ReduceScatter over the sharding domain, an AllReduce of the shards over
// getComplementCommGroup(domain) (Consecutive k -> Orthogonal R/k: the R/k replicas at stride
// k that hold the same shard) when that group has more than one replica, and the AllGather of
// the updated weights over the domain.
#include <catch2/catch.hpp>

#include "runtime/passes/pass_pipeline.hpp"

using namespace ipusim;
using namespace ipusim::rt;

namespace {

constexpr std::uint64_t kWeightElements = 1600;  // divides by every shard count used here

/// One stage on virtual graph 0 with one weight of kWeightElements, R replicas, the optimizer
/// state on chip with RTS over `domain`.
std::vector<LOp> optimizer_ops(std::uint32_t R, const std::string& domain) {
  PipelinePlan plan;
  PipelineStage st;
  st.first_op = st.last_op = "op";
  plan.stages.push_back(st);
  StageOptimizer so;
  so.weight_elements = kWeightElements;
  so.weight_bytes = 2 * kWeightElements;
  plan.optimizers.push_back(so);
  plan.pipelined = true;
  SessionOptions s;
  s.replicatedGraphCount = R;
  s.enablePipelining = true;
  s.optimizerState.location.replicatedTensorSharding = true;
  s.optimizerState.location.shardingDomain = domain;
  const Program prog = lower_pipeline(plan, s);
  REQUIRE_FALSE(prog.phases.empty());
  std::vector<LOp> out;
  for (const LOp& op : prog.phases.back().ops)
    if (op.kind == LKind::Collective) out.push_back(op);
  return out;
}

}  // namespace

TEST_CASE("RTS over one of two domains: in-domain reduce-scatter, cross-domain all-reduce",
          "[rts][pipeline]") {
  // 16 replicas, consecutive:8 (BERT POD128 under poprun: the 8 replicas of one instance).
  // Complement: Orthogonal 16 / 8 = 2, groups {r, r + 8} = ReplicaGrouping(16, stride 8, 2).
  const std::vector<LOp> ops = optimizer_ops(16, "consecutive:8");
  REQUIRE(ops.size() == 3);
  CHECK(ops[0].cop == coll::CollectiveOp::ReduceScatter);
  CHECK(*ops[0].group == coll::ReplicaGrouping(16, 1, 8));
  CHECK(ops[0].elements == kWeightElements);
  CHECK(ops[1].cop == coll::CollectiveOp::AllReduce);
  CHECK(*ops[1].group == coll::ReplicaGrouping(16, 8, 2));
  CHECK(ops[1].group->getReplicasAt(0) == std::vector<unsigned>{0, 8});
  CHECK(ops[1].group->getReplicasAt(7) == std::vector<unsigned>{7, 15});
  CHECK(ops[1].elements == kWeightElements / 8);  // the shard: 200
  CHECK(ops[2].cop == coll::CollectiveOp::AllGather);
  CHECK(*ops[2].group == coll::ReplicaGrouping(16, 1, 8));
  CHECK(ops[2].elements == kWeightElements / 8);
}

TEST_CASE("RTS over pairs: the complement is the 8 replicas at stride 2, not 2 at stride 8",
          "[rts][pipeline]") {
  // consecutive:2 on 16: Orthogonal 16 / 2 = 8, groups {0, 2, ..., 14} and {1, 3, ..., 15}.
  // (Reading "consecutive:k" as Orthogonal k gives groups of 2 at stride 8: wrong unless
  // k * k == R.)
  const std::vector<LOp> ops = optimizer_ops(16, "consecutive:2");
  REQUIRE(ops.size() == 3);
  REQUIRE(ops[1].cop == coll::CollectiveOp::AllReduce);
  CHECK(*ops[1].group == coll::ReplicaGrouping(16, 2, 8));
  CHECK(ops[1].group->getReplicasAt(1) == std::vector<unsigned>{1, 3, 5, 7, 9, 11, 13, 15});
  CHECK(ops[1].elements == kWeightElements / 2);
}

TEST_CASE("RTS over all replicas, or a domain of all of them: no complementary all-reduce",
          "[rts][pipeline]") {
  for (const std::string domain : {"all", "consecutive:16"}) {
    const std::vector<LOp> ops = optimizer_ops(16, domain);
    REQUIRE(ops.size() == 2);
    CHECK(ops[0].cop == coll::CollectiveOp::ReduceScatter);
    CHECK(*ops[0].group == coll::ReplicaGrouping(16, 1, 16));
    CHECK(ops[1].cop == coll::CollectiveOp::AllGather);
    CHECK(ops[1].elements == kWeightElements / 16);
  }
}
