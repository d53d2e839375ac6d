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

TEST_CASE("nccl-tests size: all_gather counts its output, every other op its input",
          "[bandwidth]") {
  // 16 members each gathering 64 KiB: the output buffer is 1 MiB (nccl-tests' "size").
  CHECK(nccl_size_bytes(CollectiveOp::AllGather, 65536, 16) == 1048576);
  // ReduceScatter's input is the whole tensor; nccl-tests counts it (sendcount x nranks).
  CHECK(nccl_size_bytes(CollectiveOp::ReduceScatter, 1048576, 16) == 1048576);
  CHECK(nccl_size_bytes(CollectiveOp::AllReduce, 4096, 64) == 4096);
  CHECK(nccl_size_bytes(CollectiveOp::AllToAll, 4096, 64) == 4096);
  CHECK(nccl_size_bytes(CollectiveOp::Broadcast, 4096, 64) == 4096);
  // Pod16 all_gather of 64 KiB per replica in 20 us: algbw 1 MiB / 20 us = 52.4288 GB/s,
  // busbw x 15/16 = 49.152 GB/s.
  const double algbw =
      algorithm_bandwidth(nccl_size_bytes(CollectiveOp::AllGather, 65536, 16), 20e-6);
  CHECK(algbw == Approx(52.4288e9));
  CHECK(bus_bandwidth(CollectiveOp::AllGather, algbw, 16) == Approx(49.152e9));
}
