// The C2-card host path (machine.host_attachment pcie_card): host streams cross the host PCIe
// switch's uplink and the IPU's own PCIe link, no gateway, no DDR buffer, no host link of the
// machine. Each case against a closed form of the resolved parameters.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "sim/errors.hpp"
#include "tests/component/models/model_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// A Pod16 whose host reaches each IPU over PCIe, with round numbers for the hand-worked
/// cases: links 8 GB/s x 0.75 = 6 B/ns, the switch uplink `uplink_GBps` x 0.75, 500 ns one way.
/// The host's read completions carry `completion_bytes`; at 256 B, the gateway link's TLP
/// payload, both directions run at the efficiency 0.75.
ConfigDoc pcie_pod16(const Json& steps, double uplink_GBps, int completion_bytes = 256) {
  ConfigDoc doc = preset_config("pod16", workload(steps));
  doc.apply_override("/machine/host_attachment=pcie_card");
  doc.apply_override("/machine/pcie_card/link_GBps=8");
  doc.apply_override("/machine/pcie_card/link_latency_ns=500");
  doc.apply_override("/machine/pcie_card/ipus_per_switch=4");
  doc.apply_override("/machine/pcie_card/switch_uplink_GBps=" + std::to_string(uplink_GBps));
  doc.apply_override("/machine/gateway/ipu_gateway_link_efficiency=0.75");
  doc.apply_override("/machine/gateway/ipu_gateway_tlp_payload_bytes=256");
  doc.apply_override("/machine/pcie_card/read_completion_bytes=" +
                     std::to_string(completion_bytes));
  return doc;
}

Json write_step(std::uint32_t ipu, std::uint32_t tiles, std::uint64_t bytes) {
  return {
      {"kind", "host_buffer_write"}, {"ipu", ipu}, {"tiles", tiles}, {"bytes_per_transfer", bytes}};
}

/// The tiles' side of one host -> tiles repetition on its route: the sync (`sync_ns`; < 0: one
/// IPU's internal sync), the read request up the IPU's link (L), then the data back over the
/// uplink (latency 0) and the link (L) at rate `Bpns`, with one chunk of fill on the second hop
/// (the network's flow), beside the tiles' exchange phase.
double tiles_read_ns(const ConfigDoc& doc, double bytes, double bytes_per_tile, double Bpns,
                     double sync_ns = -1) {
  const double L = 500;
  const double chunk = resolved(doc, "/machine/host_link/chunk_bytes");
  const double S =
      sync_ns >= 0 ? sync_ns : resolved(doc, "/chip/sync_internal_cycles") * cycle_ns(doc);
  const double r = resolved(doc, "/chip/exchange_bytes_per_cycle_per_tile");
  const double ext = resolved(doc, "/chip/external_exchange_bytes_per_cycle_per_tile");
  const double phase = (resolved(doc, "/chip/exchange_fixed_cycles") +
                        std::ceil(std::ceil(bytes_per_tile * r / ext - 1e-9) / r - 1e-9)) *
                       cycle_ns(doc);
  return S + std::max(phase, L + L + (std::min(bytes, chunk) + bytes) / Bpns);
}

}  // namespace

TEST_CASE("pcie_card, idle: a 4-byte host stream pays the PCIe latency twice and 4 B at 6 B/ns",
          "[microbenchmark][pcie_card]") {
  ConfigDoc doc = pcie_pod16(Json::array({write_step(0, 1, 4)}), 16);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  // S + max(phase, 500 + 500 + (4 + 4) / 6) = S + 1001.333 ns (the phase of one 4-byte
  // transfer is far shorter); times are whole ps.
  const double t = tiles_read_ns(doc, 4, 4, 6);
  CHECK(t == Approx(resolved(doc, "/chip/sync_internal_cycles") * cycle_ns(doc) + 1001.333333));
  const Json w = b.step(0);
  CHECK(w["tile_transfer_ns"].get<double>() == Approx(t).margin(0.01));
  // No gateway buffer: the host's side is the tiles' transfer itself.
  CHECK(w["host_side_GBps"].get<double>() == Approx(w["tile_side_GBps"].get<double>()));
  // The route is the switch uplink and the IPU's PCIe link, no DDR or gateway link.
  const Route route = b.system->host_write_route(0);
  REQUIRE(route.size() == 2);
  CHECK(b.system->topology().kind(route[0]) == ResourceKind::HostLink);
  CHECK(b.system->topology().kind(route[1]) == ResourceKind::HostLink);
}

TEST_CASE("pcie_card, bulk: 1216 tiles x 40 KiB at the link's rate x efficiency",
          "[microbenchmark][pcie_card]") {
  ConfigDoc doc = pcie_pod16(Json::array({write_step(0, 1216, 40960)}), 16);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  // 49,807,360 B at min(8, 16) x 0.75 = 6 B/ns: 8,301,227 ns of bytes + one chunk of fill,
  // plus 1000 ns of latency and the sync: 5.99 GB/s.
  const double B = 1216.0 * 40960;
  const double t = tiles_read_ns(doc, B, 40960, 6);
  const Json w = b.step(0);
  CHECK(w["tile_side_GBps"].get<double>() == Approx(B / t));
  CHECK(w["tile_side_GBps"].get<double>() == Approx(6.0).epsilon(0.01));
}

TEST_CASE(
    "pcie_card, contention: two IPUs behind one switch share its uplink, not two "
    "behind different switches",
    "[microbenchmark][pcie_card]") {
  // Concurrent host -> IPU streams of 16 MiB each over the host write routes. Uplink 8 GB/s x
  // 0.75 = 6 B/ns: IPUs 0 and 1 (switch 0) get 3 B/ns each; IPU 4 (switch 1) keeps its link's
  // 6 B/ns. Each: 500 ns on the IPU's link (the uplink has none) + (one chunk of fill + the
  // bytes) / its rate.
  const double B = 16.0 * 1048576;
  auto host_write = [&](std::uint32_t ipu) {
    return Json{{"kind", "host_write"}, {"ipu", ipu}, {"bytes", 16 * 1048576}};
  };
  Json steps =
      Json::array({{{"kind", "concurrent"},
                    {"steps", Json::array({host_write(0), host_write(1), host_write(4)})}}});
  ConfigDoc doc = pcie_pod16(steps, 8);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double chunk = resolved(doc, "/machine/host_link/chunk_bytes");
  auto alone = [&](double Bpns) { return 500 + (std::min(B, chunk) + B) / Bpns; };
  const Json kids = b.step(0)["steps"];
  CHECK(kids[0]["duration_ns"].get<double>() == Approx(alone(3)).margin(0.01));
  CHECK(kids[1]["duration_ns"].get<double>() == Approx(alone(3)).margin(0.01));
  CHECK(kids[2]["duration_ns"].get<double>() == Approx(alone(6)).margin(0.01));
}

namespace {

/// The barriers of a sync across `ipus`: each IPU's internal one, then the external one (the
/// sync model's cost, tested on its own).
double barriers_ns(const ConfigDoc& doc, const System& sys,
                   const std::vector<std::uint32_t>& ipus) {
  return resolved(doc, "/chip/sync_internal_cycles") * cycle_ns(doc) + sys.sync_cost(ipus).ns;
}

/// One stream copy of 1216 tiles x 40 KiB into each IPU of `ipus` at once (no stream copy
/// syncs), on pcie_pod16 with an uplink of 8 GB/s: links and uplink both 8 x 0.75 = 6 B/ns.
Json multi_write(const Json& ipus) {
  return Json::array({{{"kind", "host_buffer_write"},
                       {"ipus", ipus},
                       {"tiles", 1216},
                       {"bytes_per_transfer", 40960}}});
}

}  // namespace

TEST_CASE("pcie_card, N IPUs: two IPUs behind one switch get half its uplink each",
          "[microbenchmark][pcie_card]") {
  // IPUs 0 and 1 sit behind switch 0 (ipus_per_switch 4): their two reads share its uplink's
  // 6 B/ns, 3 B/ns each (their own links carry 6). Each IPU: S2 + max(phase, 500 + 500 +
  // (chunk + 49,807,360 B) / 3) = S2 + 16.6 ms, S2 the two IPUs' barriers (internal, then
  // external); both end together, so the step moves 2 x 49,807,360 B in that time: about 6 GB/s,
  // the uplink's.
  ConfigDoc doc = pcie_pod16(multi_write(Json::array({0, 1})), 8);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double B = 1216.0 * 40960;
  const double t = tiles_read_ns(doc, B, 40960, 3, barriers_ns(doc, *b.system, {0, 1}));
  const Json w = b.step(0);
  CHECK(w["ipus"].get<int>() == 2);
  CHECK(w["bytes"].get<double>() == 2 * B);
  CHECK(w["tile_transfer_ns"].get<double>() == Approx(t).margin(0.01));
  CHECK(w["tile_side_GBps"].get<double>() == Approx(2 * B / t));
  CHECK(w["tile_side_GBps"].get<double>() == Approx(6.0).epsilon(0.01));
}

TEST_CASE("pcie_card, N IPUs: two IPUs behind different switches share nothing",
          "[microbenchmark][pcie_card]") {
  // IPU 0 behind switch 0, IPU 4 behind switch 1: each read has an uplink and a link of
  // 6 B/ns to itself: S2 + max(phase, 1000 + (chunk + 49,807,360 B) / 6) = S2 + 8.3 ms, twice
  // the one-switch case's rate: about 12 GB/s for the two.
  ConfigDoc doc = pcie_pod16(multi_write(Json::array({0, 4})), 8);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double B = 1216.0 * 40960;
  const double t = tiles_read_ns(doc, B, 40960, 6, barriers_ns(doc, *b.system, {0, 4}));
  const Json w = b.step(0);
  CHECK(w["tile_transfer_ns"].get<double>() == Approx(t).margin(0.01));
  CHECK(w["tile_side_GBps"].get<double>() == Approx(2 * B / t));
  CHECK(w["tile_side_GBps"].get<double>() == Approx(12.0).epsilon(0.01));
}

TEST_CASE("host_buffer over several IPUs: ipu with ipus, or a repeat, is refused with the path",
          "[pcie_card][errors]") {
  Json both = multi_write(Json::array({0, 1}));
  both[0]["ipu"] = 0;
  ConfigDoc d1 = pcie_pod16(both, 8);
  CHECK_THROWS_WITH(Bench::make(d1, "both"),
                    Catch::Contains("/workload/steps/0/ipus") && Catch::Contains("not both"));
  Json rep = multi_write(Json::array({0, 1}));
  rep[0]["repeat"] = 2;
  ConfigDoc d2 = pcie_pod16(rep, 8);
  CHECK_THROWS_WITH(Bench::make(d2, "rep"), Catch::Contains("/workload/steps/0/repeat"));
  ConfigDoc d3 = pcie_pod16(multi_write(17), 8);
  CHECK_THROWS_WITH(Bench::make(d3, "many"),
                    Catch::Contains("/workload/steps/0/ipus") && Catch::Contains("1..16"));
}

namespace {

/// One 16 MiB stream of `kind` alone on IPU 0 with 64-B read completions: its duration is
/// 500 ns on the IPU's link + (one chunk of fill + the bytes) / `Bpns`.
void check_lone_stream(const char* kind, double Bpns) {
  const double B = 16.0 * 1048576;
  ConfigDoc doc =
      pcie_pod16(Json::array({{{"kind", kind}, {"ipu", 0}, {"bytes", 16 * 1048576}}}), 16, 64);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double chunk = resolved(doc, "/machine/host_link/chunk_bytes");
  CHECK(b.step(0)["duration_ns"].get<double>() ==
        Approx(500 + (std::min(B, chunk) + B) / Bpns).margin(0.01));
}

}  // namespace

// Efficiency 0.75 at 256 B per TLP: o = 256 x (1 / 0.75 - 1) = 85.333 B per TLP. 64-B
// completions: 64 / (64 + 85.333) = 3/7, so the host -> IPU link carries 8 x 3/7 = 3.4286 B/ns
// (the uplink 16 x 3/7, wider); IPU -> host writes of 256 B keep 8 x 0.75 = 6 B/ns.
TEST_CASE("pcie_card, TLP payloads: host -> IPU data in 64-B read completions runs at 3/7",
          "[microbenchmark][pcie_card]") {
  check_lone_stream("host_write", 8.0 * 3.0 / 7.0);
}

TEST_CASE("pcie_card, TLP payloads: IPU -> host writes of 256 B keep the efficiency 0.75",
          "[microbenchmark][pcie_card]") {
  check_lone_stream("host_read", 6.0);
}

TEST_CASE("pcie_card: bad attachment values and a multi-domain system are refused with the path",
          "[pcie_card][errors]") {
  ConfigDoc bad = pcie_pod16(Json::array({write_step(0, 1, 4)}), 16);
  bad.apply_override("/machine/host_attachment=pcie");
  ConfigDoc zero = pcie_pod16(Json::array({write_step(0, 1, 4)}), 16, 0);
  CHECK_THROWS_WITH(build_system(zero, "zero"),
                    Catch::Contains("/machine/pcie_card/read_completion_bytes"));
  CHECK_THROWS_WITH(build_system(bad, "bad"),
                    Catch::Contains("/machine/host_attachment") && Catch::Contains("pcie_card"));
  ConfigDoc two = preset_config("pod128", workload(Json::array({write_step(0, 1, 4)})));
  two.apply_override("/machine/host_attachment=pcie_card");
  CHECK_THROWS_WITH(build_system(two, "two"),
                    Catch::Contains("/machine/host_attachment") && Catch::Contains("num_ilds"));
}

namespace {

/// host_buffer_write or _read of `bytes` from one tile, as a Poplar stream copy without
/// prefetch (stream_copy_syncs), repeated `repeat` times.
Json synced_step(const char* kind, std::uint64_t bytes, std::uint64_t repeat) {
  return {{"kind", kind},     {"ipu", 0},
          {"tiles", 1},       {"bytes_per_transfer", bytes},
          {"repeat", repeat}, {"stream_copy_syncs", true}};
}

}  // namespace

// docs/c2_host_stream_copy.md: StreamCopyBegin and StreamCopyEnd each wait for the host. Each
// handshake is a request with no payload up the IPU -> host route (the IPU's link, 500 ns;
// the uplink has no latency) and the release down the host -> IPU route (500 ns): 1000 ns;
// End also syncs the tiles again (S). The host runtime's own time is not modelled.
TEST_CASE(
    "pcie_card, stream copy syncs: a 4-byte copy adds two handshakes of 2 x 500 ns and a "
    "second sync",
    "[microbenchmark][pcie_card]") {
  ConfigDoc doc = pcie_pod16(Json::array({synced_step("host_buffer_write", 4, 1)}), 16);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double S = resolved(doc, "/chip/sync_internal_cycles") * cycle_ns(doc);
  // S + 1000 (Begin) + 500 + 500 + (4 + 4) / 6 (the read) + S + 1000 (End)
  // = 2 S + 3001.333 ns.
  const double t = tiles_read_ns(doc, 4, 4, 6) + 1000 + S + 1000;
  CHECK(t == Approx(2 * S + 3001.333333));
  CHECK(b.step(0)["tile_transfer_ns"].get<double>() == Approx(t).margin(0.01));
}

TEST_CASE("pcie_card, stream copy syncs: each repetition pays its own handshakes",
          "[microbenchmark][pcie_card]") {
  // Three copies back to back: no copy overlaps the next one's Begin (nothing is prefetched),
  // so the step lasts 3 x (2 S + 3001.333) ns and each repetition as long as one alone.
  ConfigDoc doc = pcie_pod16(Json::array({synced_step("host_buffer_write", 4, 3)}), 16);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double S = resolved(doc, "/chip/sync_internal_cycles") * cycle_ns(doc);
  const double one = 2 * S + 3001.333333;
  CHECK(b.step(0)["tile_transfer_ns"].get<double>() == Approx(one).margin(0.01));
  CHECK(b.step(0)["duration_ns"].get<double>() == Approx(3 * one).margin(0.03));
}

TEST_CASE("pcie_card, stream copy syncs: an IPU -> host copy writes between the handshakes",
          "[microbenchmark][pcie_card]") {
  // Tiles -> host: no read request; the 256-B write goes up at 6 B/ns (efficiency 0.75 at
  // 256-B TLPs) with one chunk of fill: S + 1000 + 500 + (256 + 256) / 6 + S + 1000
  // = 2 S + 2585.333 ns (the exchange phase of 256 B is far shorter).
  ConfigDoc doc = pcie_pod16(Json::array({synced_step("host_buffer_read", 256, 1)}), 16);
  Bench b = Bench::make(doc);
  sc_core::sc_start();
  REQUIRE(b.mb->finished());
  const double S = resolved(doc, "/chip/sync_internal_cycles") * cycle_ns(doc);
  REQUIRE(resolved(doc, "/machine/host_link/chunk_bytes") >= 256);
  CHECK(b.step(0)["tile_transfer_ns"].get<double>() == Approx(2 * S + 2585.333333).margin(0.01));
}

TEST_CASE("stream copy syncs on a gateway machine are refused with the path",
          "[pcie_card][errors]") {
  ConfigDoc doc =
      preset_config("pod16", workload(Json::array({synced_step("host_buffer_write", 4, 1)})));
  CHECK_THROWS_WITH(
      Bench::make(doc, "gw"),
      Catch::Contains("/workload/steps/0/stream_copy_syncs") && Catch::Contains("pcie_card"));
}
