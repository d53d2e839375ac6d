// Three-tier AllReduce on a small leaf/spine fabric, worked by hand: 8 Pod4 domains (one
// IPU-M2000 of 4 IPUs each), 4 domains per leaf, 2 leaves; one replica of 4 IPUs per domain,
// so the IPU-Link tier has one member per domain and only the leaf and spine tiers move data.
#include <catch2/catch.hpp>
#include <cmath>
#include <systemc>

#include "tests/component/collectives/collective_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

constexpr double kBytes = 64.0 * 1048576;  // S, the AllReduce's buffer per replica

/// Runs the AllReduce on the small fabric with the given leaf oversubscription.
Run run_small_fabric(double oversubscription) {
  register_sim_params();
  register_model_params();
  register_runtime_params();
  ConfigDoc doc = ConfigDoc::load_file(test::source_dir() + "/configs/systems/pod4.json");
  doc.apply_override("/system/num_ilds=8");
  doc.apply_override("/system/gw_topology=\"leaf_spine\"");
  doc.apply_override("/system/gw_leaf_ilds=4");
  doc.apply_override("/machine/gw_link/leaf_oversubscription=" + std::to_string(oversubscription));
  doc.apply_override("/workload/kind=\"collective\"");
  doc.apply_override("/workload/op=\"allreduce\"");
  doc.apply_override("/workload/bytes=" + std::to_string(static_cast<std::uint64_t>(kBytes)));
  doc.apply_override("/workload/ipus_per_replica=4");
  doc.apply_override("/workload/algorithm=\"hierarchical\"");
  auto system = build_system(doc);
  auto w = make_workload(*system, ConfigNode(doc, "").child("workload"));
  sc_core::sc_start();
  REQUIRE(w->finished());
  return {w->results(), doc.resolved(), w->total_time_ns(), w->memory()};
}

double get(const Json& r, const char* section, const char* key) {
  return r["machine"][section][key].get<double>();
}

}  // namespace

TEST_CASE("leaf/spine AllReduce: leaf rings of 4 and a spine ring of 2, by hand",
          "[oracle][leaf_spine]") {
  const Run run = run_small_fabric(2);
  const Json& r = run.resolved;
  REQUIRE(run.results["algorithm"] == "hierarchical");
  REQUIRE(run.results["gw_algorithm"] == "meet_in_the_middle");
  const Json& phases = run.results["time_by_phase_ns"];
  CHECK(phases.contains("leaf_reduce_scatter"));
  CHECK(phases.contains("spine_all_reduce"));
  CHECK(phases.contains("leaf_all_gather"));
  // Meet-in-the-middle on a ring of 4 takes 2 steps per pass (both ways, then one way), on a
  // ring of 2 one step: 2 + 1 + 1 + 2 steps; the IPU-Link tier (one member) takes none.
  CHECK(run.results["steps"] == 6);

  const double gw = get(r, "gw_link", "bandwidth_GBps_per_link") * get(r, "gw_link", "efficiency");
  const double machine_uplink = 2 * gw;       // 2 GW-Links per machine: 21.25 GB/s
  const double leaf_uplink = 4 * 2 * gw / 2;  // 4 machines' links / 2: 42.5 GB/s
  // 15.75 GB/s x the IPUs' PCIe efficiency (fitted, 0.9208: 14.50 GB/s), the slowest hop
  // after the first (the fills).
  const double ipu_gw =
      get(r, "gateway", "ipu_gateway_link_GBps") * get(r, "gateway", "ipu_gateway_link_efficiency");
  const double lat_ipu_gw = get(r, "gateway", "ipu_gateway_link_latency_ns");
  const double lat_gw = get(r, "gw_link", "latency_ns");
  const double lat_switch = get(r, "gw_link", "switch_latency_ns");
  const double chunk = get(r, "gw_link", "chunk_bytes");
  // Leaf step, both ways: each IPU sends its fragment (2 of 8 cells of S, a quarter of it per
  // IPU: S/16) to both neighbours; 4 IPUs x 2 flows share the machine's uplink. Route: IPU ->
  // gateway -> uplink -> leaf switch -> downlink -> gateway -> IPU (4 fills after the first hop).
  const double leaf_fixed = lat_ipu_gw + lat_gw + lat_switch + lat_ipu_gw + 4 * chunk / ipu_gw;
  const double leaf_both = leaf_fixed + (kBytes / 16) / (machine_uplink / 8);
  const double leaf_one = leaf_fixed + (kBytes / 16) / (machine_uplink / 4);
  // Spine step: each IPU sends one cell (S/8, S/32 per IPU) to its peer in the other leaf; the
  // 16 IPUs of a leaf share its uplink. Route adds leaf uplink (spine latency), spine downlink
  // and the far leaf switch (7 fills).
  const double spine = lat_ipu_gw + lat_gw + 3 * lat_switch + lat_ipu_gw + 7 * chunk / ipu_gw +
                       (kBytes / 32) / (leaf_uplink / 16);
  const double expected_gw_link = 2 * (leaf_both + leaf_one) + 2 * spine;
  const Json& tiers = run.results["time_by_tier_ns"];
  CHECK(tiers["ipu_link"].get<double>() == 0.0);
  CHECK(tiers["gw_link"].get<double>() == Approx(expected_gw_link).margin(0.01));
  // Every step syncs all 32 IPUs across the spine: the domain's PLTEST sync plus a round trip
  // of GW-Link + leaf, spine and leaf switch latencies, each in whole cycles, after each IPU's
  // internal barrier (150 cycles).
  const double f = r["chip"]["clock_GHz"].get<double>();
  const double sync_ns = internal_barrier_ns(r) + external_sync_ns(r, 4) +
                         std::ceil(2 * (lat_gw + 3 * lat_switch) * f - 1e-9) / f;
  CHECK(tiers["sync"].get<double>() == Approx(6 * sync_ns).margin(0.01));
}

TEST_CASE("halving the spine bandwidth slows the cross-spine AllReduce by S/85 ns per spine step",
          "[oracle][leaf_spine]") {
  // Oversubscription 2 -> 4 halves each leaf's uplink (42.5 -> 21.25 GB/s). Only the two spine
  // steps use it: each moves S/32 per IPU, 16 IPUs per uplink, so each takes
  // (S/2)(1/21.25 - 1/42.5) = S/85 ns longer (GB/s = B/ns); fills are at the route's slowest
  // hop (the gateway link, 15.75 GB/s x its efficiency) in both runs. Time is compared against the
  // same fabric's run in a child process (one SystemC elaboration per process).
  const Run slow = run_small_fabric(4);
  const Json& tiers = slow.results["time_by_tier_ns"];
  const double gw = 12.5 * 0.85;
  const double spine_fast = (kBytes / 32) / (4 * 2 * gw / 2 / 16);
  const double spine_slow = (kBytes / 32) / (4 * 2 * gw / 4 / 16);
  CHECK(spine_slow - spine_fast == Approx(kBytes / 85));
  // The slow run's GW-Link time is the fast run's hand-worked time plus 2 x S/85.
  // The latencies and chunk are the resolved parameters (the fit may move them); the
  // bandwidths above are the preset's datasheet values.
  const Json& r = slow.resolved;
  const double lat_ipu_gw = get(r, "gateway", "ipu_gateway_link_latency_ns");
  const double lat_gw = get(r, "gw_link", "latency_ns");
  const double lat_switch = get(r, "gw_link", "switch_latency_ns");
  const double chunk = get(r, "gw_link", "chunk_bytes");
  REQUIRE(get(r, "gw_link", "bandwidth_GBps_per_link") * get(r, "gw_link", "efficiency") ==
          Approx(gw));
  REQUIRE(get(r, "gateway", "ipu_gateway_link_GBps") == Approx(15.75));
  // The gateway link's usable rate: 15.75 GB/s x the IPUs' PCIe efficiency (fitted).
  const double ipu_gw = 15.75 * get(r, "gateway", "ipu_gateway_link_efficiency");
  const double leaf_fixed = lat_ipu_gw + lat_gw + lat_switch + lat_ipu_gw + 4 * chunk / ipu_gw;
  const double leaf = 2 * (leaf_fixed + (kBytes / 16) / (2 * gw / 8)) +
                      2 * (leaf_fixed + (kBytes / 16) / (2 * gw / 4));
  const double spine_fixed = lat_ipu_gw + lat_gw + 3 * lat_switch + lat_ipu_gw + 7 * chunk / ipu_gw;
  const double fast_total = leaf + 2 * (spine_fixed + spine_fast);
  CHECK(tiers["gw_link"].get<double>() == Approx(fast_total + 2 * kBytes / 85).margin(0.01));
}
