// FlowEngine without SystemC: max-min fairness, timing, FIFO, credits, slot reuse.
#include "models/network/flow_engine.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "tests/unit/models/network/resource_spec_helper.hpp"

using namespace ipusim;

namespace {

using ipusim::test::res;

/// Runs the engine event by event until idle; returns arrivals by flow id.
std::vector<Arrival> run_to_idle(FlowEngine& e, double t0 = 0) {
  std::vector<Arrival> all;
  double t = t0;
  e.reallocate(t);
  for (int guard = 0; guard < 100000; ++guard) {
    const double next = e.next_event_ns();
    if (next == FlowEngine::kInf) break;
    t = next;
    e.advance(t, all);
    e.reallocate(t);
  }
  std::sort(all.begin(), all.end(), [](const Arrival& a, const Arrival& b) { return a.id < b.id; });
  return all;
}

}  // namespace

TEST_CASE("a lone flow drains at the route bottleneck and pays every latency once",
          "[flow_engine]") {
  FlowEngine e(FlowEngineParams{Arbitration::Fair, 0, 0});
  const ResourceId a = e.add_resource(res("a", 10.0, 100.0));
  const ResourceId b = e.add_resource(res("b", 5.0, 50.0));
  e.start(0, {a, b}, 1000);
  const auto arr = run_to_idle(e);
  REQUIRE(arr.size() == 1);
  CHECK(arr[0].end_ns == Approx(150 + 1000 / 5.0));
  CHECK(e.lone_transfer_ns({a, b}, 1000) == Approx(150 + 1000 / 5.0));
  CHECK(e.stats(a, arr[0].end_ns).bytes == Approx(1000));
  CHECK(e.stats(a, arr[0].end_ns).busy_ns == Approx(200));
}

TEST_CASE("max-min fairness on a parking lot: the long flow gets the smaller share",
          "[flow_engine]") {
  // r1 (cap 1) carries A and B; r2 (cap 2) carries A and C. Max-min: A = B = 0.5, C = 1.5.
  FlowEngine e;
  const ResourceId r1 = e.add_resource(res("r1", 1.0, 0.0));
  const ResourceId r2 = e.add_resource(res("r2", 2.0, 0.0));
  const auto a = e.start(0, {r1, r2}, 1000);
  const auto b = e.start(0, {r1}, 1000);
  const auto c = e.start(0, {r2}, 1000);
  e.reallocate(0);
  CHECK(e.rate_of(a) == Approx(0.5));
  CHECK(e.rate_of(b) == Approx(0.5));
  CHECK(e.rate_of(c) == Approx(1.5));
  const auto arr = run_to_idle(e);
  REQUIRE(arr.size() == 3);
  // C ends first (1000 / 1.5); then A gets min(1 - 0.5, 2) = 0.5 still: A and B end together.
  CHECK(arr[2].end_ns == Approx(1000 / 1.5));
  CHECK(arr[0].end_ns == Approx(2000));
  CHECK(arr[1].end_ns == Approx(2000));
}

TEST_CASE("two equal flows share a resource half and half, and the survivor speeds up",
          "[flow_engine]") {
  FlowEngine e;
  const ResourceId r = e.add_resource(res("r", 4.0, 10.0));
  e.start(0, {r}, 400);
  e.start(0, {r}, 800);
  const auto arr = run_to_idle(e);
  CHECK(arr[0].end_ns == Approx(10 + 400 / 2.0));        // 200 ns at 2 B/ns
  CHECK(arr[1].end_ns == Approx(10 + 200 + 400 / 4.0));  // remaining 400 B at 4 B/ns
}

TEST_CASE("flows over the same resources in any order share as one route", "[flow_engine]") {
  // A crosses a (cap 10) then b (cap 6), B crosses b then a: both bottlenecked on b, 6 / 2 = 3.
  FlowEngine e;
  const ResourceId a = e.add_resource(res("a", 10.0, 0.0));
  const ResourceId b = e.add_resource(res("b", 6.0, 0.0));
  const auto fa = e.start(0, {a, b}, 300);
  const auto fb = e.start(0, {b, a}, 600);
  e.reallocate(0);
  CHECK(e.rate_of(fa) == 3.0);
  CHECK(e.rate_of(fb) == 3.0);
  const auto arr = run_to_idle(e);
  REQUIRE(arr.size() == 2);
  CHECK(arr[0].end_ns == Approx(100));              // 300 B at 3 B/ns
  CHECK(arr[1].end_ns == Approx(100 + 300 / 6.0));  // then 300 B left alone at 6 B/ns
}

TEST_CASE("a flow leaving a longer route: the survivors on one resource share it",
          "[flow_engine]") {
  // L crosses r and s; A and B cross r only. r (cap 3): L = A = B = 1. When L ends, s is
  // dirty with no flow left, and A, B (one route again) get 3 / 2 each.
  FlowEngine e;
  const ResourceId r = e.add_resource(res("r", 3.0, 0.0));
  const ResourceId s = e.add_resource(res("s", 100.0, 0.0));
  e.start(0, {r, s}, 100);
  e.start(0, {r}, 250);
  e.start(0, {r}, 400);
  const auto arr = run_to_idle(e);
  REQUIRE(arr.size() == 3);
  CHECK(arr[0].end_ns == Approx(100));              // L: 100 B at 1 B/ns
  CHECK(arr[1].end_ns == Approx(100 + 150 / 1.5));  // A: 150 B left at 1.5 B/ns
  CHECK(arr[2].end_ns == Approx(200 + 150 / 3.0));  // B: 400 - 100 - 150 at 3 B/ns
  CHECK(e.stats(r, arr[2].end_ns).bytes == Approx(750));
  CHECK(e.stats(s, arr[2].end_ns).bytes == Approx(100));
}

TEST_CASE("fifo arbitration serves flows in start order", "[flow_engine]") {
  FlowEngine e(FlowEngineParams{Arbitration::Fifo, 0, 0});
  const ResourceId r = e.add_resource(res("r", 4.0, 0.0));
  e.start(0, {r}, 400);
  e.start(0, {r}, 400);
  const auto arr = run_to_idle(e);
  CHECK(arr[0].end_ns == Approx(100));
  CHECK(arr[1].end_ns == Approx(200));
}

TEST_CASE("credits cap the rate and chunks add a per-hop fill", "[flow_engine]") {
  FlowEngine e(FlowEngineParams{Arbitration::Fair, 64, 1000});
  const ResourceId a = e.add_resource(res("a", 100.0, 50.0));
  const ResourceId b = e.add_resource(res("b", 100.0, 50.0));
  e.start(0, {a, b}, 10000);
  const auto arr = run_to_idle(e);
  // Credits are per hop: each hop's window returns after 2 x its latency, 1000 / (2 x 50) =
  // 10 B/ns on both, below the 100 B/ns links.
  const double rate = 1000.0 / (2 * 50.0);
  CHECK(arr[0].end_ns == Approx(100 + 64 / 100.0 + 10000 / rate));
}

TEST_CASE("zero-byte and empty-route flows, slot reuse and deterministic ids", "[flow_engine]") {
  FlowEngine e;
  const ResourceId r = e.add_resource(res("r", 1.0, 7.0));
  e.start(0, {r}, 0);
  e.start(0, {}, 100);
  auto arr = run_to_idle(e);
  REQUIRE(arr.size() == 2);
  CHECK(arr[0].end_ns == Approx(7));
  CHECK(arr[1].end_ns == Approx(0));
  for (int i = 0; i < 10; ++i) e.start(100, {r}, 10);
  arr = run_to_idle(e, 100);
  REQUIRE(arr.size() == 10);
  for (const auto& a : arr) CHECK(a.end_ns == Approx(100 + 7 + 100));
  CHECK(e.flows_started() == 12);
  CHECK(e.active_flows() == 0);
}

TEST_CASE("a route crossing a resource twice is rejected", "[flow_engine]") {
  FlowEngine e;
  const ResourceId r = e.add_resource(res("r", 1.0, 0.0));
  CHECK_THROWS(e.start(0, {r, r}, 10));
}
