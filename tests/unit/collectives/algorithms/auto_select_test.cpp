// AUTO method selection: crossovers just below / at each threshold of reference §4.5.
#include "collectives/algorithms/auto_select.hpp"

#include <catch2/catch.hpp>

#include "request_helpers.hpp"

using namespace ipusim::coll;
using namespace ipusim::coll::test;

namespace {

const auto MITM = Algorithm::MeetInTheMiddle;
const auto PAIR = Algorithm::BidirectionalPair;

Algorithm ladder(RingPhaseKind kind, std::uint32_t ranks, std::uint64_t bytes) {
  return pick_ring_method(kind, ranks, bytes, 1, false, LinkConfig::Default);
}

}  // namespace

TEST_CASE("AllGather thresholds: 622592, 2490368, 19922944 bytes per IPU", "[auto]") {
  const auto AG = RingPhaseKind::AllGather;
  for (std::uint32_t ranks : {3u, 4u}) {
    CHECK(ladder(AG, ranks, 622591) == MITM);
    CHECK(ladder(AG, ranks, 622592) == PAIR);
    CHECK(ladder(AG, ranks, 100000000) == PAIR);
  }
  for (std::uint32_t ranks : {5u, 8u}) {
    CHECK(ladder(AG, ranks, 622592) == MITM);  // above A but more than 4 ranks
    CHECK(ladder(AG, ranks, 2490367) == MITM);
    CHECK(ladder(AG, ranks, 2490368) == PAIR);
  }
  for (std::uint32_t ranks : {9u, 16u}) {
    CHECK(ladder(AG, ranks, 2490368) == MITM);
    CHECK(ladder(AG, ranks, 19922943) == MITM);
    CHECK(ladder(AG, ranks, 19922944) == PAIR);
  }
  CHECK(ladder(AG, 17, 1000000000) == MITM);  // more than 16 ranks: always
}

TEST_CASE("ReduceScatter thresholds: 1245184, 4980736, 39845888 bytes per IPU", "[auto]") {
  const auto RS = RingPhaseKind::ReduceScatter;
  CHECK(ladder(RS, 4, 1245183) == MITM);
  CHECK(ladder(RS, 4, 1245184) == PAIR);
  CHECK(ladder(RS, 8, 4980735) == MITM);
  CHECK(ladder(RS, 8, 4980736) == PAIR);
  CHECK(ladder(RS, 16, 39845887) == MITM);
  CHECK(ladder(RS, 16, 39845888) == PAIR);
  CHECK(ladder(RS, 32, 1000000000) == MITM);
}

TEST_CASE("rules 1-3: BarleyTwist, torus with K > 1, K > 1 or two ranks", "[auto]") {
  const auto AG = RingPhaseKind::AllGather;
  const auto RS = RingPhaseKind::ReduceScatter;
  const auto BT = LinkConfig::BarleyTwist;
  CHECK(pick_ring_method(AG, 8, 196607, 1, true, BT) == MITM);
  CHECK(pick_ring_method(AG, 8, 196608, 1, true, BT) == Algorithm::QuadDirectional);
  CHECK(pick_ring_method(RS, 8, 196608 * 8 - 1, 1, true, BT) == MITM);
  CHECK(pick_ring_method(RS, 8, 196608 * 8, 1, true, BT) == Algorithm::QuadDirectional);
  CHECK(pick_ring_method(RS, 8, 100, 2, true, LinkConfig::Default) == MITM);
  CHECK(pick_ring_method(RS, 8, 100000000, 4, false, LinkConfig::Default) == Algorithm::Clockwise);
  CHECK(ladder(RS, 2, 100000000) == Algorithm::Clockwise);
  CHECK(ladder(AG, 1, 10) == Algorithm::Clockwise);
}

TEST_CASE("select_algorithm applies the rules to whole requests", "[auto]") {
  // AllReduce picks from its ReduceScatter-phase bytes: the whole tensor, 4 ranks.
  auto ar = request(CollectiveOp::AllReduce, 4, 1245184 / 4 - 1, Algorithm::Auto);
  CHECK(select_algorithm(ar) == MITM);
  ar.elements_per_replica = 1245184 / 4;
  CHECK(select_algorithm(ar) == PAIR);
  CHECK(build_schedule(ar).algorithm == PAIR);  // the schedule records the choice
  // AllGather uses the piece it gathers: 622592 bytes of float16 = 311296 elements.
  auto ag = request(CollectiveOp::AllGather, 4, 311295, Algorithm::Auto, DType::Float16);
  CHECK(select_algorithm(ag) == MITM);
  ag.elements_per_replica = 311296;
  CHECK(select_algorithm(ag) == PAIR);
  // A group spanning two 4-IPU domains with 4 members in each runs hierarchically above the
  // small-message rule (4 MB > 1763488 B); a broadcast up to 4096 B per member (4000 B >
  // 1216 B, its direct threshold, and <= 8 x 4096 B).
  auto spanning = request(CollectiveOp::AllReduce, 8, 1000000, Algorithm::Auto);
  spanning.topology.ild_size_ipus = 4;
  CHECK(select_algorithm(spanning) == Algorithm::Hierarchical);
  spanning.op = CollectiveOp::Broadcast;
  spanning.elements_per_replica = 1000;
  CHECK(select_algorithm(spanning) == Algorithm::Hierarchical);
  // Unbalanced spanning groups fall back to a flat ring with ranks = most members per ILD
  // (1.2 MB: above the ladder's small-message threshold, 1143480 B; below GCL's 1245184 B).
  auto unbalanced = request(CollectiveOp::AllReduce, 6, 300000, Algorithm::Auto);
  unbalanced.topology.ild_size_ipus = 4;  // 4 members in ILD 0, 2 in ILD 1
  CHECK(select_algorithm(unbalanced) == MITM);
  CHECK(select_algorithm(request(CollectiveOp::AllToAll, 4, 8, Algorithm::Auto)) ==
        Algorithm::Direct);
  CHECK(select_algorithm(request(CollectiveOp::Broadcast, 4, 8, Algorithm::Auto)) ==
        Algorithm::Direct);
  // Optional direct threshold above the small-message rule: 1.2 MB of float32 on 8 ranks.
  auto big = request(CollectiveOp::AllReduce, 8, 300000, Algorithm::Auto);
  CHECK(select_algorithm(big) == MITM);
  big.direct_max_bytes = 1200000;
  CHECK(select_algorithm(big) == Algorithm::Direct);
  big.elements_per_replica = 300001;
  CHECK(select_algorithm(big) == MITM);
  // An explicit algorithm is kept.
  CHECK(select_algorithm(request(CollectiveOp::AllReduce, 8, 16, Algorithm::Anticlockwise)) ==
        Algorithm::Anticlockwise);
}

TEST_CASE("GW tier method: meet in the middle beyond two ILDs", "[auto]") {
  CHECK(pick_gw_method(2) == Algorithm::Clockwise);
  CHECK(pick_gw_method(3) == MITM);
  CHECK(pick_gw_method(64) == MITM);
}

TEST_CASE("small messages: direct (GCL's broadcast method) up to each op's threshold", "[auto]") {
  // The table of auto_select.cpp, bytes per replica (all_gather: the output), by span.
  const std::uint64_t ar[] = {1143480, 571740, 1763488};
  const std::uint64_t rs[] = {1143480, 623488, 1763488};
  const std::uint64_t ag[] = {2286960, 524288, 1763328};
  const std::uint64_t bc[] = {623488, 77936, 1216};
  const GroupSpan spans[] = {GroupSpan::Ladder, GroupSpan::Torus, GroupSpan::Domains};
  for (int i = 0; i < 3; ++i) {
    CHECK(small_message_max_bytes(CollectiveOp::AllReduce, spans[i]) == ar[i]);
    CHECK(small_message_max_bytes(CollectiveOp::ReduceScatter, spans[i]) == rs[i]);
    CHECK(small_message_max_bytes(CollectiveOp::AllGather, spans[i]) == ag[i]);
    CHECK(small_message_max_bytes(CollectiveOp::Broadcast, spans[i]) == bc[i]);
  }
  // Torus, 16 ranks: AllReduce 571740 B = 142935 float32 is direct, one more element is not
  // (GCL's rule 4: 16 ranks, 571744 B < 1245184 B: meet in the middle).
  auto r = request(CollectiveOp::AllReduce, 16, 142935, Algorithm::Auto);
  r.topology.torus = true;
  CHECK(select_algorithm(r) == Algorithm::Direct);
  r.elements_per_replica = 142936;
  CHECK(select_algorithm(r) == MITM);
  // The open ladder (no wrap) moves the threshold up: 1143480 B = 285870 float32.
  r.topology.torus = false;
  r.elements_per_replica = 285870;
  CHECK(select_algorithm(r) == Algorithm::Direct);
  r.elements_per_replica = 285871;
  CHECK(select_algorithm(r) == MITM);
  // AllGather compares its output, piece x ranks: 16 x 32768 B = 524288 B on the torus.
  auto g = request(CollectiveOp::AllGather, 16, 32768 / 4, Algorithm::Auto);
  g.topology.torus = true;
  CHECK(select_algorithm(g) == Algorithm::Direct);
  g.elements_per_replica += 1;
  CHECK(select_algorithm(g) == MITM);
  // Broadcast on the torus: up to 77936 B = 19484 float32; above, a ring from the AllGather
  // table with the piece bytes / ranks: 64 MiB over 16 ranks = 4 MiB pieces (>= 2490368 with
  // > 4 ranks, < 19922944 with > 8 ranks): meet in the middle.
  auto bc16 = request(CollectiveOp::Broadcast, 16, 19484, Algorithm::Auto);
  bc16.topology.torus = true;
  CHECK(select_algorithm(bc16) == Algorithm::Direct);
  bc16.elements_per_replica = 19485;
  CHECK(select_algorithm(bc16) == MITM);
  bc16.elements_per_replica = 16777216;
  CHECK(select_algorithm(bc16) == MITM);
  // 4 ranks on the ladder, 4 MiB: 1 MiB pieces >= 622592 B, 4 ranks: the bidirectional pair.
  CHECK(select_algorithm(request(CollectiveOp::Broadcast, 4, 1048576, Algorithm::Auto)) == PAIR);
  // Over two 4-IPU domains: AllReduce direct up to 1763488 B = 440872 float32, then
  // hierarchical; a broadcast direct up to 1216 B, hierarchical (a direct broadcast per tier)
  // up to 4096 B per member (8 members: 32768 B), then a flat ring (4 members per domain,
  // 8193-B pieces < 622592 B: meet in the middle).
  auto d = request(CollectiveOp::AllReduce, 8, 440872, Algorithm::Auto);
  d.topology.ild_size_ipus = 4;
  CHECK(select_algorithm(d) == Algorithm::Direct);
  d.elements_per_replica = 440873;
  CHECK(select_algorithm(d) == Algorithm::Hierarchical);
  d.op = CollectiveOp::Broadcast;
  d.elements_per_replica = 304;  // 1216 B
  CHECK(select_algorithm(d) == Algorithm::Direct);
  d.elements_per_replica = 305;
  CHECK(select_algorithm(d) == Algorithm::Hierarchical);
  d.elements_per_replica = 8192;  // 32768 B
  CHECK(select_algorithm(d) == Algorithm::Hierarchical);
  d.elements_per_replica = 8193;
  CHECK(select_algorithm(d) == MITM);
  // More than four domains (no crossover derived there): hierarchical at any size, as before.
  auto many = request(CollectiveOp::AllReduce, 20, 16, Algorithm::Auto);
  many.topology.ild_size_ipus = 4;  // 5 domains of 4
  CHECK(select_algorithm(many) == Algorithm::Hierarchical);
  many.op = CollectiveOp::Broadcast;
  many.elements_per_replica = 1 << 20;  // 4 MiB > 4096 B x 20 members
  CHECK(select_algorithm(many) == Algorithm::Hierarchical);
  many.groups = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}};  // 4 domains
  many.op = CollectiveOp::AllReduce;
  many.elements_per_replica = 16;
  CHECK(select_algorithm(many) == Algorithm::Direct);
  // Strided groups (orthogonal: {0, 2}, {1, 3}) never take the small-message rule.
  auto strided = request(CollectiveOp::AllReduce, 4, 16, Algorithm::Auto);
  strided.groups = {{0, 2}, {1, 3}};
  CHECK(select_algorithm(strided) == Algorithm::Clockwise);  // two ranks: GCL's rule 3
}
