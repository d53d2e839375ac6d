// RTS + CBR on the models: the per-tile exchange bound of a sharded collective follows the
// layout (plain contiguous shards vs CBR), and the sharding domain sets memory and tiers.
#include "tests/component/collectives/collective_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

// 16000 elements on 4 tiles, deliberately unbalanced: 12000, 2000, 1000, 1000.
const Json kUnbalanced =
    Json::parse("[[[0,12000]],[[12000,14000]],[[14000,15000]],[[15000,16000]]]");

/// AllGather of one float16 shard per replica over 16 replicas, clockwise: 15 steps, each
/// sending one shard-sized fragment per IPU after both barriers and both set-ups (on-chip and
/// external); a step's exchange is the larger of the link time and the busiest tile's bytes at
/// the per-tile exchange rate.
double expected_all_gather_ns(const Json& r, double shard_elems, double busiest_tile_elems) {
  const double f = r["chip"]["clock_GHz"].get<double>();
  const double rate = r["chip"]["exchange_bytes_per_cycle_per_tile"].get<double>();
  const double link_ns = r["ipu_link"]["latency_ns"].get<double>() + shard_elems * 2 / rail_Bpns(r);
  const double tile_ns = std::ceil(busiest_tile_elems * 2 / rate) / f;
  // Plus the all-gather's on-chip program (collective_program.hpp): an all-gather into its
  // own output updates the output dynamically, without a copy out.
  return 15 * (external_sync_ns(r, 16) + fixed_ns(r) + cross_ipu_ns(r) +
               std::max(link_ns, tile_ns)) +
         program_ns(r, ring_phase_parts(false, 15, true, true), shard_elems, shard_elems, 2);
}

Run run_unbalanced(bool cbr) {
  return run_collective("pod16", {{"kind", "sharded_tensor"},
                                  {"elements", 16000},
                                  {"dtype", "float16"},
                                  {"sharding_domain", "all"},
                                  {"algorithm", "clockwise"},
                                  {"tile_mapping", kUnbalanced},
                                  {"cbr", cbr}});
}

}  // namespace

TEST_CASE("without CBR an unbalanced mapping pays the per-tile bound of contiguous shards",
          "[rts][cbr]") {
  const Run run = run_unbalanced(false);
  // Contiguous shards of ceil(16000/16) = 1000: replicas 0..11 lie wholly on tile 0.
  CHECK(run.results["shard_elements_per_replica"] == 1000);
  CHECK(run.results["max_tile_elements_per_shard"] == 1000);
  const Json& ag = run.results["collectives"][0];
  REQUIRE(ag["role"] == "all_gather");
  CHECK(ag["time_ns"].get<double>() ==
        Approx(expected_all_gather_ns(run.resolved, 1000, 1000)).margin(0.05));
}

TEST_CASE("with CBR the same mapping pays the balanced per-tile bound", "[rts][cbr]") {
  const Run run = run_unbalanced(true);
  // CBR pads each tile to P_i = ceil(n_i / 16): 750 + 125 + 63 + 63 = 1001 per replica.
  CHECK(run.results["shard_elements_per_replica"] == 1001);
  CHECK(run.results["max_tile_elements_per_shard"] == 750);
  const Json& ag = run.results["collectives"][0];
  CHECK(ag["time_ns"].get<double>() ==
        Approx(expected_all_gather_ns(run.resolved, 1001, 750)).margin(0.05));
  // The rearrangement into the collectives layout is one exchange phase of the busiest
  // tile's k blocks: 16 x 750 float16 elements at the per-tile rate, plus the fixed cost.
  const double f = run.resolved["chip"]["clock_GHz"].get<double>();
  const double rate = run.resolved["chip"]["exchange_bytes_per_cycle_per_tile"].get<double>();
  CHECK(run.results["rearrangement_ns"].get<double>() ==
        Approx((run.resolved["chip"]["exchange_fixed_cycles"].get<double>() +
                std::ceil(16 * 750 * 2 / rate)) /
               f)
            .margin(0.01));
}

TEST_CASE("an in-Pod sharding domain on pod256 adds an orthogonal GW-Link AllReduce", "[rts]") {
  const Run run = run_collective("pod256", {{"kind", "sharded_tensor"},
                                            {"elements", 1 << 22},
                                            {"dtype", "float16"},
                                            {"sharding_domain", "consecutive:64"}});
  const Json& c = run.results["collectives"];
  REQUIRE(c.size() == 3);
  CHECK(c[0]["role"] == "all_gather");
  CHECK(c[1]["role"] == "reduce_scatter");
  CHECK(c[2]["role"] == "orthogonal_all_reduce");
  // The orthogonal groups hold one replica per Pod64: 64 groups of 4 with stride 64.
  CHECK(c[2]["grouping"] == "ReplicaGrouping(numReplicas=256, stride=64, groupSize=4)");
  CHECK(c[0]["time_by_tier_ns"]["gw_link"].get<double>() == 0.0);
  CHECK(c[2]["time_by_tier_ns"]["gw_link"].get<double>() > 0.0);
  CHECK(c[2]["time_by_tier_ns"]["ipu_link"].get<double>() == 0.0);
  // Memory per replica: the balanced CBR shard over 64 replicas = ceil over tiles; at least
  // n / 64 elements of 2 bytes, and far below the unsharded 8 MiB.
  const double per_replica = run.memory["per_replica_bytes"].get<double>();
  CHECK(per_replica >= (1 << 22) / 64 * 2);
  CHECK(per_replica < (1 << 22) / 64 * 2 * 1.1);
}

TEST_CASE("sharding over all replicas divides per-replica memory by the replica count", "[rts]") {
  const Run run = run_collective("pod16", {{"kind", "sharded_tensor"},
                                           {"elements", 16 * 1472 * 8},
                                           {"dtype", "float32"},
                                           {"sharding_domain", "all"}});
  // Balanced over 1472 tiles, 128 elements per tile: CBR gives P_i = 8, S = 1472 x 8 = n / 16.
  CHECK(run.memory["per_replica_bytes"] == 16 * 1472 * 8 / 16 * 4);
  CHECK(run.memory["full_tensor_bytes"] == 16 * 1472 * 8 * 4);
  CHECK(run.results["collectives"].size() == 2);  // domain = all replicas: no extra AllReduce
}
