// Timing oracles for collectives played on the models: closed forms computed from the
// resolved parameters (one SystemC elaboration per TEST_CASE).
#include <catch2/catch.hpp>
#include <cmath>
#include <systemc>

#include "models/params/model_params.hpp"
#include "models/system/system.hpp"
#include "runtime/workloads/runtime_params.hpp"
#include "runtime/workloads/workload.hpp"
#include "sim/output.hpp"
#include "tests/component/collectives/collective_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

TEST_CASE(
    "ring AllReduce on a uniform ring follows 2(N-1)(alpha + both barriers + set-ups + S/(N B)) "
    "plus reductions",
    "[oracle]") {
  const double bytes = 1 << 20;
  const Run run = run_collective(
      "pod16",
      {{"kind", "collective"}, {"op", "allreduce"}, {"bytes", bytes}, {"algorithm", "clockwise"}});
  const Json& r = run.resolved;
  const unsigned n = 16;
  const double alpha = r["ipu_link"]["latency_ns"].get<double>();
  const double step =
      alpha + external_sync_ns(r, n) + fixed_ns(r) + cross_ipu_ns(r) + (bytes / n) / rail_Bpns(r);
  // Plus the on-chip program of both phases (collective_program.hpp): fragments of 16,384
  // float32, 12 per tile (<= 96: dynamic slices), 15 steps per phase.
  const double expected = 2 * (n - 1) * step + (n - 1) * reduce_ns(r, bytes / 4 / n) +
                          allreduce_program_ns(r, n - 1, bytes / 4 / n, bytes / 4);
  CHECK(run.results["algorithm"] == "clockwise");
  CHECK(run.results["steps"] == 2 * (n - 1));
  // Within a picosecond of rounding per step.
  CHECK(run.total_ns == Approx(expected).margin(2 * (n - 1) * 0.002));
}

TEST_CASE("the bidirectional ring pair halves the bandwidth term", "[oracle]") {
  const double bytes = 1 << 22;
  const Run run = run_collective("pod16", {{"kind", "collective"},
                                           {"op", "allreduce"},
                                           {"bytes", bytes},
                                           {"algorithm", "bidirectional_pair"}});
  const Json& r = run.resolved;
  const unsigned n = 16;
  const double alpha = r["ipu_link"]["latency_ns"].get<double>();
  const double step = alpha + external_sync_ns(r, n) + fixed_ns(r) + cross_ipu_ns(r) +
                      (bytes / (2 * n)) / rail_Bpns(r);
  // The model charges one direction's program per superstep, its fragment the largest
  // transfer, a half fragment of 32,768 float32 (23 per tile: dynamic slices); poplibs'
  // bidirectional loop body runs both directions' index ops and slices (not modelled).
  const double expected = 2 * (n - 1) * step + (n - 1) * reduce_ns(r, bytes / 4 / n) +
                          allreduce_program_ns(r, n - 1, bytes / 4 / (2 * n), bytes / 4);
  CHECK(run.results["steps"] == 2 * (n - 1));
  CHECK(run.total_ns == Approx(expected).margin(2 * (n - 1) * 0.002));
}

TEST_CASE("ReduceScatter and AllGather rings each take half an AllReduce's steps", "[oracle]") {
  const double bytes = 1 << 20;
  const Run run = run_collective("pod16", {{"kind", "collective"},
                                           {"op", "reduce_scatter"},
                                           {"bytes", bytes},
                                           {"algorithm", "clockwise"}});
  const Json& r = run.resolved;
  const unsigned n = 16;
  const double step = r["ipu_link"]["latency_ns"].get<double>() + external_sync_ns(r, n) +
                      fixed_ns(r) + cross_ipu_ns(r) + (bytes / n) / rail_Bpns(r);
  // Plus the reduce-scatter's program: 15 steps, fragments of 16,384 float32 (dynamic slices).
  const double expected =
      (n - 1) * step + (n - 1) * reduce_ns(r, bytes / 4 / n) +
      program_ns(r, ring_phase_parts(true, n - 1, true), bytes / 4 / n, bytes / 4, 4);
  CHECK(run.results["steps"] == n - 1);
  CHECK(run.total_ns == Approx(expected).margin((n - 1) * 0.002));
  // GCL's bus-bandwidth convention: bus = algorithm x (n-1)/n for a reduce-scatter.
  CHECK(run.results["bus_bandwidth_GBps"].get<double>() ==
        Approx(run.results["algorithm_bandwidth_GBps"].get<double>() * (n - 1) / n));
  CHECK(run.results["algorithm_bandwidth_GBps"].get<double>() == Approx(bytes / run.total_ns));
}

TEST_CASE("a hierarchical AllReduce on pod128 is the sum of its three phases", "[oracle]") {
  const Run run = run_collective("pod128", {{"kind", "collective"},
                                            {"op", "allreduce"},
                                            {"bytes", 1 << 20},
                                            {"algorithm", "hierarchical"}});
  CHECK(run.results["algorithm"] == "hierarchical");
  const Json& phases = run.results["time_by_phase_ns"];
  REQUIRE(phases.contains("ild_reduce_scatter"));
  REQUIRE(phases.contains("gw_all_reduce"));
  REQUIRE(phases.contains("ild_all_gather"));
  CHECK(phases.size() == 3);
  double sum = 0;
  for (const auto& [name, ns] : phases.items()) {
    CHECK(ns.get<double>() > 0);
    sum += ns.get<double>();
  }
  CHECK(sum == Approx(run.total_ns).epsilon(1e-12));
  // Only the GW phase crosses GW-Links, and it pays at least the GW-Link latency per step.
  const Json& tiers = run.results["time_by_tier_ns"];
  CHECK(tiers["gw_link"].get<double>() >=
        run.resolved["machine"]["gw_link"]["latency_ns"].get<double>());
  CHECK(tiers["ipu_link"].get<double>() > 0);
}
