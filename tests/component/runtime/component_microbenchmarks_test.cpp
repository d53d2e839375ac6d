// The component-test steps (tile_traffic, gemm, convolution) against hand-worked closed forms
// of the resolved parameters: one tile alone, an idle link, a two-IPU broadcast, a gather
// (contention at the root's port), a word's flight across the exchange's columns (idle, and
// under a gather's port contention), a transfer timed without its sync, two flows sharing a
// link (contention on the network) and a GEMM / convolution shape (a reduce's stages:
// component_reduce_test.cpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "models/ipu/compute.hpp"
#include "tests/component/models/model_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

Json tile_step(const Json& fields) {
  Json s = {{"kind", "tile_traffic"}};
  for (const auto& [k, v] : fields.items()) s[k] = v;
  return s;
}

double ceil_div(double a, double b) { return std::ceil(a / b - 1e-9); }

}  // namespace

TEST_CASE("tile_traffic, one tile on chip: internal sync + fixed + bytes / exchange rate",
          "[microbenchmark][tile_traffic]") {
  ConfigDoc doc = preset_config(
      "pod4",
      workload(Json::array({tile_step(
          {{"messages", Json::array({Json::array({0, 0, 0, 5, 4096})})}, {"repeat", 3}})})));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double cycles = resolved(doc, "/chip/sync_internal_cycles") +
                        resolved(doc, "/chip/exchange_fixed_cycles") +
                        ceil_div(4096, resolved(doc, "/chip/exchange_bytes_per_cycle_per_tile"));
  CHECK(b.step(0)["latency_ns"].get<double>() == Approx(cycles * cycle_ns(doc)));
  CHECK(b.duration(0) == Approx(3 * cycles * cycle_ns(doc)));
  CHECK(b.step(0)["tier"] == "local");
  CHECK(b.step(0)["bytes"] == 3 * 4096);
}

/// `tiles` tiles of IPU 2 each send 64 KiB to IPU 3 (ports of 2 B/cycle of packet, 2 x 0.85 =
/// 1.7 B/cycle of payload): one tile is bound by its off-chip port, 32 tiles by the partner
/// bundle. One port group, so every tile reaches every partner link (the port groups have
/// tests of their own: link_microbenchmarks_test, offchip_port_test).
static void check_partner(int tiles, bool port_bound) {
  Json msgs = Json::array();
  for (int t = 0; t < tiles; ++t) msgs.push_back(Json::array({2, t, 3, t, 65536}));
  Json extra = workload(Json::array({tile_step({{"messages", msgs}})}));
  extra["chip"] = {{"external_exchange_bytes_per_cycle_per_tile", 2.0},
                   {"external_port_groups", 1}};
  ConfigDoc doc = preset_config("pod4", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  // Both barriers of a superstep across IPUs (internal, then external) and the set-up.
  const double setup = resolved(doc, "/chip/sync_internal_cycles") * cycle_ns(doc) +
                       b.system->sync_cost({2, 3}).ns +
                       resolved(doc, "/chip/external_exchange_fixed_cycles") * cycle_ns(doc);
  REQUIRE(resolved(doc, "/ipu_link/efficiency") == 0.85);
  // 65536 / 1.7 = 38,550.6 -> 38,551 cycles.
  const double port =
      (resolved(doc, "/chip/exchange_fixed_cycles") + ceil_div(65536, 2.0 * 0.85)) * cycle_ns(doc);
  const double link =
      resolved(doc, "/ipu_link/latency_ns") +
      65536.0 * tiles / ipu_link_Bpns(doc, resolved(doc, "/ipu_link/partner_links"));
  INFO(tiles << " tiles: port " << port << " ns, link " << link << " ns");
  CHECK((port_bound ? port > link : link > port));
  CHECK(b.duration(0) == Approx(setup + std::max(port, link)).margin(0.01));
  CHECK(b.step(0)["tier"] == "ipu_link");
}

TEST_CASE("tile_traffic, one tile to the partner IPU over an idle link: its port bounds it",
          "[microbenchmark][tile_traffic]") {
  check_partner(1, true);
}

TEST_CASE("tile_traffic, 32 tiles to the partner IPU over an idle link: the links bound it",
          "[microbenchmark][tile_traffic]") {
  check_partner(32, false);
}

TEST_CASE("tile_traffic, two-IPU broadcast: the root sends once per IPU, receivers share",
          "[microbenchmark][tile_traffic]") {
  Json extra = workload(Json::array({tile_step({{"traffic", "broadcast"},
                                                {"ipus", Json::array({0, 1})},
                                                {"root_ipu", 0},
                                                {"root_tile", 7},
                                                {"bytes_per_tile", 1024}})}));
  extra["chip"] = {{"external_exchange_bytes_per_cycle_per_tile", 4.0}};
  ConfigDoc doc = preset_config("pod4", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double r = resolved(doc, "/chip/exchange_bytes_per_cycle_per_tile");
  const double st = resolved(doc, "/chip/tiles_per_supertile");
  const double T = resolved(doc, "/chip/tiles");
  // The root tile sends 1024 B on chip and 1024 B to IPU 1; the off-chip 1024 B leave as
  // IPU-Link packets at 4 x 0.85 = 3.4 B/cycle of payload, i.e. ceil(1024 x 4 / 3.4) = 1205
  // on-chip-rate bytes: ceil((1024 + 1205) / 4) = 558 cycles. Every other tile receives 1024 B
  // shared with its supertile neighbour.
  REQUIRE(resolved(doc, "/ipu_link/efficiency") == 0.85);
  const double root = ceil_div(1024 + ceil_div(1024 * r, 4.0 * 0.85), r);
  CHECK(root == 558);
  const double rx = ceil_div(1024, r * st);
  const double phase =
      (resolved(doc, "/chip/exchange_fixed_cycles") + std::max(root, rx)) * cycle_ns(doc);
  const double link = resolved(doc, "/ipu_link/latency_ns") +
                      1024 / ipu_link_Bpns(doc, resolved(doc, "/ipu_link/partner_links"));
  // Both barriers of a superstep across IPUs (internal, then external) and the set-up.
  const double setup = resolved(doc, "/chip/sync_internal_cycles") * cycle_ns(doc) +
                       b.system->sync_cost({0, 1}).ns +
                       resolved(doc, "/chip/external_exchange_fixed_cycles") * cycle_ns(doc);
  CHECK(b.duration(0) == Approx(setup + std::max(phase, link)).margin(0.01));
  CHECK(b.step(0)["bytes"] == (2 * T - 1) * 1024);
  CHECK(b.step(0)["ipu_pairs"] == 1);
}

TEST_CASE("tile_traffic gather: every tile's bytes queue at the root tile's port (contention)",
          "[microbenchmark][tile_traffic][contention]") {
  ConfigDoc doc = preset_config(
      "pod4",
      workload(Json::array({tile_step(
          {{"traffic", "gather"}, {"ipus", 1}, {"root_tile", 3}, {"bytes_per_tile", 4}})})));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double T = resolved(doc, "/chip/tiles");
  const double cycles =
      resolved(doc, "/chip/sync_internal_cycles") + resolved(doc, "/chip/exchange_fixed_cycles") +
      ceil_div((T - 1) * 4, resolved(doc, "/chip/exchange_bytes_per_cycle_per_tile"));
  CHECK(b.duration(0) == Approx(cycles * cycle_ns(doc)));
  CHECK(b.step(0)["messages_per_repeat"] == T - 1);
}

/// Runs `step` on pod4 (GC200: 1472 tiles in 16 columns of 92) with the exchange's fixed cost
/// set to 20 cycles and its propagation to 7.5 cycles per column; returns the step's duration
/// in cycles (sync_internal_cycles is 150).
static double column_run(const Json& step) {
  Json extra = workload(Json::array({step}));
  extra["chip"] = {{"exchange_fixed_cycles", 20}, {"exchange_cycles_per_column", 7.5}};
  ConfigDoc doc = preset_config("pod4", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  REQUIRE(resolved(doc, "/chip/sync_internal_cycles") == 150);
  return b.duration(0) / cycle_ns(doc);
}

TEST_CASE("tile_traffic, one word across 6 columns (idle): its flight along the exchange",
          "[microbenchmark][tile_traffic][columns]") {
  // Tile 0 (column 0) -> tile 601 (column 601 / 92 = 6): sync 150 + fixed 20 + ceil(7.5 x 6) +
  // 1 = 150 + 20 + 45 + 1 = 216 cycles.
  CHECK(column_run(tile_step({{"messages", Json::array({Json::array({0, 0, 0, 601, 4})})}})) ==
        Approx(216));
}

TEST_CASE("tile_traffic, one word inside a column (idle): no flight",
          "[microbenchmark][tile_traffic][columns]") {
  // Tile 0 -> tile 5, both in column 0: 150 + 20 + 1 = 171 cycles.
  CHECK(column_run(tile_step({{"messages", Json::array({Json::array({0, 0, 0, 5, 4})})}})) ==
        Approx(171));
}

TEST_CASE("tile_traffic broadcast from tile 0: the farthest column sets the phase",
          "[microbenchmark][tile_traffic][columns]") {
  // 4 B from tile 0 to all 1472 tiles: the root sends one word, the farthest receivers sit 15
  // columns away: 150 + 20 + ceil(7.5 x 15) + 1 = 150 + 20 + 113 + 1 = 284 cycles.
  CHECK(column_run(tile_step({{"traffic", "broadcast"}, {"ipus", 1}, {"bytes_per_tile", 4}})) ==
        Approx(284));
}

TEST_CASE("tile_traffic gather across the columns: the root's port outlasts every flight",
          "[microbenchmark][tile_traffic][columns][contention]") {
  // 4 B from every tile to tile 0: the root's port takes 1471 cycles, longer than the farthest
  // word's flight (114): 150 + 20 + 1471 = 1641 cycles.
  CHECK(column_run(tile_step({{"traffic", "gather"}, {"ipus", 1}, {"bytes_per_tile", 4}})) ==
        Approx(1641));
}

/// A 4-byte tile_transfer from IPU 0 to its partner on pod4, timed by the host or not; checks
/// its duration against the two barriers (if host-timed) + external set-up + max(phase, link).
/// Closed form on pod4 (GC200, 1.325 GHz, 0.7547 ns a cycle), host-timed: internal barrier 150
/// cycles (113.21 ns) + external barrier 40 cycles (30.19 ns) + set-up S cycles + max(exchange
/// phase (75 + 2) cycles = 58.11 ns, hop 100 ns + flight 4 B / 58.41 B/ns = 100.07 ns); at the
/// fitted S = 655 (494.34 ns): 113.21 + 30.19 + 494.34 + 100.07 = 737.81 ns. Not host-timed:
/// 594.41 ns (neither barrier is timed).
static void check_host_timed(bool host) {
  ConfigDoc doc = preset_config("pod4", workload(Json::array({{{"kind", "tile_transfer"},
                                                               {"src_ipu", 0},
                                                               {"dst_ipu", 1},
                                                               {"tiles", 1},
                                                               {"bytes_per_tile", 4},
                                                               {"host_timed", host}}})));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  // The sync of 2 IPUs: ceil(15 ns x 1.325 GHz x 1 hop x 2) = 40 cycles.
  REQUIRE(b.system->sync_cost({0, 1}).cycles == 40);
  REQUIRE(resolved(doc, "/chip/sync_internal_cycles") == 150);
  const double setup = resolved(doc, "/chip/external_exchange_fixed_cycles") * cycle_ns(doc);
  // The tile's port moves 4 B off chip at 4 x 0.85 = 3.4 B/cycle of payload: 2 cycles.
  const double port =
      ceil_div(4, resolved(doc, "/chip/external_exchange_bytes_per_cycle_per_tile") *
                      resolved(doc, "/ipu_link/efficiency"));
  REQUIRE(port == 2);
  const double phase = (resolved(doc, "/chip/exchange_fixed_cycles") + port) * cycle_ns(doc);
  const double link = resolved(doc, "/ipu_link/latency_ns") +
                      4 / ipu_link_Bpns(doc, resolved(doc, "/ipu_link/partner_links"));
  // Internal barrier, then external barrier: (150 + 40) cycles / 1.325 GHz = 143.40 ns.
  const double sync = host ? (150 + 40) * cycle_ns(doc) : 0.0;
  CHECK(b.duration(0) == Approx(sync + setup + std::max(phase, link)).margin(0.01));
  if (resolved(doc, "/chip/external_exchange_fixed_cycles") == 655)
    CHECK(b.duration(0) == Approx(host ? 737.81 : 594.41).margin(0.01));
  // The report's pieces of the latency: the timed barriers (143.40 ns, or none), the external
  // set-up, and beside each other the exchange phase and the link.
  CHECK(b.step(0)["sync_ns"].get<double>() == Approx(sync));
  CHECK(b.step(0)["external_setup_ns"].get<double>() == Approx(setup));
  CHECK(b.step(0)["sync_and_setup_ns"].get<double>() == Approx(sync + setup));
  CHECK(b.step(0)["exchange_ns"].get<double>() == Approx(phase));
  CHECK(b.step(0)["network_ns"].get<double>() == Approx(link).margin(0.01));
}

TEST_CASE("tile_transfer, host-timed: the sync before the transfer is timed",
          "[microbenchmark][tile_traffic][host_timed]") {
  check_host_timed(true);
}

TEST_CASE("tile_transfer, host_timed false: the same transfer without its sync",
          "[microbenchmark][tile_traffic][host_timed]") {
  check_host_timed(false);
}

TEST_CASE("tile_traffic: two IPU pairs whose routes share an up link each get half of it",
          "[microbenchmark][tile_traffic][contention]") {
  // IPU 0 -> IPU 2 (one hop up the rail) and IPU 0 -> IPU 4 (two hops) share the 0 -> 2 up
  // bundle: max-min gives each half of it, so both drain X / (C / 2) after the phase starts;
  // the two-hop flow arrives last (two latencies plus a chunk of fill, under 0.1 % here).
  const int tiles = 64;
  const int per_tile = 65536;
  Json msgs = Json::array();
  for (int t = 0; t < tiles; ++t) {
    msgs.push_back(Json::array({0, t, 2, t, per_tile}));
    msgs.push_back(Json::array({0, tiles + t, 4, t, per_tile}));
  }
  Json extra = workload(Json::array({tile_step({{"messages", msgs}})}));
  // One port group: the sending tiles (0-127, columns 0-1) would otherwise reach only half the
  // up links, and the link sharing is what this case checks.
  extra["chip"] = {{"external_exchange_bytes_per_cycle_per_tile", 64.0},
                   {"external_port_groups", 1}};
  ConfigDoc doc = preset_config("pod16", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double X = static_cast<double>(tiles) * per_tile;
  const double C = ipu_link_Bpns(doc, resolved(doc, "/ipu_link/up_links"));
  // Both barriers of a superstep across IPUs (internal, then external) and the set-up.
  const double setup = resolved(doc, "/chip/sync_internal_cycles") * cycle_ns(doc) +
                       b.system->sync_cost({0, 2, 4}).ns +
                       resolved(doc, "/chip/external_exchange_fixed_cycles") * cycle_ns(doc);
  const double shared = 2 * X / C + 2 * resolved(doc, "/ipu_link/latency_ns");
  CHECK(b.duration(0) == Approx(setup + shared).epsilon(1e-3));
  // Alone, each would take about half as long: the sharing is what the step measures.
  CHECK(b.step(0)["network_ns"].get<double>() > 1.9 * X / C);
}

TEST_CASE("gemm and convolution: the AMP formula of the GEMM shape (as training times it)",
          "[microbenchmark][gemm]") {
  ConfigDoc doc = preset_config(
      "pod4",
      workload(Json::array(
          {{{"kind", "gemm"}, {"m", 2944}, {"k", 2944}, {"n", 2944}, {"dtype", "float16_32"}},
           {{"kind", "convolution"},
            {"batch", 4},
            {"in_channels", 64},
            {"out_channels", 128},
            {"height", 56},
            {"width", 56},
            {"kernel", 3},
            {"stride", 2},
            {"dtype", "float16"}}})));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const ChipParams chip = b.system->chip();
  ComputeSpec g;
  g.unit = ComputeUnit::Amp;
  g.dtype = ComputeDType::Float16_32;
  g.m = g.k = g.n = 2944;
  g.flops = 2.0 * 2944 * 2944 * 2944;
  g.bytes = 3 * 2944 * 2944 * 2;
  CHECK(b.step(0)["cycles"] == compute_cycles(chip, g));
  CHECK(b.step(0)["TFLOPs"].get<double>() ==
        Approx(g.flops / (static_cast<double>(compute_cycles(chip, g)) * cycle_ns(doc)) * 1e-3));
  // 56 x 56 with stride 2 and "same" padding: 28 x 28 outputs.
  CHECK(b.step(1)["m"] == 4 * 28 * 28);
  CHECK(b.step(1)["k"] == 64 * 9);
  CHECK(b.step(1)["n"] == 128);
}

TEST_CASE("tile_traffic refuses bad set-ups with the key", "[microbenchmark][errors]") {
  auto refused = [](const Json& step, const std::string& what) {
    ConfigDoc doc = preset_config("pod4", workload(Json::array({step})));
    CHECK_THROWS_WITH(Bench::make(doc, "bad"), Catch::Contains(what));
  };
  refused(tile_step({{"messages", Json::array({Json::array({0, 0, 9, 0, 4})})}}), "names IPU 9");
  refused(tile_step({{"messages", Json::array({Json::array({0, 0, 1})})}}), "messages");
  refused(tile_step({{"traffic", "gather"}, {"ipus", 2}, {"root_ipu", 3}}), "root_ipu 3");
  refused(tile_step({{"traffic", "random"}, {"ipus", 1}, {"destinations", "other_ipu"}}),
          "at least two IPUs");
  refused({{"kind", "gemm"}, {"m", 0}, {"k", 1}, {"n", 1}}, "/m");
}
