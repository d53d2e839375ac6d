// Hierarchical collectives over groups spanning IPU-Link domains (reference §4.7), with
// step counts and bytes worked out by hand.
#include <catch2/catch.hpp>

#include "collectives/algorithms/algorithm.hpp"
#include "request_helpers.hpp"

using namespace ipusim::coll;
using namespace ipusim::coll::test;

namespace {

/// 8 replicas, 1 IPU each, IPU-Link domains of 4 IPUs: ILD 0 = {0..3}, ILD 1 = {4..7}.
CollectiveRequest two_domains(CollectiveOp op, std::uint64_t n) {
  auto r = request(op, 8, n, Algorithm::Hierarchical);
  r.topology.ild_size_ipus = 4;
  return r;
}

std::vector<std::string> phases(const Schedule& s) {
  std::vector<std::string> p;
  for (const auto& step : s.steps) p.push_back(step.phase);
  return p;
}

bool same_ild(const Transfer& t) { return t.src_ipu / 4 == t.dst_ipu / 4; }

}  // namespace

TEST_CASE("hierarchical AllReduce: ILD reduce-scatter, GW all-reduce, ILD all-gather",
          "[hierarchical]") {
  // n = 64 floats, k = 8 cells of 8. ILD tier: 4 ranks, 256 bytes -> meet in the middle
  // (2 steps: 16 then 8 transfers), each moving a local chunk of 2 cells = 64 bytes.
  // GW tier: 2 ILDs -> clockwise, 1 reduce + 1 gather step of 1 cell = 32 bytes.
  const auto s = build_schedule(two_domains(CollectiveOp::AllReduce, 64));
  CHECK(s.algorithm == Algorithm::Hierarchical);
  CHECK(s.ild_algorithm == Algorithm::MeetInTheMiddle);
  CHECK(s.gw_algorithm == Algorithm::Clockwise);
  REQUIRE(phases(s) == std::vector<std::string>{"ild_reduce_scatter", "ild_reduce_scatter",
                                                "gw_all_reduce", "gw_all_reduce", "ild_all_gather",
                                                "ild_all_gather"});
  const std::size_t counts[] = {16, 8, 8, 8, 16, 8};
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const auto& step = s.steps[i];
    INFO("step " << i);
    CHECK(step.transfers.size() == counts[i]);
    const bool gw = step.phase == "gw_all_reduce";
    for (const auto& t : step.transfers) {
      CHECK(same_ild(t) == !gw);  // GW-Links only between members of different ILDs
      CHECK(t.bytes == (gw ? 32u : 64u));
      if (gw) CHECK(t.src_ipu % 4 == t.dst_ipu % 4);  // same local index
    }
  }
  CHECK(s.steps[2].reduce);
  CHECK_FALSE(s.steps[3].reduce);
}

TEST_CASE("hierarchical ReduceScatter keeps the PopART output layout", "[hierarchical]") {
  // Rank r must end with cell r, so the ILD tier moves cells {l, 4 + l}: two 8-float runs.
  const auto s = build_schedule(two_domains(CollectiveOp::ReduceScatter, 64));
  REQUIRE(phases(s) == std::vector<std::string>{"ild_reduce_scatter", "ild_reduce_scatter",
                                                "gw_reduce_scatter"});
  CHECK(s.steps[0].transfers.size() == 32);
  CHECK(s.steps[1].transfers.size() == 16);
  CHECK(s.steps[2].transfers.size() == 8);
  for (const auto& step : s.steps) {
    for (const auto& t : step.transfers) CHECK(t.bytes == 32);
  }
  for (const auto& t : s.steps[2].transfers) CHECK_FALSE(same_ild(t));
}

TEST_CASE("hierarchical AllGather gathers across GW-Links first", "[hierarchical]") {
  const auto s = build_schedule(two_domains(CollectiveOp::AllGather, 8));
  REQUIRE(phases(s) ==
          std::vector<std::string>{"gw_all_gather", "ild_all_gather", "ild_all_gather"});
  for (const auto& t : s.steps[0].transfers) {
    CHECK_FALSE(same_ild(t));
    CHECK(t.bytes == 32);  // one member's 8 floats
  }
}

TEST_CASE("hierarchical Broadcast: root to its GW peer, then inside each ILD", "[hierarchical]") {
  const auto s = build_schedule(two_domains(CollectiveOp::Broadcast, 10));
  REQUIRE(phases(s) == std::vector<std::string>{"gw_broadcast", "ild_broadcast"});
  CHECK(pairs(s.steps[0]) == std::set<Pair>{{0, 4}});
  CHECK(pairs(s.steps[1]) == std::set<Pair>{{0, 1}, {0, 2}, {0, 3}, {4, 5}, {4, 6}, {4, 7}});
  CHECK(s.steps[0].transfers[0].bytes == 40);
}

TEST_CASE("groups with one member per ILD only use the GW tier", "[hierarchical]") {
  auto req = two_domains(CollectiveOp::AllReduce, 16);
  req.groups = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};  // Orthogonal 2 over the two ILDs
  req.algorithm = Algorithm::Auto;
  const auto s = build_schedule(req);
  CHECK(s.algorithm == Algorithm::Hierarchical);
  REQUIRE(phases(s) == std::vector<std::string>{"gw_all_reduce", "gw_all_reduce"});
  for (const auto& step : s.steps) {
    for (const auto& t : step.transfers) CHECK_FALSE(same_ild(t));
  }
}

TEST_CASE("a Pod128 all-group runs hierarchically with 64-member ILD rings", "[hierarchical]") {
  // 2 MiB: above the small-message rule across domains (1617124 B), which would run direct.
  auto req = request(CollectiveOp::AllReduce, 128, 128 * 4096, Algorithm::Auto);
  const auto s = build_schedule(req);
  CHECK(s.algorithm == Algorithm::Hierarchical);
  CHECK(s.ild_algorithm == Algorithm::MeetInTheMiddle);  // 64 ranks per ILD: rule "> 16"
  std::size_t gw_steps = 0;
  for (const auto& step : s.steps) {
    if (step.phase != "gw_all_reduce") continue;
    ++gw_steps;
    CHECK(step.transfers.size() == 128);
    for (const auto& t : step.transfers) CHECK(t.bytes == 16384);  // 4096 floats per cell
  }
  CHECK(gw_steps == 2);
  CHECK(s.steps.size() == 32 + 2 + 32);  // 63 hops -> 32 meet-in-the-middle steps each way
}
