// Superstep::same_traffic_as_previous and timing-only streaming: a step is marked only when its
// (src, dst, bytes) sequence really equals the previous step's, ring phases are marked where
// hand-worked, and StepDetail::TimingOnly streams the same schedule with those steps' transfers
// left out (counted in elided_transfers).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "request_helpers.hpp"

using namespace ipusim::coll;
using namespace ipusim::coll::test;

namespace {

/// The step's traffic as a comparable sequence (offsets left out).
std::vector<std::uint64_t> traffic(const Superstep& step) {
  std::vector<std::uint64_t> t;
  for (const auto& x : step.transfers) {
    t.push_back(x.src_ipu);
    t.push_back(x.dst_ipu);
    t.push_back(x.bytes);
  }
  return t;
}

/// Requests over several algorithms, ops, IPUs per replica and group structures.
std::vector<CollectiveRequest> cases() {
  std::vector<CollectiveRequest> out;
  for (Algorithm a : {Algorithm::Clockwise, Algorithm::Anticlockwise, Algorithm::BidirectionalPair,
                      Algorithm::MeetInTheMiddle, Algorithm::Direct}) {
    for (CollectiveOp op : {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter,
                            CollectiveOp::AllGather, CollectiveOp::Broadcast}) {
      out.push_back(request(op, 8, 100, a));
    }
  }
  auto two_ipus = request(CollectiveOp::AllReduce, 8, 1000, Algorithm::Clockwise);
  two_ipus.topology.ipus_per_replica = 2;
  two_ipus.topology.ild_size_ipus = 16;
  out.push_back(two_ipus);
  auto grouped = request(CollectiveOp::AllReduce, 16, 77, Algorithm::BidirectionalPair);
  grouped.groups = consecutive(16, 4);
  out.push_back(grouped);
  for (CollectiveOp op :
       {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather}) {
    auto h = request(op, 8, 64, Algorithm::Hierarchical);  // ILDs of 4: two tiers
    h.topology.ild_size_ipus = 4;
    out.push_back(h);
    auto h2 = request(op, 16, 1001, Algorithm::Hierarchical);  // uneven cells
    h2.topology.ild_size_ipus = 4;
    out.push_back(h2);
  }
  return out;
}

}  // namespace

TEST_CASE("a step marked as repeating the previous step's traffic does", "[repeat]") {
  int marked = 0;
  for (const auto& req : cases()) {
    const Schedule s = build_schedule(req);
    INFO(to_string(req.op) << " " << to_string(s.algorithm));
    REQUIRE_FALSE(s.steps.empty());
    CHECK_FALSE(s.steps.front().same_traffic_as_previous);
    for (std::size_t i = 1; i < s.steps.size(); ++i) {
      const Superstep& step = s.steps[i];
      CHECK(step.elided_transfers == 0);  // stored schedules are complete
      if (!step.same_traffic_as_previous) continue;
      ++marked;
      INFO("step " << i);
      CHECK(traffic(step) == traffic(s.steps[i - 1]));
      CHECK(step.phase == s.steps[i - 1].phase);
      CHECK(step.reduce == s.steps[i - 1].reduce);
      CHECK(step.max_reduce_elems_per_ipu == s.steps[i - 1].max_reduce_elems_per_ipu);
    }
  }
  CHECK(marked > 100);  // the marks are there to be checked
}

TEST_CASE("ring phases are marked after their first step, until a lane ends", "[repeat]") {
  // Clockwise AllReduce over 8: two phases of 7 steps; steps 2..7 of each repeat.
  const Schedule cw =
      build_schedule(request(CollectiveOp::AllReduce, 8, 800, Algorithm::Clockwise));
  REQUIRE(cw.steps.size() == 14);
  for (std::size_t i = 0; i < 14; ++i) {
    INFO("step " << i);
    CHECK(cw.steps[i].same_traffic_as_previous == (i % 7 != 0));
  }
  // Meet in the middle over 8: lanes of 4 and 3 steps per phase. Step 4 runs one lane only,
  // so only steps 2 and 3 repeat their predecessor.
  const Schedule mim =
      build_schedule(request(CollectiveOp::AllReduce, 8, 800, Algorithm::MeetInTheMiddle));
  REQUIRE(mim.steps.size() == 8);
  const bool want[] = {false, true, true, false, false, true, true, false};
  for (std::size_t i = 0; i < 8; ++i) {
    INFO("step " << i);
    CHECK(mim.steps[i].same_traffic_as_previous == want[i]);
  }
}

TEST_CASE("timing-only streaming leaves out exactly the repeated steps' transfers", "[repeat]") {
  for (const auto& req : cases()) {
    const Schedule stored = build_schedule(req);
    std::vector<Superstep> streamed;
    const Schedule header = generate_schedule(
        req, [&](const Superstep& s) { streamed.push_back(s); }, StepDetail::TimingOnly);
    INFO(to_string(req.op) << " " << to_string(stored.algorithm));
    CHECK(header.num_steps == stored.num_steps);
    CHECK(header.num_transfers == stored.num_transfers);
    REQUIRE(streamed.size() == stored.steps.size());
    std::uint64_t elided = 0;
    for (std::size_t i = 0; i < streamed.size(); ++i) {
      const Superstep& a = streamed[i];
      const Superstep& b = stored.steps[i];
      INFO("step " << i);
      CHECK(a.same_traffic_as_previous == b.same_traffic_as_previous);
      CHECK(a.phase == b.phase);
      CHECK(a.reduce == b.reduce);
      CHECK(a.max_reduce_elems_per_ipu == b.max_reduce_elems_per_ipu);
      CHECK(a.transfers.size() + a.elided_transfers == b.transfers.size());
      if (a.same_traffic_as_previous) {
        CHECK(a.transfers.empty());
        elided += a.elided_transfers;
      } else {
        CHECK(traffic(a) == traffic(b));
      }
    }
    if (stored.steps.size() > 2 && stored.algorithm == Algorithm::Clockwise) CHECK(elided > 0);
  }
}
