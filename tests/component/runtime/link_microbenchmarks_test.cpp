// The gc-iputraffictest / gc-hosttraffictest microbenchmark steps (tile_transfer,
// host_buffer_write, host_buffer_read) against closed forms of the resolved parameters: each
// runs through the sync and exchange models and the network (no closed form in the program).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

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

/// One iteration of a tile transfer: each IPU's internal barrier, then the sync of the two IPUs
/// (patent US 10,579,585 B2: a superstep across chips runs both) + external exchange set-up,
/// then the
/// longer of the link transfer (one hop: latency + bytes / partner bundle) and the tiles'
/// exchange phase: the longer of each tile's bytes through its off-chip port (fixed + bytes as
/// IPU-Link packets: payload at external rate x link efficiency) and all the tiles' bytes
/// through their port group's `share` of the partner bundle (all tiles in one group).
double iteration_ns(const ConfigDoc& doc, const System& sys, double bytes_per_tile, double tiles,
                    double share) {
  const double fixed = resolved(doc, "/chip/sync_internal_cycles") * cycle_ns(doc) +
                       sys.sync_cost({2, 3}).ns +
                       resolved(doc, "/chip/external_exchange_fixed_cycles") * cycle_ns(doc);
  const double link =
      resolved(doc, "/ipu_link/latency_ns") +
      bytes_per_tile * tiles / ipu_link_Bpns(doc, resolved(doc, "/ipu_link/partner_links"));
  const double r = resolved(doc, "/chip/exchange_bytes_per_cycle_per_tile");
  const double ext = resolved(doc, "/chip/external_exchange_bytes_per_cycle_per_tile") *
                     resolved(doc, "/ipu_link/efficiency");
  const double port_cycles = resolved(doc, "/chip/exchange_fixed_cycles") +
                             std::ceil(std::ceil(bytes_per_tile * r / ext - 1e-9) / r - 1e-9);
  const double group = bytes_per_tile * tiles /
                       (ipu_link_Bpns(doc, resolved(doc, "/ipu_link/partner_links")) * share);
  return fixed + std::max(link, std::max(port_cycles * cycle_ns(doc), group));
}

/// The resolved rates (B/ns), latencies (ns) and times of the host <-> DDR <-> IPU path of
/// machine 0, for `bytes_per_tile` through each tile's off-chip port.
struct HostPath {
  double ddr, host, gw;  ///< DDR, host link and gateway link rates x efficiency
  double Lh, Lg, Ld;     ///< host link, gateway link and DDR latencies
  double chunk;          ///< DDR chunk
  double S;              ///< an internal sync
  double phase;          ///< the tiles' exchange phase
  HostPath(const ConfigDoc& doc, double bytes_per_tile) {
    ddr = resolved(doc, "/machine/gateway/ddr_bandwidth_GBps") *
          resolved(doc, "/machine/gateway/ddr_efficiency");
    host = resolved(doc, "/machine/host_link/bandwidth_GBps") *
           resolved(doc, "/machine/host_link/efficiency");
    gw = resolved(doc, "/machine/gateway/ipu_gateway_link_GBps") *
         resolved(doc, "/machine/gateway/ipu_gateway_link_efficiency");
    Lh = resolved(doc, "/machine/host_link/latency_ns");
    Lg = resolved(doc, "/machine/gateway/ipu_gateway_link_latency_ns");
    Ld = resolved(doc, "/machine/gateway/ddr_latency_ns");
    chunk = resolved(doc, "/machine/gateway/ddr_chunk_bytes");
    S = resolved(doc, "/chip/sync_internal_cycles") * cycle_ns(doc);
    // The bytes per tile through the off-chip port, beside the link flow.
    const double r = resolved(doc, "/chip/exchange_bytes_per_cycle_per_tile");
    const double ext = resolved(doc, "/chip/external_exchange_bytes_per_cycle_per_tile");
    phase = (resolved(doc, "/chip/exchange_fixed_cycles") +
             std::ceil(std::ceil(bytes_per_tile * r / ext - 1e-9) / r - 1e-9)) *
            cycle_ns(doc);
  }
  /// A two-hop flow of `bytes` alone on its route: both latencies, one chunk of fill on the
  /// second hop, the bytes at the bottleneck.
  double flow(double bytes, double L1, double L2, double bottleneck) const {
    return L1 + L2 + (std::min(bytes, chunk) + bytes) / bottleneck;
  }
};

}  // namespace

TEST_CASE(
    "tile_transfer, port-group-bound: 32 tiles of column 0 reach half the partner links, both "
    "ways summed",
    "[microbenchmark][tile_transfer][external_ports]") {
  ConfigDoc doc = preset_config("pod4", workload(iputraffic(3, true)));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  REQUIRE(resolved(doc, "/chip/external_port_groups") == 2);
  REQUIRE(resolved(doc, "/ipu_link/partner_links") == 4);
  // Tiles 0-31 sit in column 0 of 16 (92 tiles a column), so in port group 0 of 2 on both
  // IPUs: their 2,097,152 B a direction cross 2 of the 4 partner links, 2,097,152 /
  // (ipu_link_Bpns(4) / 2) (71,820 ns at 4 x 17.18 x 0.85 = 58.4 B/ns), twice the link flow's
  // 100 + 35,910 ns, while each tile's port needs 14.5 us.
  const double group = 2097152 / (ipu_link_Bpns(doc, 4) / 2);
  const double link = resolved(doc, "/ipu_link/latency_ns") + 2097152 / ipu_link_Bpns(doc, 4);
  CHECK(group > 1.9 * link);
  const double it = iteration_ns(doc, *b.system, 65536, 32, 0.5);
  CHECK(b.step(0)["link_ports_ns"].get<double>() == Approx(group).epsilon(1e-9));
  CHECK(b.step(0)["exchange_ns"].get<double>() < 0.25 * group);  // each tile's own port
  CHECK(b.duration(0) == Approx(3 * it).epsilon(0.001));
  CHECK(b.step(0)["bytes"] == 2 * 3 * 32 * 65536);
  CHECK(b.step(0)["bandwidth_GBps"].get<double>() == Approx(2.0 * 32 * 65536 / it).epsilon(0.001));
}

TEST_CASE(
    "tile_transfer, link-bound: one port group (every tile reaches every link) gives repeat x "
    "(barriers + set-up + latency + bytes / partner links)",
    "[microbenchmark][tile_transfer][external_ports]") {
  Json extra = workload(iputraffic(3, true));
  extra["chip"] = {{"external_port_groups", 1}};
  ConfigDoc doc = preset_config("pod4", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double it = iteration_ns(doc, *b.system, 65536, 32, 1.0);
  const double link = resolved(doc, "/ipu_link/latency_ns") + 2097152 / ipu_link_Bpns(doc, 4);
  CHECK(it == Approx(resolved(doc, "/chip/sync_internal_cycles") * cycle_ns(doc) +
                     b.system->sync_cost({2, 3}).ns +
                     resolved(doc, "/chip/external_exchange_fixed_cycles") * cycle_ns(doc) + link));
  CHECK(b.duration(0) == Approx(3 * it).epsilon(0.001));
  CHECK(b.step(0)["bandwidth_GBps"].get<double>() == Approx(2.0 * 32 * 65536 / it).epsilon(0.001));
}

TEST_CASE("tile_transfer, all tiles: both port groups together reach every partner link",
          "[microbenchmark][tile_transfer][external_ports]") {
  // 1472 tiles x 4096 B = 6,029,312 B a direction, 3,014,656 B from each group: 3,014,656 /
  // 29.2 = 103,241 ns for the ports, under the link flow's 100 + 6,029,312 / 58.4 = 103,341 ns.
  Json steps = Json::array({{{"kind", "tile_transfer"},
                             {"src_ipu", 2},
                             {"dst_ipu", 3},
                             {"tiles", 1472},
                             {"bytes_per_tile", 4096},
                             {"bidirectional", false},
                             {"repeat", 1}}});
  ConfigDoc doc = preset_config("pod4", workload(steps));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double it = iteration_ns(doc, *b.system, 4096, 1472, 1.0);
  CHECK(b.step(0)["link_ports_ns"].get<double>() ==
        Approx(3014656 / (ipu_link_Bpns(doc, 4) / 2)).epsilon(1e-9));
  CHECK(b.duration(0) == Approx(it).epsilon(0.001));
  CHECK(b.step(0)["network_ns"].get<double>() > b.step(0)["link_ports_ns"].get<double>());
}

TEST_CASE("external_port_groups must divide exchange_columns: a clear error naming the key",
          "[microbenchmark][external_ports][config]") {
  Json extra = workload(iputraffic(1, false));
  extra["chip"] = {{"external_port_groups", 3}};
  ConfigDoc doc = preset_config("pod4", extra);
  REQUIRE_THROWS_WITH(Bench::make(doc), Catch::Contains("external_port_groups") &&
                                            Catch::Contains("divide exchange_columns (16)"));
}

TEST_CASE("tile_transfer, port-bound: few slow tile ports bound it below the links",
          "[microbenchmark][tile_transfer]") {
  Json extra = workload(iputraffic(2, false));
  extra["chip"] = {{"external_exchange_bytes_per_cycle_per_tile", 0.5}};
  ConfigDoc doc = preset_config("pod4", extra);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double fixed = resolved(doc, "/chip/sync_internal_cycles") * cycle_ns(doc) +
                       b.system->sync_cost({2, 3}).ns +
                       resolved(doc, "/chip/external_exchange_fixed_cycles") * cycle_ns(doc);
  // 0.5 B/cycle of packet at 85 % payload: 0.425 B/cycle of payload, 65536 / 0.425 = 154,202.4
  // cycles (the port counts whole on-chip-rate bytes: ceil(65536 x 4 / 0.425) / 4 rounds up).
  const double eff = resolved(doc, "/ipu_link/efficiency");
  REQUIRE(eff == 0.85);
  const double port =
      (resolved(doc, "/chip/exchange_fixed_cycles") + std::ceil(65536 / (0.5 * 0.85))) *
      cycle_ns(doc);
  CHECK(iteration_ns(doc, *b.system, 65536, 32, 0.5) == Approx(fixed + port));
  CHECK(b.duration(0) == Approx(2 * (fixed + port)).epsilon(0.001));
  CHECK(b.step(0)["bytes"] == 2 * 32 * 65536);  // one direction
}

TEST_CASE("host_buffer_write/read, one repetition: the flows of each side over the network",
          "[microbenchmark][host_buffer]") {
  Json steps = Json::array(
      {{{"kind", "host_buffer_write"}, {"ipu", 0}, {"tiles", 32}, {"bytes_per_transfer", 256}},
       {{"kind", "host_buffer_read"}, {"ipu", 0}, {"tiles", 32}, {"bytes_per_transfer", 256}}});
  ConfigDoc doc = preset_config("pod4", workload(steps));
  // A gateway-link latency of its own (the shipped one is 0): reads pay a round trip of it
  // that writes do not, which this case checks.
  doc.apply_override("/machine/gateway/ipu_gateway_link_latency_ns=250");
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double B = 32 * 256;
  const HostPath p(doc, 256);
  const double ddr = p.ddr, host = p.host, gw = p.gw, Lh = p.Lh, Lg = p.Lg, Ld = p.Ld, S = p.S;
  const double phase = p.phase;
  // Times are whole ps (SystemC): 0.01 ns covers the rounding of a few waits.
  auto flow = [&](double L1, double L2, double bottleneck) {
    return p.flow(B, L1, L2, bottleneck);
  };
  // Host -> tiles: the host writes (posted) into the buffer; then the tiles sync and read: the
  // request crosses the gateway link, the data comes back.
  const double host_write = flow(Lh, Ld, std::min(host, ddr));
  const double tiles_read = S + std::max(phase, Lg + flow(Ld, Lg, std::min(ddr, gw)));
  const Json w = b.step(0);
  CHECK(w["duration_ns"].get<double>() == Approx(host_write + tiles_read).margin(0.01));
  CHECK(w["host_side_GBps"].get<double>() == Approx(B / host_write));
  CHECK(w["tile_side_GBps"].get<double>() == Approx(B / tiles_read));
  // Tiles -> host: the tiles sync and write (posted); the gateway then pushes the repetition
  // to the host (posted: no request crosses the host link).
  const double tiles_write = S + std::max(phase, flow(Lg, Ld, std::min(ddr, gw)));
  const double host_read = flow(Ld, Lh, std::min(host, ddr));
  const Json rd = b.step(1);
  CHECK(rd["duration_ns"].get<double>() == Approx(tiles_write + host_read).margin(0.01));
  CHECK(rd["tile_side_GBps"].get<double>() == Approx(B / tiles_write));
  CHECK(rd["host_side_GBps"].get<double>() == Approx(B / host_read));
  CHECK(rd["bytes"] == 32 * 256);
}

TEST_CASE(
    "host_buffer_write, three repetitions: the tiles read as the host's stream lands, only the "
    "last waits for all of it",
    "[microbenchmark][host_buffer]") {
  Json steps = Json::array({{{"kind", "host_buffer_write"},
                             {"ipu", 0},
                             {"tiles", 32},
                             {"bytes_per_transfer", 256},
                             {"repeat", 3}}});
  ConfigDoc doc = preset_config("pod4", workload(steps));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double B = 32 * 256;
  const HostPath p(doc, 256);
  const double ddr = p.ddr, host = p.host, gw = p.gw, Lh = p.Lh, Lg = p.Lg, Ld = p.Ld, S = p.S;
  const double phase = p.phase;
  // The stream and the tiles' reads share only the DDR, whose rate exceeds the sum of theirs.
  auto flow = [&](double bytes, double L1, double L2, double bottleneck) {
    return p.flow(bytes, L1, L2, bottleneck);
  };
  REQUIRE(ddr > host + gw);
  // The host writes the first repetition, then the other two as one posted stream.
  const double first = flow(B, Lh, Ld, std::min(host, ddr));
  const double stream_end = first + flow(2 * B, Lh, Ld, std::min(host, ddr));
  const double read = S + std::max(phase, Lg + flow(B, Ld, Lg, std::min(ddr, gw)));
  // Repetitions 0 and 1 follow the first landing back to back; repetition 2 waits for the
  // stream's end if it has not landed by then (waiting before repetition 1 would add a read).
  const double end = std::max(first + 2 * read, stream_end) + read;
  CHECK(b.duration(0) == Approx(end).margin(0.01));
  CHECK(b.step(0)["tile_side_GBps"].get<double>() == Approx(3 * B / (end - first)));
  CHECK(b.step(0)["host_side_GBps"].get<double>() == Approx(3 * B / stream_end));
}

TEST_CASE(
    "host_buffer_read, three repetitions: the gateway pushes each landed repetition once the "
    "previous one's bytes have left the DDR",
    "[microbenchmark][host_buffer]") {
  Json steps = Json::array({{{"kind", "host_buffer_read"},
                             {"ipu", 0},
                             {"tiles", 32},
                             {"bytes_per_transfer", 256},
                             {"repeat", 3}}});
  ConfigDoc doc = preset_config("pod4", workload(steps));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double B = 32 * 256;
  const HostPath p(doc, 256);
  const double ddr = p.ddr, host = p.host, gw = p.gw, Lh = p.Lh, Lg = p.Lg, Ld = p.Ld;
  const double chunk = p.chunk, S = p.S, phase = p.phase;
  // The tiles' writes and the pushes share only the DDR, whose rate exceeds the sum of theirs.
  REQUIRE(ddr > host + gw);
  const double hb = std::min(host, ddr);
  // Tiles: repetition i has landed at (i + 1) x one write (sync, then the flow beside the
  // exchange phase).
  const double tw = S + std::max(phase, Lg + Ld + (std::min(B, chunk) + B) / std::min(ddr, gw));
  // Pushes: push i starts once repetition i has landed and push i - 1 has left (its DDR access
  // and its drain at the host-link rate); it arrives a host-link latency and one chunk of fill
  // later.
  double start = tw, left = 0, arrival = 0;
  for (int i = 0; i < 3; ++i) {
    if (i > 0) start = std::max((i + 1) * tw, left);
    left = start + Ld + B / hb;
    arrival = left + Lh + std::min(B, chunk) / hb;
  }
  // The shipped values make the host the slower side, so pushes 1 and 2 wait for the previous
  // one's departure, not for the tiles (the chaining under test).
  REQUIRE(Ld + B / hb > tw);
  const Json rd = b.step(0);
  CHECK(b.duration(0) == Approx(arrival).margin(0.01));
  CHECK(rd["tile_side_GBps"].get<double>() == Approx(3 * B / (3 * tw)).epsilon(1e-6));
  CHECK(rd["host_side_GBps"].get<double>() == Approx(3 * B / (arrival - tw)).epsilon(1e-6));
  // Waiting for each arrival instead (a read, or a push without the departure event) would add
  // the host-link latency per push: 3 B / (3 (Ld + B / hb) + 3 Lh + fill), far slower.
  CHECK(rd["host_side_GBps"].get<double>() > 3 * B / (3 * (Ld + B / hb + Lh)));
}

TEST_CASE(
    "host_buffer_write/read with simultaneous sides (gc-hosttraffictest): each side at its own "
    "pace, neither waiting for the other's data",
    "[microbenchmark][host_buffer]") {
  Json steps = Json::array({{{"kind", "host_buffer_write"},
                             {"ipu", 0},
                             {"tiles", 32},
                             {"bytes_per_transfer", 256},
                             {"repeat", 3},
                             {"simultaneous", true}},
                            {{"kind", "host_buffer_read"},
                             {"ipu", 0},
                             {"tiles", 32},
                             {"bytes_per_transfer", 256},
                             {"repeat", 3},
                             {"simultaneous", true}}});
  ConfigDoc doc = preset_config("pod4", workload(steps));
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double B = 32 * 256;
  const HostPath p(doc, 256);
  const double ddr = p.ddr, host = p.host, gw = p.gw, Lh = p.Lh, Lg = p.Lg, Ld = p.Ld;
  const double chunk = p.chunk, S = p.S, phase = p.phase;
  // The sides share only the DDR, whose rate exceeds the sum of theirs: each runs as if alone.
  REQUIRE(ddr > host + gw);
  const double hb = std::min(host, ddr), tb = std::min(ddr, gw);
  auto flow = [&](double bytes, double L1, double L2, double bottleneck) {
    return p.flow(bytes, L1, L2, bottleneck);
  };
  // Host -> tiles: the host's posted stream (the first repetition, then the other two) and the
  // tiles' three reads from the start, the tiles not waiting for the stream.
  const double stream_end = flow(B, Lh, Ld, hb) + flow(2 * B, Lh, Ld, hb);
  const double tr = S + std::max(phase, Lg + flow(B, Ld, Lg, tb));
  const Json w = b.step(0);
  CHECK(b.duration(0) == Approx(std::max(stream_end, 3 * tr)).margin(0.01));
  CHECK(w["host_side_GBps"].get<double>() == Approx(3 * B / stream_end).epsilon(1e-6));
  CHECK(w["tile_side_GBps"].get<double>() == Approx(3 * B / (3 * tr)).epsilon(1e-6));
  CHECK(w["simultaneous"] == true);
  // Tiles -> host: the tiles' three writes; the gateway's three pushes from the start, each
  // once the previous one has left (DDR access, then the drain at the host-link rate), the
  // last arriving a host-link latency and one chunk of fill later.
  const double tw = S + std::max(phase, flow(B, Lg, Ld, tb));
  const double host_end = 3 * (Ld + B / hb) + Lh + std::min(B, chunk) / hb;
  const Json rd = b.step(1);
  CHECK(b.duration(1) == Approx(std::max(host_end, 3 * tw)).margin(0.01));
  CHECK(rd["host_side_GBps"].get<double>() == Approx(3 * B / host_end).epsilon(1e-6));
  CHECK(rd["tile_side_GBps"].get<double>() == Approx(3 * B / (3 * tw)).epsilon(1e-6));
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
