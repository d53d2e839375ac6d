// nccl-tests' reporting conventions (doc/PERFORMANCE.md) on a pod16 (16 replicas, one group):
// size = the output buffer per rank for all_gather, the input for every other op;
// algbw = size / time; busbw = algbw x 2(n-1)/n (allreduce), (n-1)/n (reduce_scatter,
// all_gather, all_to_all) or 1 (broadcast). The factors below are worked by hand for n = 16.
// One SystemC elaboration per TEST_CASE.
#include <catch2/catch.hpp>

#include "tests/component/collectives/collective_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// Runs `op` on 64 KiB of input per replica and checks the three conventions.
void check_conventions(const std::string& op, double size_per_input, double bus_factor) {
  const double input_bytes = 65536;
  const Run run =
      run_collective("pod16", {{"kind", "collective"}, {"op", op}, {"bytes", input_bytes}});
  const Json& r = run.results;
  INFO(op << ": " << r.dump());
  REQUIRE(r["group_size"] == 16);
  const double size = input_bytes * size_per_input;
  CHECK(r["size_bytes"].get<double>() == size);
  // bytes per ns = GB/s
  CHECK(r["algorithm_bandwidth_GBps"].get<double>() == Approx(size / r["time_ns"].get<double>()));
  CHECK(r["bus_bandwidth_GBps"].get<double>() ==
        Approx(size / r["time_ns"].get<double>() * bus_factor));
}

}  // namespace

TEST_CASE("nccl-tests conventions: allreduce busbw = algbw x 2(n-1)/n", "[nccl]") {
  check_conventions("allreduce", 1, 30.0 / 16.0);
}

TEST_CASE("nccl-tests conventions: reduce_scatter size = input, busbw = algbw x (n-1)/n",
          "[nccl]") {
  check_conventions("reduce_scatter", 1, 15.0 / 16.0);
}

TEST_CASE("nccl-tests conventions: all_gather size = output (16 x input), busbw = algbw x (n-1)/n",
          "[nccl]") {
  check_conventions("all_gather", 16, 15.0 / 16.0);
}

TEST_CASE("nccl-tests conventions: all_to_all busbw = algbw x (n-1)/n", "[nccl]") {
  check_conventions("all_to_all", 1, 15.0 / 16.0);
}

TEST_CASE("nccl-tests conventions: broadcast busbw = algbw", "[nccl]") {
  check_conventions("broadcast", 1, 1.0);
}
