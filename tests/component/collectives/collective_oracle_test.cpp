// Timing oracles for collectives played on the models: closed forms computed from the
// resolved parameters (one SystemC elaboration per TEST_CASE).
#include <catch2/catch.hpp>
#include <cmath>
#include <systemc>

#include "models/model_params.hpp"
#include "models/system.hpp"
#include "runtime/runtime_params.hpp"
#include "runtime/workload.hpp"
#include "sim/output.hpp"
#include "tests/component/models/model_fixture.hpp"

using namespace ipusim;

namespace {

struct Run {
  Json results;
  Json resolved;
  double total_ns = 0;
};

/// Simulates `workload` on a system preset and returns the collective's results.
Run run_collective(const std::string& preset, const Json& workload) {
  register_sim_params();
  register_model_params();
  register_runtime_params();
  ConfigDoc doc = ConfigDoc::load_file(test::source_dir() + "/configs/systems/" + preset + ".json");
  for (auto it = workload.begin(); it != workload.end(); ++it)
    doc.apply_override("/workload/" + it.key() + "=" + it.value().dump());
  auto system = build_system(doc);
  auto w = make_workload(*system, ConfigNode(doc, "").child("workload"));
  sc_core::sc_start();
  REQUIRE(w->finished());
  return {w->results(), doc.resolved(), w->total_time_ns()};
}

/// PLTEST global sync: ceil(15 ns x f x hops x 2), hops = 1 + floor(n / 4).
double external_sync_ns(const Json& resolved, unsigned n) {
  const double f = resolved["chip"]["clock_GHz"].get<double>();
  const double hops = 1 + n / 4;
  return std::ceil(resolved["system"]["sync_ns_per_hop"].get<double>() * f * hops * 2 - 1e-9) / f;
}

/// Bytes per ns of one rail bundle (up/down links) in one direction.
double rail_Bpns(const Json& r) {
  const auto& l = r["ipu_link"];
  return l["up_links"].get<double>() * l["bandwidth_Gbps_per_link"].get<double>() / 8.0 * l["efficiency"].get<double>();
}

/// One on-tile reduction of `elems` float32 elements per IPU, balanced over all tiles: a
/// vector-unit op of one flop per element that reads two and writes one element, bounded by
/// the vector rate or the memory rate, plus the per-vertex overhead.
double reduce_ns(const Json& r, double elems) {
  const auto& c = r["chip"];
  const double tiles = c["tiles"].get<double>();
  const double eff = c["compute_efficiency"].get<double>();
  const double by_flops = elems / tiles / (c["vector_flops_per_cycle_per_tile"]["float32"].get<double>() * eff);
  const double by_bytes = std::ceil(elems * 12 / tiles) / (c["memory_bytes_per_cycle_per_tile"].get<double>() * eff);
  const double cycles = std::ceil(std::max(by_flops, by_bytes) - 1e-9) + c["vertex_overhead_cycles"].get<double>();
  return cycles / c["clock_GHz"].get<double>();
}

double fixed_ns(const Json& r) {
  return r["chip"]["exchange_fixed_cycles"].get<double>() / r["chip"]["clock_GHz"].get<double>();
}

}  // namespace

TEST_CASE("ring AllReduce on a uniform ring follows 2(N-1)(alpha + sync + S/(N B)) plus reductions", "[oracle]") {
  const double bytes = 1 << 20;
  const Run run = run_collective("pod16", {{"kind", "collective"}, {"op", "allreduce"}, {"bytes", bytes},
                                           {"algorithm", "clockwise"}});
  const Json& r = run.resolved;
  const unsigned n = 16;
  const double alpha = r["ipu_link"]["latency_ns"].get<double>();
  const double step = alpha + external_sync_ns(r, n) + fixed_ns(r) + (bytes / n) / rail_Bpns(r);
  const double expected = 2 * (n - 1) * step + (n - 1) * reduce_ns(r, bytes / 4 / n);
  CHECK(run.results["algorithm"] == "clockwise");
  CHECK(run.results["steps"] == 2 * (n - 1));
  // Within a picosecond of rounding per step.
  CHECK(run.total_ns == Approx(expected).margin(2 * (n - 1) * 0.002));
}

TEST_CASE("the bidirectional ring pair halves the bandwidth term", "[oracle]") {
  const double bytes = 1 << 22;
  const Run run = run_collective("pod16", {{"kind", "collective"}, {"op", "allreduce"}, {"bytes", bytes},
                                           {"algorithm", "bidirectional_pair"}});
  const Json& r = run.resolved;
  const unsigned n = 16;
  const double alpha = r["ipu_link"]["latency_ns"].get<double>();
  const double step = alpha + external_sync_ns(r, n) + fixed_ns(r) + (bytes / (2 * n)) / rail_Bpns(r);
  const double expected = 2 * (n - 1) * step + (n - 1) * reduce_ns(r, bytes / 4 / n);
  CHECK(run.results["steps"] == 2 * (n - 1));
  CHECK(run.total_ns == Approx(expected).margin(2 * (n - 1) * 0.002));
}

TEST_CASE("ReduceScatter and AllGather rings each take half an AllReduce's steps", "[oracle]") {
  const double bytes = 1 << 20;
  const Run run = run_collective("pod16", {{"kind", "collective"}, {"op", "reduce_scatter"}, {"bytes", bytes},
                                           {"algorithm", "clockwise"}});
  const Json& r = run.resolved;
  const unsigned n = 16;
  const double step = r["ipu_link"]["latency_ns"].get<double>() + external_sync_ns(r, n) + fixed_ns(r) +
                      (bytes / n) / rail_Bpns(r);
  const double expected = (n - 1) * step + (n - 1) * reduce_ns(r, bytes / 4 / n);
  CHECK(run.results["steps"] == n - 1);
  CHECK(run.total_ns == Approx(expected).margin((n - 1) * 0.002));
  // GCL's bus-bandwidth convention: bus = algorithm x (n-1)/n for a reduce-scatter.
  CHECK(run.results["bus_bandwidth_GBps"].get<double>() ==
        Approx(run.results["algorithm_bandwidth_GBps"].get<double>() * (n - 1) / n));
  CHECK(run.results["algorithm_bandwidth_GBps"].get<double>() == Approx(bytes / run.total_ns));
}

TEST_CASE("a hierarchical AllReduce on pod128 is the sum of its three phases", "[oracle]") {
  const Run run = run_collective("pod128", {{"kind", "collective"}, {"op", "allreduce"}, {"bytes", 1 << 20},
                                            {"algorithm", "auto"}});
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
  CHECK(tiers["gw_link"].get<double>() >= run.resolved["machine"]["gw_link"]["latency_ns"].get<double>());
  CHECK(tiers["ipu_link"].get<double>() > 0);
}
