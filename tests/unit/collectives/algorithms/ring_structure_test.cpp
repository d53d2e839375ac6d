// Structure of the ring schedules: step counts, bytes per step and ring neighbours, all
// worked out by hand from the reference (§4.2, §4.3).
#include <catch2/catch.hpp>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/algorithms/auto_select.hpp"
#include "request_helpers.hpp"

using namespace ipusim::coll;
using namespace ipusim::coll::test;

TEST_CASE("clockwise ring of 8: N-1 steps of ceil(n/N) elements per member", "[ring]") {
  // n = 20 float32 over 8 ranks: fragments of ceil(20/8) = 3 elements = 12 bytes.
  const auto s = build_schedule(request(CollectiveOp::AllReduce, 8, 20, Algorithm::Clockwise));
  REQUIRE(s.algorithm == Algorithm::Clockwise);
  REQUIRE(s.steps.size() == 14);
  CHECK(s.working_elems == 24);
  CHECK(s.num_steps == 14);
  CHECK(s.num_transfers == 14 * 8);
  const auto edges = ring_edges({0, 2, 4, 6, 7, 5, 3, 1});  // Interleaved ladder ring
  for (std::size_t i = 0; i < 14; ++i) {
    const auto& step = s.steps[i];
    INFO("step " << i);
    CHECK(step.phase == (i < 7 ? "reduce_scatter" : "all_gather"));
    CHECK(step.reduce == (i < 7));
    CHECK(step.max_reduce_elems_per_ipu == (i < 7 ? 3u : 0u));
    REQUIRE(step.transfers.size() == 8);
    for (const auto& t : step.transfers) CHECK(t.bytes == 12);
    CHECK(pairs(step) == edges);
  }
}

TEST_CASE("ring of 5 with n not divisible by N pads fragments", "[ring]") {
  // n = 7 over 5 ranks: ceil(7/5) = 2 elements = 4 bytes (float16) per step and member.
  const auto s = build_schedule(
      request(CollectiveOp::ReduceScatter, 5, 7, Algorithm::Clockwise, DType::Float16));
  REQUIRE(s.steps.size() == 4);
  CHECK(s.output_elems == 2);
  for (const auto& step : s.steps) {
    REQUIRE(step.transfers.size() == 5);
    for (const auto& t : step.transfers) CHECK(t.bytes == 4);
  }
}

TEST_CASE("anticlockwise ring uses the reversed neighbours", "[ring]") {
  const auto s = build_schedule(request(CollectiveOp::AllGather, 8, 4, Algorithm::Anticlockwise));
  REQUIRE(s.steps.size() == 7);
  for (const auto& step : s.steps) {
    CHECK(pairs(step) == ring_edges({0, 2, 4, 6, 7, 5, 3, 1}, true));
    for (const auto& t : step.transfers) CHECK(t.bytes == 16);  // the whole 4-float piece
  }
}

TEST_CASE("bidirectional pair moves half of each fragment per direction", "[ring]") {
  // n = 32 float16 over 8: fragment 4 elements, half = 2 elements = 4 bytes each way.
  const auto s = build_schedule(
      request(CollectiveOp::ReduceScatter, 8, 32, Algorithm::BidirectionalPair, DType::Float16));
  REQUIRE(s.steps.size() == 7);
  const auto cw = ring_edges({0, 2, 4, 6, 7, 5, 3, 1});
  const auto acw = ring_edges({0, 2, 4, 6, 7, 5, 3, 1}, true);
  for (const auto& step : s.steps) {
    REQUIRE(step.transfers.size() == 16);
    int cw_count = 0;
    for (const auto& t : step.transfers) {
      CHECK(t.bytes == 4);
      cw_count += cw.count({t.src_ipu, t.dst_ipu}) ? 1 : 0;
    }
    CHECK(cw_count == 8);
    CHECK(pairs(step) == unite(cw, acw));
    CHECK(step.max_reduce_elems_per_ipu == 4);  // 2 from each neighbour
  }
}

TEST_CASE("meet in the middle: N/2 steps, the last one clockwise only", "[ring]") {
  // 8 ranks: clockwise chains of 4 hops (program 1 + N/2 steps), anticlockwise of 3 (N/2).
  const auto s =
      build_schedule(request(CollectiveOp::ReduceScatter, 8, 16, Algorithm::MeetInTheMiddle));
  REQUIRE(s.steps.size() == 4);
  const auto cw = ring_edges({0, 2, 4, 6, 7, 5, 3, 1});
  int cw_total = 0;
  int acw_total = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& step = s.steps[i];
    REQUIRE(step.transfers.size() == (i < 3 ? 16u : 8u));
    for (const auto& t : step.transfers) {
      CHECK(t.bytes == 8);  // full fragments: ceil(16/8) = 2 floats
      (cw.count({t.src_ipu, t.dst_ipu}) ? cw_total : acw_total) += 1;
    }
  }
  CHECK(cw_total == 8 * 4);
  CHECK(acw_total == 8 * 3);

  const auto ar =
      build_schedule(request(CollectiveOp::AllReduce, 8, 16, Algorithm::MeetInTheMiddle));
  CHECK(ar.steps.size() == 8);
  const auto odd =
      build_schedule(request(CollectiveOp::AllGather, 7, 3, Algorithm::MeetInTheMiddle));
  REQUIRE(odd.steps.size() == 3);  // 3 hops each way
  for (const auto& step : odd.steps) CHECK(step.transfers.size() == 14);
}

TEST_CASE("quad-directional: serpent and mirrored serpent rings, both directions", "[ring]") {
  auto req = request(CollectiveOp::ReduceScatter, 8, 64, Algorithm::QuadDirectional);
  req.topology.torus = true;
  req.topology.link_config = LinkConfig::BarleyTwist;
  const auto s = build_schedule(req);
  REQUIRE(s.steps.size() == 7);
  const std::vector<std::uint32_t> serpent = {0, 1, 3, 2, 4, 5, 7, 6};
  const std::vector<std::uint32_t> mirrored = {1, 0, 2, 3, 5, 4, 6, 7};
  const auto expected = unite(unite(ring_edges(serpent), ring_edges(serpent, true)),
                              unite(ring_edges(mirrored), ring_edges(mirrored, true)));
  for (const auto& step : s.steps) {
    REQUIRE(step.transfers.size() == 32);
    for (const auto& t : step.transfers) CHECK(t.bytes == 8);  // 8-float fragment / 4 parts
    CHECK(pairs(step) == expected);
  }
}

TEST_CASE("K IPUs per replica run K parallel rings, IPU j with IPU j", "[ring]") {
  // 4 replicas x 2 IPUs on a ladder: replica ring 0,2,3,1; IPUs 2r + j.
  auto req = request(CollectiveOp::AllReduce, 4, 16, Algorithm::Auto);
  req.topology.ipus_per_replica = 2;
  // Auto's ring rule 3 (more than 1 IPU per replica) for a tensor above the small-message rule.
  auto big = req;
  big.elements_per_replica = 1 << 20;
  CHECK(select_algorithm(big) == Algorithm::Clockwise);
  req.algorithm = Algorithm::Clockwise;
  const auto s = build_schedule(req);
  CHECK(s.algorithm == Algorithm::Clockwise);
  REQUIRE(s.steps.size() == 6);
  const auto expected = unite(ring_edges({0, 4, 6, 2}), ring_edges({1, 5, 7, 3}));
  for (const auto& step : s.steps) {
    REQUIRE(step.transfers.size() == 8);
    for (const auto& t : step.transfers) CHECK(t.bytes == 8);  // ceil(16/4) = 4 floats / 2 IPUs
    CHECK(pairs(step) == expected);
  }

  req.topology.torus = true;  // torus, K > 1: Flat order and meet in the middle (rule 2)
  big.topology.torus = true;
  CHECK(select_algorithm(big) == Algorithm::MeetInTheMiddle);
  req.algorithm = Algorithm::MeetInTheMiddle;
  const auto t = build_schedule(req);
  CHECK(t.algorithm == Algorithm::MeetInTheMiddle);
  REQUIRE(t.steps.size() == 4);
  CHECK(pairs(t.steps[0]) ==
        unite(unite(ring_edges({0, 2, 4, 6}), ring_edges({0, 2, 4, 6}, true)),
              unite(ring_edges({1, 3, 5, 7}), ring_edges({1, 3, 5, 7}, true))));
}

TEST_CASE("concurrent groups run in the same steps, each on its own ring", "[ring]") {
  auto req = request(CollectiveOp::AllReduce, 8, 8, Algorithm::Clockwise);
  req.groups = consecutive(8, 4);
  const auto s = build_schedule(req);
  REQUIRE(s.steps.size() == 6);
  for (const auto& step : s.steps) {
    CHECK(pairs(step) == unite(ring_edges({0, 2, 3, 1}), ring_edges({4, 6, 7, 5})));
  }
}

TEST_CASE("direct algorithms exchange in one step per phase", "[direct]") {
  const auto ar = build_schedule(request(CollectiveOp::AllReduce, 4, 8, Algorithm::Direct));
  REQUIRE(ar.steps.size() == 2);
  CHECK(ar.steps[0].phase == "reduce_scatter");
  CHECK(ar.steps[0].transfers.size() == 12);
  CHECK(ar.steps[0].max_reduce_elems_per_ipu == 6);  // 3 peers x 2 elements
  CHECK(ar.steps[1].phase == "all_gather");
  CHECK(ar.steps[1].transfers.size() == 12);

  const auto a2a = build_schedule(request(CollectiveOp::AllToAll, 4, 8, Algorithm::Auto));
  CHECK(a2a.algorithm == Algorithm::Direct);
  REQUIRE(a2a.steps.size() == 1);
  REQUIRE(a2a.steps[0].transfers.size() == 12);
  for (const auto& t : a2a.steps[0].transfers) {
    CHECK(t.bytes == 8);
    CHECK(t.src_offset == 2 * t.dst_ipu);  // block j of rank i ...
    CHECK(t.dst_offset == 2 * t.src_ipu);  // ... lands in block i of rank j
  }

  const auto bc = build_schedule(request(CollectiveOp::Broadcast, 4, 5, Algorithm::Auto));
  CHECK(bc.algorithm == Algorithm::Direct);
  REQUIRE(bc.steps.size() == 1);
  CHECK(pairs(bc.steps[0]) == std::set<Pair>{{0, 1}, {0, 2}, {0, 3}});
  for (const auto& t : bc.steps[0].transfers) CHECK(t.bytes == 20);  // unpadded 5 floats
}

TEST_CASE("ring broadcast = scatter from the root, then a ring all-gather", "[ring]") {
  const auto s = build_schedule(request(CollectiveOp::Broadcast, 4, 8, Algorithm::Clockwise));
  REQUIRE(s.steps.size() == 4);
  CHECK(s.steps[0].phase == "scatter");
  CHECK(pairs(s.steps[0]) == std::set<Pair>{{0, 1}, {0, 2}, {0, 3}});
  for (std::size_t i = 1; i < 4; ++i) CHECK(s.steps[i].phase == "all_gather");
}

TEST_CASE("no communication for Local reductions, groups of one, or empty tensors", "[ring]") {
  auto req = request(CollectiveOp::ReduceScatter, 4, 8, Algorithm::Clockwise);
  req.reduce = ReduceOp::Local;
  CHECK(build_schedule(req).steps.empty());
  req.op = CollectiveOp::AllReduce;
  CHECK(build_schedule(req).steps.empty());
  auto single = request(CollectiveOp::AllGather, 4, 8, Algorithm::Clockwise);
  single.groups = consecutive(4, 1);
  CHECK(build_schedule(single).steps.empty());
  CHECK(build_schedule(request(CollectiveOp::AllReduce, 4, 0, Algorithm::Auto)).steps.empty());
}

TEST_CASE("streamed steps equal the stored ones", "[ring]") {
  auto req = request(CollectiveOp::AllReduce, 16, 100, Algorithm::BidirectionalPair);
  const auto stored = build_schedule(req);
  std::vector<Superstep> streamed;
  const auto header = generate_schedule(req, [&](const Superstep& s) { streamed.push_back(s); });
  CHECK(header.steps.empty());
  CHECK(header.num_steps == stored.steps.size());
  CHECK(header.num_transfers == stored.num_transfers);
  REQUIRE(streamed.size() == stored.steps.size());
  for (std::size_t i = 0; i < streamed.size(); ++i) {
    REQUIRE(streamed[i].transfers.size() == stored.steps[i].transfers.size());
    CHECK(streamed[i].phase == stored.steps[i].phase);
    for (std::size_t j = 0; j < streamed[i].transfers.size(); ++j) {
      const auto& a = streamed[i].transfers[j];
      const auto& b = stored.steps[i].transfers[j];
      CHECK((a.src_ipu == b.src_ipu && a.dst_ipu == b.dst_ipu && a.bytes == b.bytes &&
             a.src_offset == b.src_offset && a.dst_offset == b.dst_offset));
    }
  }
}
