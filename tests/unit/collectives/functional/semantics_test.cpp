// Hand-worked functional results for the ops E19/E20 do not cover, fp16 rounding, and the
// executor's snapshot semantics.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/functional/fp16_util.hpp"
#include "collectives/functional/functional.hpp"
#include "groupings.hpp"

using namespace ipusim::coll;

namespace {

CollectiveRequest req(CollectiveOp op, ReduceOp reduce, std::uint64_t n, test::Groups groups,
                      Algorithm alg = Algorithm::Auto) {
  CollectiveRequest r;
  r.op = op;
  r.reduce = reduce;
  r.elements_per_replica = n;
  r.groups = std::move(groups);
  r.algorithm = alg;
  return r;
}

}  // namespace

TEST_CASE("AllToAll transposes blocks between ranks", "[functional]") {
  // 3 ranks, m = 2: rank i holds 10i + [0..5]; rank i's output block j = rank j's block i.
  ReplicaBuffers in(3);
  for (int i = 0; i < 3; ++i) {
    for (int e = 0; e < 6; ++e) in[i].push_back(10 * i + e);
  }
  const ReplicaBuffers want = {
      {0, 1, 10, 11, 20, 21}, {2, 3, 12, 13, 22, 23}, {4, 5, 14, 15, 24, 25}};
  const auto s = build_schedule(req(CollectiveOp::AllToAll, ReduceOp::Add, 6, {{0, 1, 2}}));
  CHECK(run_functional(s, in) == want);
  CHECK(direct_reference(CollectiveOp::AllToAll, ReduceOp::Add, DType::Float32, {{0, 1, 2}}, in) ==
        want);
}

TEST_CASE("Broadcast copies group rank 0, which need not be the lowest id", "[functional]") {
  const ReplicaBuffers in = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}};
  const test::Groups groups = {{2, 0}, {1, 3}};  // roots 2 and 1
  const ReplicaBuffers want = {{7, 8, 9}, {4, 5, 6}, {7, 8, 9}, {4, 5, 6}};
  for (auto alg : {Algorithm::Direct, Algorithm::Clockwise, Algorithm::MeetInTheMiddle}) {
    INFO(to_string(alg));
    CHECK(run_functional(
              build_schedule(req(CollectiveOp::Broadcast, ReduceOp::Add, 3, groups, alg)), in) ==
          want);
  }
}

TEST_CASE("Local AllReduce keeps each replica's own input", "[functional]") {
  const ReplicaBuffers in = {{1, 2}, {3, 4}};
  const auto s = build_schedule(req(CollectiveOp::AllReduce, ReduceOp::Local, 2, {{0, 1}}));
  CHECK(s.steps.empty());
  CHECK(run_functional(s, in) == in);
}

TEST_CASE("AllGather with K = 4 IPUs per replica and a ragged split", "[functional]") {
  // n = 5 over 4 IPUs: pieces of 2, 2, 1, 0 elements (padded to 2 each).
  ReplicaBuffers in = {{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}};
  auto r = req(CollectiveOp::AllGather, ReduceOp::Add, 5, {{1, 0}}, Algorithm::Clockwise);
  r.topology.ipus_per_replica = 4;
  const auto s = build_schedule(r);
  CHECK(s.working_elems == 16);
  const ReplicaBuffers want = {{6, 7, 8, 9, 10, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 1, 2, 3, 4, 5}};
  CHECK(run_functional(s, in) == want);
}

TEST_CASE("float16 results stay within accumulated rounding of the exact sum",
          "[functional][fp16]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  const std::uint32_t k = 8;
  ReplicaBuffers in(k);
  for (auto& v : in) {
    for (int e = 0; e < 37; ++e) v.push_back(value(rng));
  }
  const auto ref = direct_reference(CollectiveOp::AllReduce, ReduceOp::Add, DType::Float16,
                                    test::consecutive(k, k), in);
  for (auto alg : {Algorithm::Clockwise, Algorithm::BidirectionalPair, Algorithm::MeetInTheMiddle,
                   Algorithm::Direct}) {
    auto r = req(CollectiveOp::AllReduce, ReduceOp::Add, 37, test::consecutive(k, k), alg);
    r.dtype = DType::Float16;
    const auto out = run_functional(build_schedule(r), in);
    for (std::uint32_t i = 0; i < k; ++i) {
      for (int e = 0; e < 37; ++e) {
        // k roundings, each at most half an ulp of a value below 8 (ulp 2^-8), plus the
        // reference's own final rounding.
        CHECK(std::abs(out[i][e] - ref[i][e]) <= (k + 1) * std::ldexp(1.0, -9));
        CHECK(round_to_dtype(out[i][e], DType::Float16) == out[i][e]);  // representable
      }
    }
  }
  CHECK(round_to_dtype(1.0 + std::ldexp(1.0, -11), DType::Float16) == 1.0);  // ties to even
  CHECK(round_to_dtype(65520.0, DType::Float16) == INFINITY);
  CHECK(round_to_dtype(0.1, DType::Float32) == static_cast<double>(0.1f));
}

TEST_CASE("every read in a step sees the buffers as at the start of the step", "[functional]") {
  // A hand-made step where replica 0 and 1 swap their element 0: only snapshot reads swap.
  Schedule s;
  s.op = CollectiveOp::AllReduce;
  s.reduce = ReduceOp::Add;
  s.elements_per_replica = 1;
  s.num_replicas = 2;
  s.group_size = 2;
  s.groups = {{0, 1}};
  s.working_elems = 1;
  s.output_elems = 1;
  s.input_map = {1, {{0, 0, 1}}, {}};
  s.output_map = s.input_map;
  Superstep step;
  step.transfers = {{0, 1, 4, 0, 0}, {1, 0, 4, 0, 0}};
  s.steps = {step};
  s.num_steps = 1;
  CHECK(run_functional(s, {{1}, {2}}) == ReplicaBuffers{{2}, {1}});
  s.steps[0].reduce = true;
  CHECK(run_functional(s, {{1}, {2}}) == ReplicaBuffers{{3}, {3}});
  s.steps[0].transfers[0].dst_offset = 1;  // out of the working buffer
  CHECK_THROWS_AS(run_functional(s, {{1}, {2}}), std::out_of_range);
  CHECK_THROWS_AS(run_functional(s, {{1}}), std::invalid_argument);
}
