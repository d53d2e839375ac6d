// The cross-domain part of a hierarchical gradient reduction, worked by hand: a ReduceScatter
// over Orthogonal 2 (the replica pairs {r, r + 4}, one replica in each IPU-Link domain) on two
// Pod4 domains (one IPU-M2000 each) joined by GW-Links, one GCD per domain (as BERT POD128's
// `--num-gcds 2`). PopART 2.3 runs the complementary gradient AllReduce of a consecutive
// sharding domain over such a group (docs/cross_domain_collectives.md); its reduce-scatter half
// is one ring step: every IPU sends half of its data to its partner across the GW-Links.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "tests/component/collectives/collective_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

constexpr double kBytes = 4194304;  // 4 MiB of float32 per replica

/// The reduce-scatter on two Pod4 domains with `gw_links` GW-Links per machine.
Run run_on_two_domains(unsigned gw_links) {
  register_sim_params();
  register_model_params();
  register_runtime_params();
  ConfigDoc doc = ConfigDoc::load_file(test::source_dir() + "/configs/systems/pod4.json");
  doc.apply_override("/system/num_ilds=2");
  doc.apply_override("/system/gw_topology=\"ring\"");
  doc.apply_override("/system/num_gcds=2");
  doc.apply_override("/machine/gw_link/links_per_machine=" + std::to_string(gw_links));
  doc.apply_override("/workload/kind=\"collective\"");
  doc.apply_override("/workload/op=\"reduce_scatter\"");
  doc.apply_override("/workload/bytes=" + std::to_string(static_cast<long>(kBytes)));
  doc.apply_override("/workload/comm_group=\"orthogonal:2\"");
  auto system = build_system(doc);
  auto w = make_workload(*system, ConfigNode(doc, "").child("workload"));
  sc_core::sc_start();
  REQUIRE(w->finished());
  return {w->results(), doc.resolved(), w->total_time_ns(), w->memory()};
}

/// Bytes per ns of one IPU's PCIe link to its gateway (the first and last hop of GW traffic).
double gateway_link_Bpns(const Json& r) {
  const auto& g = r["machine"]["gateway"];
  return g["ipu_gateway_link_GBps"].get<double>() * g["ipu_gateway_link_efficiency"].get<double>();
}

/// Bytes per ns of one GW-Link in one direction.
double gw_link_Bpns(const Json& r) {
  const auto& l = r["machine"]["gw_link"];
  return l["bandwidth_GBps_per_link"].get<double>() * l["efficiency"].get<double>();
}

}  // namespace

TEST_CASE("cross-domain pair reduce-scatter: 4 IPUs share their machine's 2 GW-Links, by hand",
          "[oracle][gcd][gw]") {
  const Run run = run_on_two_domains(2);
  const Json& r = run.resolved;
  REQUIRE(run.results["grouping"] == "ReplicaGrouping(numReplicas=8, stride=4, groupSize=2)");
  REQUIRE(run.results["steps"] == 1);
  REQUIRE(run.results["transfers"] == 8);
  // Each IPU sends half its data (2 MiB) to its partner in the other domain; the 4 IPUs of a
  // machine send at once through its 2 GW-Links at 12.5 x 0.85 = 10.625 B/ns each:
  // 4 x 2,097,152 / 21.25 = 394,758.02 ns, plus one GW-Link latency (2,000 ns) and one 256-B
  // chunk on the sending and on the receiving IPU-Gateway link (2 x 256 / 14.50 = 35.30 ns):
  // 396,793.33 ns.
  const double chunk = r["machine"]["gw_link"]["chunk_bytes"].get<double>();
  const double gw = r["machine"]["gw_link"]["latency_ns"].get<double>() +
                    4 * (kBytes / 2) / (2 * gw_link_Bpns(r)) + 2 * chunk / gateway_link_Bpns(r);
  // Simulated time is kept in picoseconds: a margin of a few ps.
  CHECK(run.results["time_by_tier_ns"]["gw_link"].get<double>() == Approx(gw).margin(0.005));
  CHECK(run.results["time_by_tier_ns"]["ipu_link"].get<double>() == 0);
  // One superstep, across the GW-Links: sync (after each IPU's internal barrier), the fixed
  // exchange cost and the external set-up, the transfer, then one reduction of the 524,288
  // received float32 elements; plus the step's on-chip program (a fragment of 524,288 float32,
  // 357 per tile > 96: a Switch, not a dynamic slice).
  const double program =
      program_ns(r, ring_phase_parts(true, 1, false), kBytes / 2 / 4, kBytes / 4, 4);
  const double expected = cross_domain_sync_ns(r) + fixed_ns(r) + cross_ipu_ns(r) + gw +
                          reduce_ns(r, kBytes / 2 / 4) + program;
  CHECK(run.total_ns == Approx(expected).margin(0.005));
}

TEST_CASE(
    "cross-domain pair reduce-scatter without GW-Link contention: each IPU's gateway link "
    "bounds it, by hand",
    "[oracle][gcd][gw]") {
  // 16 GW-Links per machine (170 B/ns) carry the 4 x 2 MiB in 49,344 ns; each IPU's own link
  // to the gateway (14.50 B/ns) needs 2,097,152 / 14.50 = 144,604 ns: that bounds the step.
  const Run run = run_on_two_domains(16);
  const Json& r = run.resolved;
  REQUIRE(4 * (kBytes / 2) / (16 * gw_link_Bpns(r)) < (kBytes / 2) / gateway_link_Bpns(r));
  const double gw =
      r["machine"]["gw_link"]["latency_ns"].get<double>() + (kBytes / 2) / gateway_link_Bpns(r);
  // Within the pipeline fill of a few 256-B chunks (tens of ns of 146,604).
  CHECK(run.results["time_by_tier_ns"]["gw_link"].get<double>() == Approx(gw).epsilon(1e-3));
  CHECK(run.results["time_by_tier_ns"]["gw_link"].get<double>() >= gw);
}
