// Bandwidth reporting convention (reference §5).
#include <catch2/catch.hpp>

#include <stdexcept>

#include "collectives/algorithms/algorithm_bandwidth.hpp"

using namespace ipusim::coll;

TEST_CASE("algorithm bandwidth is bytes per IPU over time", "[bandwidth]") {
  CHECK(algorithm_bandwidth(1000000, 0.001) == Approx(1e9));
  CHECK_THROWS_AS(algorithm_bandwidth(1, 0.0), std::invalid_argument);
}

TEST_CASE("bus bandwidth factors: (n-1)/n for gather/scatter, 2(n-1)/n for all-reduce",
          "[bandwidth]") {
  CHECK(bus_bandwidth(CollectiveOp::AllReduce, 1e9, 8) == Approx(1.75e9));
  CHECK(bus_bandwidth(CollectiveOp::AllGather, 1e9, 8) == Approx(0.875e9));
  CHECK(bus_bandwidth(CollectiveOp::ReduceScatter, 1e9, 4) == Approx(0.75e9));
  CHECK(bus_bandwidth(CollectiveOp::AllToAll, 1e9, 2) == Approx(0.5e9));
  CHECK(bus_bandwidth(CollectiveOp::Broadcast, 1e9, 16) == Approx(1e9));
  CHECK(bus_bandwidth(CollectiveOp::AllReduce, 1e9, 1) == Approx(0.0));
}
