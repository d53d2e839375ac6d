// stream_shape against the schedule generator: two requests of the same shape and different
// sizes emit the same steps with every size in proportion to their atoms (the premise of the
// collective player's scaled plans, runtime/exec/plan_scaling.hpp), and the atoms are the
// layout's, worked by hand.
#include <catch2/catch.hpp>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "request_helpers.hpp"

using namespace ipusim::coll;
using namespace ipusim::coll::test;

namespace {

/// Every step of `b` is the step of `a` with each size times atom_b / atom_a (compared as
/// size_b * atom_a == size_a * atom_b, so nothing is rounded).
void check_proportional(const Schedule& a, std::uint64_t atom_a, const Schedule& b,
                        std::uint64_t atom_b) {
  REQUIRE(a.steps.size() == b.steps.size());
  REQUIRE(!a.steps.empty());
  for (std::size_t s = 0; s < a.steps.size(); ++s) {
    const Superstep& x = a.steps[s];
    const Superstep& y = b.steps[s];
    CHECK(x.phase == y.phase);
    CHECK(x.reduce == y.reduce);
    CHECK(x.same_traffic_as_previous == y.same_traffic_as_previous);
    CHECK(y.max_reduce_elems_per_ipu * atom_a == x.max_reduce_elems_per_ipu * atom_b);
    REQUIRE(x.transfers.size() == y.transfers.size());
    for (std::size_t t = 0; t < x.transfers.size(); ++t) {
      CHECK(x.transfers[t].src_ipu == y.transfers[t].src_ipu);
      CHECK(x.transfers[t].dst_ipu == y.transfers[t].dst_ipu);
      CHECK(y.transfers[t].bytes * atom_a == x.transfers[t].bytes * atom_b);
    }
  }
}

}  // namespace

TEST_CASE("stream shape: the atom is the layout's, by hand", "[stream_shape]") {
  // 8 replicas, one IPU each. Clockwise AllReduce of 1000 elements: cells of ceil(1000 / 8) =
  // 125 elements, one part, so atom 125. Bidirectional pair: two parts, ceil(125 / 2) = 63.
  // AllGather: a cell is the whole input (1000), so 1000. A Local reduction moves nothing: 0.
  auto cw = request(CollectiveOp::AllReduce, 8, 1000, Algorithm::Clockwise);
  const StreamShape s = stream_shape(cw);
  CHECK(s.algorithm == Algorithm::Clockwise);
  CHECK(s.atom_elems == 125);
  CHECK(stream_shape(request(CollectiveOp::AllReduce, 8, 1000, Algorithm::BidirectionalPair))
            .atom_elems == 63);
  CHECK(stream_shape(request(CollectiveOp::AllGather, 8, 1000, Algorithm::Clockwise)).atom_elems ==
        1000);
  cw.reduce = ReduceOp::Local;
  CHECK(stream_shape(cw).atom_elems == 0);
}

TEST_CASE("stream shape: same methods, other size -> the same steps, sizes in proportion",
          "[stream_shape]") {
  // Bidirectional pair AllReduce over 8 replicas: 1000 elements (atom 63, the last piece
  // padded) and 2000 (cells of 250, atom 125): every size scales by 125 / 63.
  const auto a = request(CollectiveOp::AllReduce, 8, 1000, Algorithm::BidirectionalPair);
  auto b = a;
  b.elements_per_replica = 2000;
  REQUIRE(stream_shape(a).atom_elems == 63);
  REQUIRE(stream_shape(b).atom_elems == 125);
  check_proportional(build_schedule(a), 63, build_schedule(b), 125);

  // Hierarchical ReduceScatter of groups spanning two 4-IPU domains (rank-indexed cells: the
  // fragments are runs of several cells), 800 and 2424 elements per replica.
  auto h = request(CollectiveOp::ReduceScatter, 8, 800, Algorithm::Hierarchical);
  h.topology.ild_size_ipus = 4;
  auto h2 = h;
  h2.elements_per_replica = 2424;
  const StreamShape sh = stream_shape(h), sh2 = stream_shape(h2);
  REQUIRE(sh.ild_algorithm == sh2.ild_algorithm);
  REQUIRE(sh.gw_algorithm == sh2.gw_algorithm);
  check_proportional(build_schedule(h), sh.atom_elems, build_schedule(h2), sh2.atom_elems);
}

TEST_CASE("stream shape: refuses what the generator refuses", "[stream_shape]") {
  // all_to_all needs the elements divisible by the group size (8): 1001 is not.
  const auto r = request(CollectiveOp::AllToAll, 8, 1001, Algorithm::Direct);
  CHECK_THROWS_AS(build_schedule(r), RequestError);
  CHECK_THROWS_AS(stream_shape(r), RequestError);
}
