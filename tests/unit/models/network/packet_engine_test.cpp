// Oracles of the packet network model against closed forms, and the fluid model on the same
// cases: lone flows, two flows on one link, a parking lot, credit back-pressure, fifo.
#include "models/network/packet_engine.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <utility>

#include "tests/support/network/engine_driver.hpp"

using namespace ipusim;

namespace {

ResourceSpec link(const char* name, double cap_Bpns, double latency_ns, std::uint64_t chunk = 256,
                  std::uint64_t credits = 0, Arbitration arb = Arbitration::Fair) {
  ResourceSpec r;
  r.name = name;
  r.capacity_Bpns = cap_Bpns;
  r.latency_ns = latency_ns;
  r.chunk_bytes = chunk;
  r.credits_bytes = credits;
  r.arbitration = arb;
  return r;
}

PatternResult fluid(const std::vector<ResourceSpec>& rs, const std::vector<TimedTransfer>& ts) {
  return run_pattern(NetworkModel::Fluid, rs, FlowEngineParams{}, ts);
}
PatternResult packet(const std::vector<ResourceSpec>& rs, const std::vector<TimedTransfer>& ts) {
  return run_pattern(NetworkModel::Packet, rs, FlowEngineParams{}, ts);
}

}  // namespace

TEST_CASE("packet: a lone flow over one hop takes latency + bytes / capacity, as fluid",
          "[packet_engine]") {
  const std::vector<ResourceSpec> rs = {link("a", 4.0, 100.0)};
  for (std::uint64_t bytes : {1ull, 100ull, 256ull, 4096ull, 1000000ull}) {
    INFO("bytes = " << bytes);
    const double oracle = 100.0 + static_cast<double>(bytes) / 4.0;
    CHECK(packet(rs, {{0, {0}, bytes}}).end_ns[0] == Approx(oracle).epsilon(1e-12));
    CHECK(fluid(rs, {{0, {0}, bytes}}).end_ns[0] == Approx(oracle).epsilon(1e-12));
  }
}

TEST_CASE(
    "packet: a lone flow over k equal hops pays k latencies and k-1 chunks of store-and-forward",
    "[packet_engine]") {
  // Chunk j leaves hop h at (j + h + 1) c / r + h L: the last of n = B / c chunks arrives at
  // k L + B / r + (k - 1) c / r, fluid's pipelined formula exactly.
  const double cap = 8.0, lat = 50.0, c = 256.0;
  const std::uint64_t bytes = 256 * 1000;
  std::vector<ResourceSpec> rs;
  Route route;
  for (int k = 1; k <= 5; ++k) {
    rs.push_back(link("h", cap, lat));
    route.push_back(static_cast<ResourceId>(k - 1));
    INFO("k = " << k);
    const double oracle = k * lat + bytes / cap + (k - 1) * c / cap;
    CHECK(packet(rs, {{0, route, bytes}}).end_ns[0] == Approx(oracle).epsilon(1e-12));
    CHECK(fluid(rs, {{0, route, bytes}}).end_ns[0] == Approx(oracle).epsilon(1e-12));
  }
}

TEST_CASE("packet: two flows sharing a link each get half, within one chunk time",
          "[packet_engine]") {
  const double cap = 4.0, lat = 10.0, chunk_ns = 256 / cap;
  const std::uint64_t bytes = 256 * 400;
  const std::vector<ResourceSpec> rs = {link("r", cap, lat)};
  const std::vector<TimedTransfer> ts = {{0, {0}, bytes}, {0, {0}, bytes}};
  const PatternResult p = packet(rs, ts);
  const PatternResult f = fluid(rs, ts);
  const double oracle = lat + bytes / (cap / 2);
  for (int i = 0; i < 2; ++i) {
    CHECK(f.end_ns[i] == Approx(oracle).epsilon(1e-12));
    CHECK(std::fabs(p.end_ns[i] - oracle) <= chunk_ns + 1e-9);
  }
}

TEST_CASE("packet: a parking lot gives the max-min shares, as fluid", "[packet_engine]") {
  // r1 (1 B/ns) carries A and B; r2 (2 B/ns) carries A after r1, and C. Max-min: A = B = 0.5,
  // C = 1.5 while all run. C at 60000 / 1.5 = 40000 ns; A and B, 40000 B each
  // at 0.5 B/ns, end at 80000 ns (A then keeps 0.5: r1 is still shared with B).
  const std::vector<ResourceSpec> rs = {link("r1", 1.0, 0.0), link("r2", 2.0, 0.0)};
  const std::vector<TimedTransfer> ts = {{0, {0, 1}, 40000}, {0, {0}, 40000}, {0, {1}, 60000}};
  const PatternResult f = fluid(rs, ts);
  const PatternResult p = packet(rs, ts);
  const double oracle[3] = {80000, 80000, 40000};
  const double chunk_ns_r1 = 256 / 1.0;  // the slowest chunk time on any route
  for (int i = 0; i < 3; ++i) {
    INFO("flow " << i);
    // Fluid adds A's store-and-forward fill of one chunk on r2 (256 B at A's bottleneck, 1 B/ns).
    CHECK(std::fabs(f.end_ns[i] - oracle[i]) <= chunk_ns_r1 + 1e-9);
    CHECK(std::fabs(p.end_ns[i] - oracle[i]) <= chunk_ns_r1 + 1e-9);
  }
}

TEST_CASE("packet: a slow downstream link with a small buffer throttles the upstream link",
          "[packet_engine]") {
  // Flow 1 crosses fast (4 B/ns) then slow (1 B/ns); flow 2 uses the fast link only. With a
  // receiver buffer of 2 chunks behind the fast link, flow 1 can take only the slow link's
  // 1 B/ns of it, and flow 2 gets the other 3 B/ns (the max-min share, as fluid gives):
  // flow 2's 300 kB end at 100 us. With unbounded buffers, round robin gives flow 2 only
  // half of the fast link while flow 1 piles up in front of the slow link: 150 us.
  const std::uint64_t b1 = 256 * 2000, b2 = 300000;
  const std::vector<TimedTransfer> ts = {{0, {0, 1}, b1}, {0, {0}, b2}};
  const double chunk_ns = 256 / 4.0;
  const std::vector<ResourceSpec> small = {link("fast", 4.0, 0.0, 256, 512),
                                           link("slow", 1.0, 0.0)};
  const std::vector<ResourceSpec> big = {link("fast", 4.0, 0.0), link("slow", 1.0, 0.0)};
  const PatternResult throttled = packet(small, ts);
  const PatternResult buffered = packet(big, ts);
  CHECK(std::fabs(throttled.end_ns[1] - b2 / 3.0) <= 2 * chunk_ns);
  CHECK(std::fabs(buffered.end_ns[1] - b2 / 2.0) <= 2 * chunk_ns);
  CHECK(std::fabs(fluid(big, ts).end_ns[1] - b2 / 3.0) <= 1e-6);
  // Flow 1 is paced by the slow link either way: b1 / 1 B/ns plus one fast chunk in front.
  CHECK(std::fabs(throttled.end_ns[0] - (b1 / 1.0 + chunk_ns)) <= 256 / 1.0);
}

TEST_CASE(
    "packet: a credit window over a hop of latency L paces a flow at credits / (2 L + chunk time)",
    "[packet_engine]") {
  // 4 chunks of credit, 1 us latency each way: every 2 L + c / r the window is refilled.
  const double cap = 10.0, lat = 1000.0, c = 256;
  const std::uint64_t credits = 1024, bytes = 1024 * 100;
  const std::vector<ResourceSpec> rs = {link("r", cap, lat, 256, credits)};
  const double rate = credits / (2 * lat + c / cap);
  const double t = packet(rs, {{0, {0}, bytes}}).end_ns[0];
  // 100 windows: 99 full round trips, then the last window's chunks arrive.
  CHECK(std::fabs(t - (99 * (2 * lat + c / cap) + lat + credits / cap)) <= c / cap + 1e-6);
  CHECK(bytes / t == Approx(rate).epsilon(0.02));
}

TEST_CASE("packet: fifo arbitration serves the earlier flow first", "[packet_engine]") {
  const std::vector<ResourceSpec> rs = {link("r", 4.0, 0.0, 256, 0, Arbitration::Fifo)};
  const std::vector<TimedTransfer> ts = {{0, {0}, 4000}, {0, {0}, 4000}};
  const PatternResult p = packet(rs, ts);
  CHECK(p.end_ns[0] == Approx(1000));
  CHECK(p.end_ns[1] == Approx(2000));
}

TEST_CASE("packet: zero-byte and same-IPU transfers, stats and slot reuse", "[packet_engine]") {
  PacketEngine e;
  e.add_resource(link("r", 2.0, 7.0), ResourceFlow{256, 0, Arbitration::Fair});
  std::vector<Arrival> arr;
  e.start(0, {0}, 0);
  e.start(0, {}, 100);
  e.advance(0, arr);
  REQUIRE(arr.size() == 1);  // the empty route arrives at once
  CHECK(arr[0].end_ns == 0);
  arr.clear();
  e.advance(7, arr);
  REQUIRE(arr.size() == 1);
  CHECK(arr[0].end_ns == Approx(7));
  e.start(7, {0}, 1000);
  arr.clear();
  for (double t = e.next_event_ns(); t < PacketEngine::kInf; t = e.next_event_ns())
    e.advance(t, arr);
  REQUIRE(arr.size() == 1);
  CHECK(arr[0].end_ns == Approx(7 + 7 + 500));
  CHECK(e.stats(0).bytes == 1000);
  CHECK(e.stats(0).busy_ns == Approx(500));
  CHECK(e.stats(0).transfers == 2);
  CHECK(e.chunk_hops() == 4);  // 3 x 256 + 232
  CHECK(e.chunk_hops_of({0}, 1000) == 4);
  CHECK(e.active_flows() == 0);
}

TEST_CASE("packet: a link's events at one instant count as one activation", "[packet_engine]") {
  // One hop at 4 B/ns: chunk k of n ends serialising at 64 (k + 1) ns and reaches the
  // destination one latency later, both events of the same link.
  const std::uint64_t n = 16;
  for (const auto& [latency_ns, activations] :
       // 100 ns is no multiple of 64: 2n instants. 128 ns: chunk k arrives when chunk k + 2
       // ends, so the instants are 64, 128, ..., 64 (n + 2): n + 2.
       {std::pair<double, std::uint64_t>{100.0, 2 * n},
        std::pair<double, std::uint64_t>{128.0, n + 2}}) {
    INFO("latency " << latency_ns);
    PacketEngine e;
    e.add_resource(link("a", 4.0, latency_ns), ResourceFlow{256, 0, Arbitration::Fair});
    e.start(0.0, {0}, n * 256);
    std::vector<Arrival> arrivals;
    while (e.next_event_ns() != PacketEngine::kInf) e.advance(e.next_event_ns(), arrivals);
    REQUIRE(arrivals.size() == 1);
    CHECK(arrivals[0].end_ns == Approx(64.0 * n + latency_ns));
    CHECK(e.chunk_hops() == n);
    CHECK(e.link_activations() == activations);
  }
}
