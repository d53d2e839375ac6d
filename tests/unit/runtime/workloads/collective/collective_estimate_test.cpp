// Guards before work of the collective kinds
// (runtime/workloads/collective/collective_estimate.hpp): estimates worked by hand from the ring's
// closed form (2(k-1) supersteps of k transfers) and the functional check's buffers.
#include "runtime/workloads/collective/collective_estimate.hpp"

#include <catch2/catch.hpp>

#include "collectives/schedule/schedule.hpp"

using namespace ipusim;
using namespace ipusim::rt;

namespace {

/// AllReduce of `n` float32 over one group of `k` replicas (1 IPU each), clockwise ring.
coll::CollectiveRequest ring(std::uint32_t k, std::uint64_t n) {
  coll::CollectiveRequest r;
  r.op = coll::CollectiveOp::AllReduce;
  r.elements_per_replica = n;
  r.groups.resize(1);
  for (std::uint32_t i = 0; i < k; ++i) r.groups[0].push_back(i);
  r.algorithm = coll::Algorithm::Clockwise;
  return r;
}

}  // namespace

TEST_CASE("collective estimate: a clockwise ring over 16 replicas, by hand", "[runtime][guards]") {
  // Reduce-scatter then all-gather: 2 x (16 - 1) = 30 supersteps of 16 transfers each.
  const CollectivePlayCounts c = collective_play_counts(ring(16, 1600));
  CHECK(c.steps == 30);
  CHECK(c.transfers == 480);
  CHECK(c.events() == 510);

  // Functional: the whole schedule (24 B per transfer) and, per replica, input 1600 +
  // working 1600 + result 1600 + reference 1600 doubles.
  const CollectiveRunEstimate e =
      collective_run_estimate(ring(16, 1600), {coll::Algorithm::Clockwise}, 3, true);
  REQUIRE(e.functional_parts.size() == 2);
  CHECK(e.functional_parts[0].second == 480 * 24.0);
  CHECK(e.functional_parts[1].second == 8.0 * 16 * (4 * 1600));
  CHECK(e.events() == 3 * 510);  // repeat 3, no trials
}

TEST_CASE("collective estimate: AllGather output is k x n, ReduceScatter a cell",
          "[runtime][guards]") {
  coll::CollectiveRequest r = ring(4, 100);
  r.op = coll::CollectiveOp::AllGather;
  const CollectivePlayCounts c{3, 12};  // counts only size the schedule part
  // input 100 + working 400 + 2 x output 400, per replica, 4 replicas.
  CHECK(functional_memory_parts(r, c)[1].second == 8.0 * 4 * (100 + 400 + 800));
  r.op = coll::CollectiveOp::ReduceScatter;
  // input 100 + working 100 + 2 x output 25.
  CHECK(functional_memory_parts(r, c)[1].second == 8.0 * 4 * (100 + 100 + 50));
}

TEST_CASE("collective estimate: best counts every trial once and the cheapest candidate per repeat",
          "[runtime][guards]") {
  // Clockwise and anticlockwise rings have the same counts (510); direct: one superstep in
  // which each of 16 replicas sends its 15 peers' cells, then one all-gather superstep.
  const coll::CollectiveRequest r = ring(16, 1600);
  coll::CollectiveRequest d = r;
  d.algorithm = coll::Algorithm::Direct;
  const CollectivePlayCounts direct = collective_play_counts(d);
  CHECK(direct.steps == 2);
  CHECK(direct.transfers == 2 * 16 * 15);
  const CollectiveRunEstimate e = collective_run_estimate(
      r, {coll::Algorithm::Clockwise, coll::Algorithm::Anticlockwise, coll::Algorithm::Direct}, 10,
      false);
  CHECK(e.trial_events == 510 + 510 + direct.events());
  CHECK(e.played.events() == direct.events());  // 482 < 510: direct bounds the played repeats
  CHECK(e.events() == e.trial_events + 10 * direct.events());
  CHECK(e.functional_parts.empty());
}
