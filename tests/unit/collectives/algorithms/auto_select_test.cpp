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
  // small-message rule (4 MB > 1482912 B). Over three such domains a broadcast is direct up to
  // 151296 B / 8 members outside the root's domain = 18912 B = 4728 float32, hierarchical
  // above it up to 4096 B per member (12 x 4096 B).
  auto spanning = request(CollectiveOp::AllReduce, 8, 1000000, Algorithm::Auto);
  spanning.topology.ild_size_ipus = 4;
  CHECK(select_algorithm(spanning) == Algorithm::Hierarchical);
  auto three = request(CollectiveOp::Broadcast, 12, 4728, Algorithm::Auto);
  three.topology.ild_size_ipus = 4;
  CHECK(select_algorithm(three) == Algorithm::Direct);
  three.elements_per_replica = 4729;
  CHECK(select_algorithm(three) == Algorithm::Hierarchical);
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
  // The tables of auto_select.cpp, bytes per replica (all_gather: the output): open ladder and
  // torus; over several domains by the number of domains (2, 4, 8, 16).
  const std::uint64_t ar[] = {1143480, 571740};
  const std::uint64_t rs[] = {1143480, 623488};
  const std::uint64_t ag[] = {2286960, 524288};
  const std::uint64_t bc[] = {623488, 77936};
  const GroupSpan spans[] = {GroupSpan::Ladder, GroupSpan::Torus};
  for (int i = 0; i < 2; ++i) {
    CHECK(small_message_max_bytes(CollectiveOp::AllReduce, spans[i], {1, 0}) == ar[i]);
    CHECK(small_message_max_bytes(CollectiveOp::ReduceScatter, spans[i], {1, 0}) == rs[i]);
    CHECK(small_message_max_bytes(CollectiveOp::AllGather, spans[i], {1, 0}) == ag[i]);
    CHECK(small_message_max_bytes(CollectiveOp::Broadcast, spans[i], {1, 0}) == bc[i]);
  }
  const std::uint32_t counts[] = {2, 4, 8, 16};
  const std::uint64_t ar_d[] = {1482912, 1923096, 1923096, 1246976};
  const std::uint64_t rs_d[] = {1482912, 1923096, 1923096, 1246976};
  const std::uint64_t ag_d[] = {1482752, 1923072, 1923072, 1245184};
  for (int i = 0; i < 4; ++i) {
    const DomainSpread d{counts[i], 64};
    CHECK(small_message_max_bytes(CollectiveOp::AllReduce, GroupSpan::Domains, d) == ar_d[i]);
    CHECK(small_message_max_bytes(CollectiveOp::ReduceScatter, GroupSpan::Domains, d) == rs_d[i]);
    CHECK(small_message_max_bytes(CollectiveOp::AllGather, GroupSpan::Domains, d) == ag_d[i]);
  }
  // Counts between take the smaller count's value, above sixteen sixteen's.
  CHECK(small_message_max_bytes(CollectiveOp::AllReduce, GroupSpan::Domains, {3, 64}) == ar_d[0]);
  CHECK(small_message_max_bytes(CollectiveOp::AllReduce, GroupSpan::Domains, {7, 64}) == ar_d[1]);
  CHECK(small_message_max_bytes(CollectiveOp::AllReduce, GroupSpan::Domains, {15, 4}) == ar_d[2]);
  CHECK(small_message_max_bytes(CollectiveOp::AllReduce, GroupSpan::Domains, {64, 4}) == ar_d[3]);
  // A broadcast: 151296 B over the members outside the root's domain: pod128 (64 of them)
  // 2364 B, pod256 (192) 788 B, 16 domains of 64 (960) 157 B, two domains of 4 (4) 37824 B.
  CHECK(small_message_max_bytes(CollectiveOp::Broadcast, GroupSpan::Domains, {2, 64}) == 2364);
  CHECK(small_message_max_bytes(CollectiveOp::Broadcast, GroupSpan::Domains, {4, 64}) == 788);
  CHECK(small_message_max_bytes(CollectiveOp::Broadcast, GroupSpan::Domains, {16, 64}) == 157);
  CHECK(small_message_max_bytes(CollectiveOp::Broadcast, GroupSpan::Domains, {2, 4}) == 37824);
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
  // Over two 4-IPU domains: AllReduce direct up to 1482912 B = 370728 float32, then
  // hierarchical; a broadcast direct up to 151296 / 4 = 37824 B = 9456 float32, above it
  // (past hierarchical's 4096 B per member, 8 members: 32768 B) a flat ring (4 members per
  // domain, 9457-B pieces < 622592 B: meet in the middle). Over 8 such domains (a group of 32)
  // a broadcast is direct up to 151296 / 28 = 5403 B = 1350 float32, then hierarchical.
  auto d = request(CollectiveOp::AllReduce, 8, 370728, Algorithm::Auto);
  d.topology.ild_size_ipus = 4;
  CHECK(select_algorithm(d) == Algorithm::Direct);
  d.elements_per_replica = 370729;
  CHECK(select_algorithm(d) == Algorithm::Hierarchical);
  d.op = CollectiveOp::Broadcast;
  d.elements_per_replica = 9456;
  CHECK(select_algorithm(d) == Algorithm::Direct);
  d.elements_per_replica = 9457;
  CHECK(select_algorithm(d) == MITM);
  auto b8 = request(CollectiveOp::Broadcast, 32, 1350, Algorithm::Auto);
  b8.topology.ild_size_ipus = 4;
  CHECK(select_algorithm(b8) == Algorithm::Direct);
  b8.elements_per_replica = 1351;
  CHECK(select_algorithm(b8) == Algorithm::Hierarchical);
  // Beyond four domains the tiered broadcast is not applied: hierarchical above direct at any
  // size (5 domains of 4: 4 MiB > 4096 B x 20 members would otherwise run a ring).
  auto many = request(CollectiveOp::Broadcast, 20, 1 << 20, Algorithm::Auto);
  many.topology.ild_size_ipus = 4;
  CHECK(select_algorithm(many) == Algorithm::Hierarchical);
  // Five domains take the four-domain AllReduce threshold: 1923096 B = 480774 float32.
  many.op = CollectiveOp::AllReduce;
  many.elements_per_replica = 480774;
  CHECK(select_algorithm(many) == Algorithm::Direct);
  many.elements_per_replica = 480775;
  CHECK(select_algorithm(many) == Algorithm::Hierarchical);
  // More than 1024 members (pod16k, pod64k): hierarchical even at 64 B.
  auto huge = request(CollectiveOp::AllReduce, 2048, 16, Algorithm::Auto);
  huge.topology.ild_size_ipus = 64;
  CHECK(select_algorithm(huge) == Algorithm::Hierarchical);
  auto pod1024 = request(CollectiveOp::AllReduce, 1024, 16, Algorithm::Auto);  // 16 domains
  pod1024.topology.ild_size_ipus = 64;
  CHECK(select_algorithm(pod1024) == Algorithm::Direct);
  // Strided groups (orthogonal: {0, 2}, {1, 3}) never take the small-message rule.
  auto strided = request(CollectiveOp::AllReduce, 4, 16, Algorithm::Auto);
  strided.groups = {{0, 2}, {1, 3}};
  CHECK(select_algorithm(strided) == Algorithm::Clockwise);  // two ranks: GCL's rule 3
}
