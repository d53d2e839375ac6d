// The gradient collectives the pipeline lowering emits per weight, against PopART worked by
// hand (sdk/popart/2.1.0 and sdk/poplar/2.3.0): OptimizerDecompose gives each weight's
// accumulator its own ReplicatedAllReduceInplaceOp; StreamingMemoryOpInserter turns it into a
// ReplicatedReduceScatterOp (and the all-reduce of the shard over the complementary group,
// when there is one) only for a weight whose optimizer state has at least
// minElementsForReplicatedTensorSharding elements, and all-gathers that weight's updated shard;
// every op is its own GCL call (popx/op/collectives/*x.cpp). MLPerf BERT's
// ZFusedReplicatedAllReducePattern fuses a virtual graph's all-reduces into one. LAMB's two
// LambSquareOps of a sharded weight each get an all-reduce of their FP32 scalar over the
// sharding domain (LambSquareOp::configureForReplicatedTensorSharding, willow/src/op/lamb.cpp).
#include <catch2/catch.hpp>

#include "runtime/passes/pass_pipeline.hpp"

using namespace ipusim;
using namespace ipusim::rt;

namespace {

constexpr std::uint64_t kBig = 16384;   // >= 8192: sharded
constexpr std::uint64_t kSmall = 1024;  // < 8192 (PopART's default threshold): not sharded

/// One stage on virtual graph 0 with the two weights kBig and kSmall (each its own update op),
/// 8 replicas, the optimizer state on chip with RTS over `domain`; `norms` LAMB norms per weight.
std::vector<LOp> optimizer_ops(const std::string& domain, bool fused, bool per_weight = true,
                               std::uint32_t norms = 0) {
  PipelinePlan plan;
  PipelineStage st;
  st.first_op = st.last_op = "op";
  plan.stages.push_back(st);
  StageOptimizer so;
  so.weight_elements = kBig + kSmall;
  so.weight_bytes = 2 * (kBig + kSmall);
  ComputePart big, small;
  big.flops = static_cast<double>(kBig);
  small.flops = static_cast<double>(kSmall);
  so.updates = {big, small};
  so.update_flops = big.flops + small.flops;
  if (per_weight) so.weight_sizes = {kBig, kSmall};
  if (per_weight) so.sharded_norms = {norms, norms};
  plan.optimizers.push_back(so);
  plan.pipelined = true;
  SessionOptions s;
  s.replicatedGraphCount = 8;
  s.enablePipelining = true;
  s.optimizerState.location.replicatedTensorSharding = true;
  s.optimizerState.location.shardingDomain = domain;
  s.fusedGradientAllReduce = fused;
  const Program prog = lower_pipeline(plan, s);
  REQUIRE_FALSE(prog.phases.empty());
  std::vector<LOp> out;
  for (const LOp& op : prog.phases.back().ops)
    if (op.kind == LKind::Collective || op.role == "optimizer") out.push_back(op);
  return out;
}

}  // namespace

TEST_CASE("per weight: a sharded weight is reduce-scattered and gathered, a small one all-reduced",
          "[rts][pipeline]") {
  // RTS over all 8 replicas (v1.0 BERT, no complement): kBig -> reduce-scatter of 16,384, its
  // update on 16,384 / 8 = 2,048, all-gather of 2,048; kSmall -> all-reduce of 1,024 over the 8
  // replicas, its update on all 1,024. Order: the reductions, the update, the gathers.
  const std::vector<LOp> ops = optimizer_ops("all", false);
  REQUIRE(ops.size() == 4);
  CHECK(ops[0].cop == coll::CollectiveOp::ReduceScatter);
  CHECK(*ops[0].group == coll::ReplicaGrouping(8, 1, 8));
  CHECK(ops[0].elements == kBig);
  CHECK(ops[1].cop == coll::CollectiveOp::AllReduce);
  CHECK(*ops[1].group == coll::ReplicaGrouping(8, 1, 8));
  CHECK(ops[1].elements == kSmall);
  CHECK(ops[2].role == "optimizer");
  CHECK(ops[2].flops == Approx(2048.0 + 1024.0));  // kBig / 8 + kSmall
  CHECK(ops[3].cop == coll::CollectiveOp::AllGather);
  CHECK(ops[3].elements == kBig / 8);
}

TEST_CASE("per weight: a partial domain adds each sharded weight's complementary all-reduce",
          "[rts][pipeline]") {
  // consecutive:4 on 8: complement Orthogonal 8 / 4 = 2, groups {r, r + 4} =
  // ReplicaGrouping(8, stride 4, 2). kBig: reduce-scatter over 4, all-reduce of its shard
  // 4,096 over {r, r + 4}; kSmall: all-reduce over all 8 (its state is not sharded).
  const std::vector<LOp> ops = optimizer_ops("consecutive:4", false);
  REQUIRE(ops.size() == 5);
  CHECK(ops[0].cop == coll::CollectiveOp::ReduceScatter);
  CHECK(*ops[0].group == coll::ReplicaGrouping(8, 1, 4));
  CHECK(ops[1].cop == coll::CollectiveOp::AllReduce);
  CHECK(*ops[1].group == coll::ReplicaGrouping(8, 4, 2));
  CHECK(ops[1].elements == kBig / 4);
  CHECK(ops[2].cop == coll::CollectiveOp::AllReduce);
  CHECK(*ops[2].group == coll::ReplicaGrouping(8, 1, 8));
  CHECK(ops[2].elements == kSmall);
  CHECK(ops[3].flops == Approx(4096.0 + 1024.0));
  CHECK(ops[4].cop == coll::CollectiveOp::AllGather);
  CHECK(*ops[4].group == coll::ReplicaGrouping(8, 1, 4));
  CHECK(ops[4].elements == kBig / 4);
}

TEST_CASE("ZFusedReplicatedAllReducePattern: one all-reduce per virtual graph", "[rts][pipeline]") {
  // The complementary all-reduce of kBig's shard (4,096) and kSmall's all-reduce (1,024) become
  // one fused all-reduce of 5,120 elements over the complement; the reduce-scatter and the
  // all-gather stay per weight.
  const std::vector<LOp> ops = optimizer_ops("consecutive:4", true);
  REQUIRE(ops.size() == 4);
  CHECK(ops[0].cop == coll::CollectiveOp::ReduceScatter);
  CHECK(ops[1].cop == coll::CollectiveOp::AllReduce);
  CHECK(*ops[1].group == coll::ReplicaGrouping(8, 4, 2));
  CHECK(ops[1].elements == kBig / 4 + kSmall);
  CHECK(ops[3].cop == coll::CollectiveOp::AllGather);
  // RTS over all replicas: no complement, so only kSmall's all-reduce is fused (over all 8).
  const std::vector<LOp> all = optimizer_ops("all", true);
  REQUIRE(all.size() == 4);
  CHECK(all[1].cop == coll::CollectiveOp::AllReduce);
  CHECK(*all[1].group == coll::ReplicaGrouping(8, 1, 8));
  CHECK(all[1].elements == kSmall);
}

TEST_CASE("without per-weight sizes the virtual graph's weights reduce as one", "[rts][pipeline]") {
  // The cnn generator (TensorFlow): one reduce-scatter of 17,408 and one all-gather of
  // 17,408 / 8 = 2,176; the update on 1 / 8 of both weights.
  const std::vector<LOp> ops = optimizer_ops("all", false, false);
  REQUIRE(ops.size() == 3);
  CHECK(ops[0].cop == coll::CollectiveOp::ReduceScatter);
  CHECK(ops[0].elements == kBig + kSmall);
  CHECK(ops[1].flops == Approx((16384.0 + 1024.0) / 8));
  CHECK(ops[2].cop == coll::CollectiveOp::AllGather);
  CHECK(ops[2].elements == (kBig + kSmall) / 8);
}

TEST_CASE("LAMB: each norm of a sharded weight is all-reduced over the sharding domain",
          "[rts][pipeline]") {
  // Two LambSquareOps per weight. kBig (sharded over consecutive:4): its two norms are norms of
  // its shard, so two all-reduces of one FP32 element over ReplicaGrouping(8, 1, 4), before the
  // update. kSmall (not sharded): its norms are whole, no collective. So the 5 ops of the
  // consecutive:4 case above plus 2: RS, complementary AR, kSmall's AR, 2 norm ARs, update, AG.
  const std::vector<LOp> ops = optimizer_ops("consecutive:4", false, true, 2);
  REQUIRE(ops.size() == 7);
  for (int i : {3, 4}) {
    CHECK(ops[i].cop == coll::CollectiveOp::AllReduce);
    CHECK(*ops[i].group == coll::ReplicaGrouping(8, 1, 4));
    CHECK(ops[i].elements == 1);
    CHECK(ops[i].dtype == DType::Float32);
  }
  CHECK(ops[5].role == "optimizer");
  CHECK(ops[6].cop == coll::CollectiveOp::AllGather);
  // Without RTS no weight is sharded: no norm all-reduce, only the two gradient all-reduces.
  const std::vector<LOp> none = optimizer_ops("none", false, true, 2);
  std::size_t norm_ars = 0;
  for (const LOp& op : none) norm_ars += op.elements == 1 ? 1 : 0;
  CHECK(norm_ars == 0);
}
