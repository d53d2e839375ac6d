// The reduce microbenchmark step as popops::reduce runs it (models/ipu/reduce_plan.hpp): its
// stages, each a superstep of sync, exchange and the reducing tiles' vertices (poplibs'
// estimates, models/ipu/popops_vertices.hpp), against hand-worked closed forms: two stages on
// one IPU, and the same over two IPUs, where one tile's port and the link take the other IPU's
// partials (contention).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/component/models/model_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// A reduce of one float32 per tile over `tiles` tiles of `ipus` on pod4 (GC200: 1472 tiles in
/// 16 columns of 92), the exchange's fixed cost 20 cycles and its flight 7.5 cycles a column,
/// one IPU-Link port group and 4 B/cycle off-chip ports; `per_compute_set` sets
/// /chip/compute/op_overhead_per to compute_set.
ConfigDoc reduce_doc(const Json& ipus, int tiles, bool per_compute_set = false) {
  Json extra = workload(Json::array({{{"kind", "tile_traffic"},
                                      {"traffic", "reduce"},
                                      {"ipus", ipus},
                                      {"tiles", tiles},
                                      {"dtype", "float32"},
                                      {"bytes_per_tile", 4}}}));
  extra["chip"] = {{"exchange_fixed_cycles", 20},
                   {"exchange_cycles_per_column", 7.5},
                   {"external_exchange_bytes_per_cycle_per_tile", 4.0},
                   {"external_port_groups", 1}};
  if (per_compute_set) extra["chip"]["compute"] = {{"op_overhead_per", "compute_set"}};
  return preset_config("pod4", extra);
}

/// The ReduceAdd vertex with one output (poplibs getCyclesEstimateForSingleInput, FP32) on 6
/// workers: 6 x (3 + 6 + 2 floor(n / 4) + 5 + n mod 4 + 3).
double vertex(double n) { return 6 * (17 + 2 * std::floor(n / 4) + std::fmod(n, 4)); }

}  // namespace

TEST_CASE("reduce over 128 tiles: two stages, 128 -> 2 -> 1, by hand",
          "[microbenchmark][tile_traffic][reduce]") {
  ConfigDoc doc = reduce_doc(1, 128);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  REQUIRE(resolved(doc, "/chip/sync_internal_cycles") == 150);
  REQUIRE(resolved(doc, "/chip/worker_threads") == 6);
  REQUIRE(resolved(doc, "/chip/exchange_bytes_per_cycle_per_tile") == 4);
  // popops::reduce: 128 partials > 32, an intermediate stage: N = 128 / 64 = 2 groups of 64
  // rows on tiles 0 and 1; then 2 partials, the output stage on tile 0.
  CHECK(vertex(64) == 294);  // 6 x (17 + 32 + 0)
  CHECK(vertex(2) == 114);   // 6 x (17 + 0 + 2)
  // Stage 1: sync 150; tile 1 receives tiles 64..127's 256 B = 64 cycles (tile 0 receives
  // 63 x 4 B), the farthest word from column 1 (tiles 92..127) to column 0: ceil(7.5) + 1 = 9;
  // phase 20 + 64 = 84; vertices of 64 partials 294. 150 + 84 + 294 = 528.
  // Stage 2: sync 150; tile 1's 4 B to tile 0 (same column: flight 1): 20 + 1 = 21; vertex of
  // 2 partials 114. 150 + 21 + 114 = 285.
  // Then the op overhead once: the reduce is one poplibs op (scalar_reduction_cycles() charges
  // a training step's reduction to a scalar the same).
  const double op = resolved(doc, "/chip/compute/op_overhead_cycles");
  REQUIRE(op > 0);
  const double cycles = 528 + 285 + op;
  CHECK(b.step(0)["op_overhead_ns"].get<double>() == Approx(op * cycle_ns(doc)));
  CHECK(b.duration(0) == Approx(cycles * cycle_ns(doc)));
  CHECK(b.step(0)["reduce_ns"].get<double>() == Approx((294 + 114) * cycle_ns(doc)));
  CHECK(b.step(0)["exchange_ns"].get<double>() == Approx((84 + 21) * cycle_ns(doc)));
  const Json stages = b.step(0)["reduce_stages"];
  REQUIRE(stages.size() == 2);
  CHECK(stages[0]["reducing_tiles"] == 2);
  CHECK(stages[0]["partials"] == 64);
  CHECK(stages[1]["reducing_tiles"] == 1);
  CHECK(stages[1]["partials"] == 2);
  // 127 messages in the first stage (tile 0 keeps its own), 1 in the second.
  CHECK(b.step(0)["messages_per_repeat"] == 128);
}

TEST_CASE("reduce over 2 IPUs: one tile's port and the link take the other IPU's partials",
          "[microbenchmark][tile_traffic][reduce][contention]") {
  ConfigDoc doc = reduce_doc(Json::array({0, 1}), 64);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  REQUIRE(resolved(doc, "/ipu_link/efficiency") == 0.85);
  const double ns = cycle_ns(doc);
  // Global tiles: IPU 0's 0..63, IPU 1's 1472..1535 (the target's second IPU). Stage 1 as
  // above: IPU 0's tile 0 sums IPU 0's 64 partials, its tile 1 IPU 1's 64, which all cross
  // the link into that one tile: 256 B of payload as packets at 4 x 0.85 B/cycle,
  // ceil(256 x 4 / 3.4) = 302 on-chip-rate bytes, 76 cycles of its port (IPU 0's busiest; its
  // on-chip words stay in column 0: flight 1): phase 20 + 76 = 96 cycles; the link carries the
  // 256 B in one flow (latency + 256 B / the partner bundle). Both barriers and the external
  // set-up come first. Then the two vertices of 64 partials, 294 cycles.
  const double barriers = 150 * ns + b.system->sync_cost({0, 1}).ns;
  const double setup = resolved(doc, "/chip/external_exchange_fixed_cycles") * ns;
  const double link = resolved(doc, "/ipu_link/latency_ns") +
                      256 / ipu_link_Bpns(doc, resolved(doc, "/ipu_link/partner_links"));
  const double stage1 = barriers + setup + std::max(96 * ns, link) + 294 * ns;
  // Stage 2: both partials on IPU 0 (tile 1's 4 B to tile 0, 21 cycles), no data leaves an
  // IPU (no set-up), but the compute set spans both IPUs: both barriers; vertex of 2: 114.
  const double stage2 = barriers + 21 * ns + 114 * ns;
  // The op overhead once, on both IPUs at the same time.
  const double op = resolved(doc, "/chip/compute/op_overhead_cycles") * ns;
  CHECK(b.duration(0) == Approx(stage1 + stage2 + op).margin(0.01));
  CHECK(b.step(0)["ipu_pairs"] == 1);
}

TEST_CASE("reduce over 128 tiles on SDK 1.0.49: the same stages at 1.0.49's vertex estimates",
          "[microbenchmark][tile_traffic][reduce]") {
  // The first test's reduce with /software/poplar_sdk_version 1.0.49 (the Citadel report's):
  // the plan, the syncs and the exchange phases are the same (84 + 21 cycles); the vertices
  // take 1.0.49's getCyclesEstimateForReduce, 6 x (26 + 2 floor(n / 4) + n mod 4), or 6 x 32
  // below 6 partials: 64 partials 6 x 58 = 348 (294 on 2.4.0), 2 partials 6 x 32 = 192 (114).
  ConfigDoc doc = reduce_doc(1, 128);
  doc.apply_override("software.poplar_sdk_version=1.0.49");
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double op = resolved(doc, "/chip/compute/op_overhead_cycles");
  // 150 + 84 + 348 = 582; 150 + 21 + 192 = 363.
  CHECK(b.duration(0) == Approx((582 + 363 + op) * cycle_ns(doc)));
  CHECK(b.step(0)["reduce_ns"].get<double>() == Approx((348 + 192) * cycle_ns(doc)));
  CHECK(b.step(0)["exchange_ns"].get<double>() == Approx((84 + 21) * cycle_ns(doc)));
}

TEST_CASE("reduce per compute set: each of popops' two stages pays the op overhead",
          "[microbenchmark][tile_traffic][reduce][compute_sets]") {
  // The first case's reduce (528 + 285 cycles of stages) under /chip/compute/op_overhead_per
  // compute_set: two compute sets, 2 x the op overhead instead of one (docs/compute_sets.md).
  ConfigDoc doc = reduce_doc(1, 128, true);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double op = resolved(doc, "/chip/compute/op_overhead_cycles");
  REQUIRE(op > 0);
  CHECK(b.step(0)["op_overhead_ns"].get<double>() == Approx(2 * op * cycle_ns(doc)));
  CHECK(b.duration(0) == Approx((528 + 285 + 2 * op) * cycle_ns(doc)));
}
