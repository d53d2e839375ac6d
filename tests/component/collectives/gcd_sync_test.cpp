// Graph compile domains and BSP sync, worked by hand: a Poplar program's external sync spans
// its whole GCD (/system/num_gcds), so a hierarchical AllReduce in one GCD over two IPU-Link
// domains syncs across the GW-Links at every superstep, also when the superstep's data stays
// on IPU-Links; with one GCD per domain those supersteps sync each domain on its own. System:
// two Pod4 domains (one IPU-M2000 of 4 IPUs each) joined by GW-Links, 8 replicas of one IPU.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <systemc>

#include "tests/component/collectives/collective_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// The sync stats a run leaves: the sync controller's (by scope) and IPU 0's.
struct SyncStats {
  Json by_scope;
  Json ipu0;
};

/// Runs a 1 MiB hierarchical AllReduce on `num_ilds` Pod4 domains in `num_gcds` GCDs; the
/// sync stats go to `stats` when non-null.
Run run_pod4s(unsigned num_ilds, unsigned num_gcds, SyncStats* stats = nullptr) {
  register_sim_params();
  register_model_params();
  register_runtime_params();
  ConfigDoc doc = ConfigDoc::load_file(test::source_dir() + "/configs/systems/pod4.json");
  doc.apply_override("/system/num_ilds=" + std::to_string(num_ilds));
  if (num_ilds > 1) doc.apply_override("/system/gw_topology=\"ring\"");
  doc.apply_override("/system/num_gcds=" + std::to_string(num_gcds));
  doc.apply_override("/workload/kind=\"collective\"");
  doc.apply_override("/workload/op=\"allreduce\"");
  doc.apply_override("/workload/bytes=1048576");
  if (num_ilds > 1) doc.apply_override("/workload/algorithm=\"hierarchical\"");
  auto system = build_system(doc);
  auto w = make_workload(*system, ConfigNode(doc, "").child("workload"));
  sc_core::sc_start();
  REQUIRE(w->finished());
  if (stats) {
    stats->by_scope = Json::object();
    stats->ipu0 = Json::object();
    system->sync_controller().collect_stats(stats->by_scope);
    system->ipu(0).collect_stats(stats->ipu0);
  }
  return {w->results(), doc.resolved(), w->total_time_ns(), w->memory()};
}

double sync_ns(const Run& run) { return run.results["time_by_tier_ns"]["sync"].get<double>(); }

}  // namespace

TEST_CASE("one GCD over two domains: every superstep syncs across the GW-Links, by hand",
          "[oracle][gcd]") {
  const Run run = run_pod4s(2, 1);
  REQUIRE(run.results["algorithm"] == "hierarchical");
  // Meet-in-the-middle on a domain ring of 4 takes 2 steps per pass, the clockwise ring of the
  // 2 domains 1: 2 (reduce-scatter) + 2 (across) + 2 (all-gather).
  REQUIRE(run.results["steps"] == 6);
  // 2,000 ns GW-Link latency at 1.325 GHz: 80 + 5,300 cycles = 4,060.38 ns per sync, after
  // each IPU's internal barrier (150 cycles = 113.21 ns; every step crosses IPUs).
  CHECK(sync_ns(run) ==
        Approx(6 * (cross_domain_sync_ns(run.resolved) + internal_barrier_ns(run.resolved)))
            .epsilon(1e-9));
}

TEST_CASE("one GCD per domain: supersteps inside domains sync each domain alone, by hand",
          "[oracle][gcd]") {
  const Run run = run_pod4s(2, 2);
  REQUIRE(run.results["steps"] == 6);
  // 4 supersteps inside the domains at 80 cycles (hops = 2) and 2 across them: 16,000 ns less
  // than with one GCD (4 x 5,300 cycles).
  // Each of the 6 also runs the internal barrier first (150 cycles).
  const double expected = 4 * external_sync_ns(run.resolved, 4) +
                          2 * cross_domain_sync_ns(run.resolved) +
                          6 * internal_barrier_ns(run.resolved);
  CHECK(sync_ns(run) == Approx(expected).epsilon(1e-9));
  CHECK(6 * (cross_domain_sync_ns(run.resolved) + internal_barrier_ns(run.resolved)) -
            sync_ns(run) ==
        Approx(16000).epsilon(1e-9));
}

TEST_CASE("one domain: num_gcds adds nothing, every superstep is a domain sync", "[oracle][gcd]") {
  const Run run = run_pod4s(1, 1);
  const double steps = run.results["steps"].get<double>();
  REQUIRE(steps > 0);
  CHECK(sync_ns(run) ==
        Approx(steps * (external_sync_ns(run.resolved, 4) + internal_barrier_ns(run.resolved)))
            .epsilon(1e-9));
}

TEST_CASE("sync stats count each superstep's sync at the scope it paid, by hand", "[oracle][gcd]") {
  // One GCD per domain: the 2 supersteps across the domains sync all 8 IPUs over the GW-Links
  // (80 + 5,300 = 5,380 cycles each); the 4 inside the domains sync each domain's GCD on its
  // own, 2 GCDs x 4 domain syncs of 80 cycles. Recording all 6 against all 8 IPUs (as before)
  // would claim 6 GW-Link syncs of 32,280 cycles that the collective never paid.
  SyncStats stats;
  run_pod4s(2, 2, &stats);
  CHECK(stats.by_scope["gw_link"]["syncs"] == 2);
  CHECK(stats.by_scope["gw_link"]["cycles"] == 2 * 5380);
  CHECK(stats.by_scope["external"]["syncs"] == 2 * 4);
  CHECK(stats.by_scope["external"]["cycles"] == 2 * 4 * 80);
  // IPU 0 takes part in all 6: 2 x 5,380 + 4 x 80 = 11,080 cycles.
  CHECK(stats.ipu0["syncs"] == 6);
  CHECK(stats.ipu0["sync_cycles"] == 11080);
}

TEST_CASE("sync stats with one GCD over two domains: every superstep across the GW-Links",
          "[oracle][gcd]") {
  SyncStats stats;
  run_pod4s(2, 1, &stats);
  CHECK(stats.by_scope["gw_link"]["syncs"] == 6);
  CHECK(stats.by_scope["gw_link"]["cycles"] == 6 * 5380);
  CHECK_FALSE(stats.by_scope.contains("external"));
  CHECK(stats.ipu0["sync_cycles"] == 6 * 5380);
}
