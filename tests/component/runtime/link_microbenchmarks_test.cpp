// The gc-iputraffictest / gc-hosttraffictest microbenchmark steps (tile_transfer,
// host_buffer_write, host_buffer_read) against closed forms of the resolved parameters.
#include <algorithm>
#include <catch2/catch.hpp>

#include "tests/component/models/model_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// IPU 2 <-> IPU 3 of one M2000 (rung partners): 32 tiles x 64 KiB, `repeat` iterations.
Json iputraffic(std::uint64_t repeat, bool bidirectional) {
  return Json::array({{{"kind", "tile_transfer"},
                       {"src_ipu", 2},
                       {"dst_ipu", 3},
                       {"tiles", 32},
                       {"bytes_per_tile", 65536},
                       {"bidirectional", bidirectional},
                       {"repeat", repeat}}});
}

/// One iteration of a tile transfer: sync of two IPUs + external exchange set-up + the
/// longer of the link transfer (one hop: latency + bytes / partner bundle) and the tile port.
double iteration_ns(const ConfigDoc& doc, const System& sys, double bytes_per_tile, double tiles) {
  const double fixed = sys.sync_cost({2, 3}).ns +
                       resolved(doc, "/chip/external_exchange_fixed_cycles") * cycle_ns(doc);
  const double link =
      resolved(doc, "/ipu_link/latency_ns") +
      bytes_per_tile * tiles / ipu_link_Bpns(doc, resolved(doc, "/ipu_link/partner_links"));
  const double port =
      bytes_per_tile /
      (resolved(doc, "/chip/external_exchange_bytes_per_cycle_per_tile") / cycle_ns(doc));
  return fixed + std::max(link, port);
}

}  // namespace

TEST_CASE(
    "tile_transfer, link-bound: repeat x (sync + set-up + latency + bytes / partner links), both "
    "ways summed",
    "[microbenchmark][tile_transfer]") {
  ConfigDoc doc = preset_config("pod4", workload(iputraffic(3, true)));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double it = iteration_ns(doc, *b.system, 65536, 32);
  CHECK(b.duration(0) == Approx(3 * it).epsilon(0.001));
  CHECK(b.step(0)["bytes"] == 2 * 3 * 32 * 65536);
  CHECK(b.step(0)["bandwidth_GBps"].get<double>() == Approx(2.0 * 32 * 65536 / it).epsilon(0.001));
}

TEST_CASE("tile_transfer, port-bound: few slow tile ports bound it below the links",
          "[microbenchmark][tile_transfer]") {
  Json extra = workload(iputraffic(2, false));
  extra["chip"] = {{"external_exchange_bytes_per_cycle_per_tile", 0.5}};
  ConfigDoc doc = preset_config("pod4", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double fixed = b.system->sync_cost({2, 3}).ns +
                       resolved(doc, "/chip/external_exchange_fixed_cycles") * cycle_ns(doc);
  const double port = 65536 / (0.5 / cycle_ns(doc));
  CHECK(iteration_ns(doc, *b.system, 65536, 32) == Approx(fixed + port));
  CHECK(b.duration(0) == Approx(2 * (fixed + port)).epsilon(0.001));
  CHECK(b.step(0)["bytes"] == 2 * 32 * 65536);  // one direction
}

TEST_CASE("host_buffer_write/read: writes stream, reads pay a link round trip per transfer",
          "[microbenchmark][host_buffer]") {
  const std::uint64_t n = 1000;
  Json steps = Json::array({{{"kind", "host_buffer_write"},
                             {"ipu", 0},
                             {"tiles", 32},
                             {"bytes_per_transfer", 256},
                             {"repeat", n}},
                            {{"kind", "host_buffer_read"},
                             {"ipu", 0},
                             {"tiles", 32},
                             {"bytes_per_transfer", 256},
                             {"repeat", n}}});
  ConfigDoc doc = preset_config("pod4", workload(steps));
  // A gateway-link latency of its own (the shipped one may be 0): reads pay a round trip of
  // it that writes do not, which is what this case tells apart.
  doc.apply_override("/machine/gateway/ipu_gateway_link_latency_ns=250");
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double B = 32 * 256;
  const double ddr = resolved(doc, "/machine/gateway/ddr_bandwidth_GBps") *
                     resolved(doc, "/machine/gateway/ddr_efficiency");
  const double host = std::min(resolved(doc, "/machine/host_link/bandwidth_GBps") *
                                   resolved(doc, "/machine/host_link/efficiency"),
                               ddr);
  const double gw = std::min(resolved(doc, "/machine/gateway/ipu_gateway_link_GBps") *
                                 resolved(doc, "/machine/gateway/ipu_gateway_link_efficiency"),
                             ddr);
  const double Lh = resolved(doc, "/machine/host_link/latency_ns");
  const double Lg = resolved(doc, "/machine/gateway/ipu_gateway_link_latency_ns");
  REQUIRE(Lg == 250);
  const double W =
      resolved(doc, "/machine/gateway/buffer_latency_ns") + B / gw;  // tiles write one transfer
  const double R = W + 2 * Lg;                                       // tiles read one transfer
  const double H = Lh + n * B / host;                                // the host writes one stream
  const double HR = 2 * Lh + B / host;                               // the host reads one iteration
  // Host -> tiles: the host produces (writes); the tiles read once the first iteration is in.
  const Json w = b.step(0);
  CHECK(w["host_side_GBps"].get<double>() == Approx(n * B / H));
  CHECK(w["tile_side_GBps"].get<double>() == Approx(B / R));
  CHECK(w["duration_ns"].get<double>() ==
        Approx(std::max(Lh + B / host + n * R, H + R)).epsilon(1e-6));
  CHECK(w["host_side_GBps"].get<double>() > w["tile_side_GBps"].get<double>());
  // Tiles -> host: the tiles produce (write); the host reads each iteration once it landed.
  const Json r = b.step(1);
  const double host_end = std::max(W + n * HR, n * W + HR);
  CHECK(r["tile_side_GBps"].get<double>() == Approx(B / W));
  CHECK(r["host_side_GBps"].get<double>() == Approx(n * B / (host_end - W)));
  CHECK(r["duration_ns"].get<double>() == Approx(host_end).epsilon(1e-6));
  // The consumer reads, so it is the slower side in both directions (as the tool measured).
  CHECK(r["tile_side_GBps"].get<double>() > w["tile_side_GBps"].get<double>());
  CHECK(r["bytes"] == n * 32 * 256);
}

TEST_CASE("tile_transfer and host_buffer steps reject bad set-ups", "[microbenchmark][errors]") {
  Json same = Json::array({{{"kind", "tile_transfer"},
                            {"src_ipu", 1},
                            {"dst_ipu", 1},
                            {"tiles", 4},
                            {"bytes_per_tile", 8}}});
  ConfigDoc d1 = preset_config("pod4", workload(same));
  CHECK_THROWS_WITH(Bench::make(d1, "s1"), Catch::Contains("two different IPUs"));
  Json nested = Json::array(
      {{{"kind", "concurrent"},
        {"steps", Json::array({{{"kind", "host_buffer_write"}, {"ipu", 0}, {"tiles", 4}}})}}});
  ConfigDoc d2 = preset_config("pod4", workload(nested));
  CHECK_THROWS(Bench::make(d2, "s2"));
  Json typo = Json::array({{{"kind", "host_buffer_read"}, {"ipu", 0}, {"bytes_per_tranfer", 8}}});
  ConfigDoc d3 = preset_config("pod4", workload(typo));
  CHECK_THROWS_WITH(Bench::make(d3, "s3"), Catch::Contains("bytes_per_tranfer"));
}
