// Requests that cannot be scheduled are refused with a clear exception.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "request_helpers.hpp"

using namespace ipusim::coll;
using namespace ipusim::coll::test;

TEST_CASE("inconsistent groups are refused", "[validation]") {
  auto req = request(CollectiveOp::AllReduce, 4, 8, Algorithm::Auto);
  req.groups = {{0, 1}, {2}};
  CHECK_THROWS_WITH(build_schedule(req), Catch::Contains("same size"));
  req.groups = {{0, 1}, {1, 2}};
  CHECK_THROWS_WITH(build_schedule(req), Catch::Contains("more than one"));
  req.groups = {};
  CHECK_THROWS_AS(build_schedule(req), std::invalid_argument);
}

TEST_CASE("link configurations and methods are checked against the topology", "[validation]") {
  auto req = request(CollectiveOp::AllReduce, 8, 8, Algorithm::QuadDirectional);
  CHECK_THROWS_WITH(build_schedule(req), Catch::Contains("barley_twist"));
  req.topology.link_config = LinkConfig::BarleyTwist;
  CHECK_THROWS_WITH(build_schedule(req), Catch::Contains("torus"));
  req.topology.torus = true;
  CHECK_NOTHROW(build_schedule(req));
  req.topology.ipus_per_replica = 2;
  CHECK_THROWS_AS(build_schedule(req), std::invalid_argument);
  req.topology = {};
  req.topology.link_config = LinkConfig::SlidingWindow;
  req.topology.torus = true;
  req.topology.ipus_per_replica = 8;
  CHECK_THROWS_WITH(build_schedule(req), Catch::Contains("sliding_window"));
  req.topology = {};
  req.topology.ipus_per_replica = 3;
  CHECK_THROWS_WITH(build_schedule(req), Catch::Contains("multiple of ipus_per_replica"));
}

TEST_CASE("AllToAll needs direct and a divisible size", "[validation]") {
  CHECK_THROWS_WITH(build_schedule(request(CollectiveOp::AllToAll, 4, 8, Algorithm::Clockwise)),
                    Catch::Contains("direct"));
  CHECK_THROWS_WITH(build_schedule(request(CollectiveOp::AllToAll, 4, 6, Algorithm::Direct)),
                    Catch::Contains("divisible"));
}

TEST_CASE("hierarchical needs balanced groups", "[validation]") {
  auto req = request(CollectiveOp::AllReduce, 6, 8, Algorithm::Hierarchical);
  req.topology.ild_size_ipus = 4;  // 4 members in ILD 0, 2 in ILD 1
  CHECK_THROWS_WITH(build_schedule(req), Catch::Contains("same number of members"));
  req.algorithm = Algorithm::Auto;
  CHECK_NOTHROW(build_schedule(req));
  req.algorithm = Algorithm::Hierarchical;
  req.topology.ild_size_ipus = 3;
  req.hierarchical_gw_algorithm = Algorithm::Hierarchical;
  CHECK_THROWS_AS(build_schedule(req), std::invalid_argument);
}

TEST_CASE("working buffers beyond 32-bit offsets are refused", "[validation]") {
  CHECK_THROWS_AS(build_schedule(request(CollectiveOp::AllGather, 4, 1ull << 31, Algorithm::Auto)),
                  std::length_error);
}
