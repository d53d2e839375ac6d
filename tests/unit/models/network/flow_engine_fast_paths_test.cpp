// FlowEngine::start_batch fast paths: independent flows drain as groups with the times and
// stats a lone flow has (closed forms below), and a later flow on a grouped resource shares it
// exactly as if the group had never existed.
#include <algorithm>
#include <catch2/catch.hpp>

#include "models/network/flow_engine.hpp"
#include "tests/unit/models/network/resource_spec_helper.hpp"

using namespace ipusim;

namespace {

using ipusim::test::res;

FlowEngineParams params(bool fast) {
  FlowEngineParams p;
  p.fast_paths = fast;
  return p;
}

/// Advances the engine event by event until idle (or until `until_ns`).
void run(FlowEngine& e, std::vector<Arrival>& all, double t, double until_ns = FlowEngine::kInf) {
  e.reallocate(t);
  for (int guard = 0; guard < 100000; ++guard) {
    const double next = e.next_event_ns();
    if (next == FlowEngine::kInf || next > until_ns) break;
    e.advance(next, all);
    e.reallocate(next);
  }
}

}  // namespace

TEST_CASE("fast path: disjoint batch flows arrive at latency + bytes / capacity, as one group each",
          "[flow_engine]") {
  for (const bool fast : {true, false}) {
    FlowEngine e(params(fast));
    const ResourceId a = e.add_resource(res("a", 10.0, 100.0));
    const ResourceId b = e.add_resource(res("b", 5.0, 50.0));
    const ResourceId c = e.add_resource(res("c", 10.0, 100.0));
    const Route ra{a}, rb{b}, rc{c};
    int tag = 0;
    e.start_batch(0, {&ra, &rb, &rc}, {1000, 1000, 1000}, &tag);
    std::vector<Arrival> all;
    run(e, all, 0);
    std::uint32_t flows = 0;
    for (const Arrival& x : all) {
      CHECK(x.tag == &tag);
      flows += x.count;
      // a and c: 100 + 1000 / 10 = 200 ns; b: 50 + 1000 / 5 = 250 ns.
      CHECK(x.end_ns == Approx(x.bytes == 1000 && x.end_ns < 225 ? 200.0 : 250.0));
    }
    CHECK(flows == 3);
    // a and c are one group (same bytes, rate, latency), b another: 2 arrivals, else 3.
    CHECK(all.size() == (fast ? 2u : 3u));
    CHECK(e.grouped_flows() == (fast ? 3u : 0u));
    CHECK(e.flows_started() == 3);
    CHECK(e.active_flows() == 0);
    const ResourceStats sa = e.stats(a, 300), sb = e.stats(b, 300);
    CHECK(sa.bytes == Approx(1000));
    CHECK(sa.busy_ns == Approx(100));
    CHECK(sb.busy_ns == Approx(200));
    CHECK(sa.transfers == 1);
    CHECK(sa.max_concurrent == 1);
  }
}

TEST_CASE("fast path: equal flows sharing one resource form one group at capacity / n",
          "[flow_engine]") {
  // Two 1000 B flows share a (10 B/ns): 5 B/ns each, both drain at 200 ns; their own links
  // b and c (8 B/ns) are faster, so a saturates first for both.
  for (const bool fast : {true, false}) {
    FlowEngine e(params(fast));
    const ResourceId a = e.add_resource(res("a", 10.0, 0.0));
    const ResourceId b = e.add_resource(res("b", 8.0, 0.0));
    const ResourceId c = e.add_resource(res("c", 8.0, 0.0));
    const Route r1{b, a}, r2{c, a};
    e.start_batch(0, {&r1, &r2}, {1000, 1000}, nullptr);
    std::vector<Arrival> all;
    run(e, all, 0);
    CHECK(e.grouped_flows() == (fast ? 2u : 0u));
    std::uint32_t n = 0;
    for (const Arrival& x : all) {
      n += x.count;
      CHECK(x.end_ns == Approx(200));  // no latency, no chunk fill
    }
    CHECK(n == 2);
    CHECK(e.stats(a, 500).max_concurrent == 2);
    CHECK(e.stats(a, 500).transfers == 2);
    CHECK(e.stats(a, 500).bytes == Approx(2000));
    CHECK(e.stats(a, 500).busy_ns == Approx(200));
    CHECK(e.stats(b, 500).bytes == Approx(1000));
  }
}

TEST_CASE("fast path: flows sharing a resource with different sizes take the general path",
          "[flow_engine]") {
  FlowEngine e(params(true));
  const ResourceId a = e.add_resource(res("a", 10.0, 0.0));
  const Route r{a};
  e.start_batch(0, {&r, &r}, {1000, 3000}, nullptr);
  std::vector<Arrival> all;
  run(e, all, 0);
  CHECK(e.grouped_flows() == 0);
  REQUIRE(all.size() == 2);
  std::sort(all.begin(), all.end(), [](const Arrival& x, const Arrival& y) { return x.id < y.id; });
  // 5 B/ns each until the first drains at 200 ns; then 2000 B alone at 10 B/ns: 400 ns.
  CHECK(all[0].end_ns == Approx(200));
  CHECK(all[1].end_ns == Approx(400));
}

TEST_CASE("fast path: a flow starting on a grouped resource shares it exactly", "[flow_engine]") {
  // Flow 1 (batch, grouped) alone on a from t = 0; flow 2 joins at t = 50. Flow 1 has 500 B
  // left and both get 5 B/ns: flow 1 ends draining at 150 (arrives 150 + 100 latency = 250);
  // flow 2 drains 500 B by 150, then 500 B alone at 10 B/ns: 200 (arrives 300).
  for (const bool fast : {true, false}) {
    FlowEngine e(params(fast));
    const ResourceId a = e.add_resource(res("a", 10.0, 100.0));
    const Route r{a};
    e.start_batch(0, {&r}, {1000}, nullptr);
    std::vector<Arrival> all;
    run(e, all, 0, 50);
    e.start(50, r, 1000);
    run(e, all, 50);
    REQUIRE(all.size() == 2);
    std::sort(all.begin(), all.end(),
              [](const Arrival& x, const Arrival& y) { return x.id < y.id; });
    CHECK(all[0].end_ns == Approx(250));
    CHECK(all[1].end_ns == Approx(300));
    CHECK(e.stats(a, 400).bytes == Approx(2000));
    CHECK(e.stats(a, 400).busy_ns == Approx(200));
    CHECK(e.stats(a, 400).max_concurrent == 2);
  }
}

TEST_CASE("fast path: a repeated batch reuses its groups and accumulates stats", "[flow_engine]") {
  FlowEngine e(params(true));
  const ResourceId a = e.add_resource(res("a", 4.0, 10.0));
  const ResourceId b = e.add_resource(res("b", 4.0, 10.0));
  const Route ra{a}, rb{b};
  std::vector<Arrival> all;
  double t = 0;
  for (int step = 0; step < 3; ++step) {
    e.start_batch(t, {&ra, &rb}, {400, 400}, nullptr);
    run(e, all, t);
    t += 200;  // each step: 10 + 400 / 4 = 110 ns
  }
  CHECK(e.grouped_flows() == 6);
  CHECK(all.size() == 3);  // one group per step
  CHECK(all.back().end_ns == Approx(400 + 110));
  CHECK(e.stats(a, 1000).transfers == 3);
  CHECK(e.stats(b, 1000).bytes == Approx(1200));
  CHECK(e.stats(b, 1000).busy_ns == Approx(300));
}

TEST_CASE("fast path: equal flows sharing different resources at the same share form one group",
          "[flow_engine]") {
  // A ring step with two chunks per link: links a and b (8 B/ns, 20 ns) each carry two 800 B
  // flows at 4 B/ns: 20 + 800 / 4 = 220 ns for all four. Link c (12 B/ns) carries three 600 B
  // flows at 4 B/ns too, but a different size: its own group. At t = 100 a flow of 400 B joins
  // link a: a's two batch flows have 400 B left each and all three get 8/3 B/ns on a; the new
  // flow drains 400 B at 8/3 until the others end at 100 + 400 / (8/3) = 250 ns, so all three
  // arrive at 250 + 20 = 270 ns. Link b's flows keep their 220 ns.
  // Without the late flow: one arrival per size (a and b's four flows are one group), else 7.
  for (const bool fast : {true, false}) {
    for (const bool late_flow : {true, false}) {
      FlowEngine e(params(fast));
      const ResourceId a = e.add_resource(res("a", 8.0, 20.0));
      const ResourceId b = e.add_resource(res("b", 8.0, 20.0));
      const ResourceId c = e.add_resource(res("c", 12.0, 20.0));
      const Route ra{a}, rb{b}, rc{c};
      int tag = 0;
      e.start_batch(0, {&ra, &ra, &rb, &rb, &rc, &rc, &rc}, {800, 800, 800, 800, 600, 600, 600},
                    &tag);
      std::vector<Arrival> all;
      run(e, all, 0, 100);
      CHECK(e.grouped_flows() == (fast ? 7u : 0u));
      if (!late_flow) {
        run(e, all, 100);
        CHECK(all.size() == (fast ? 2u : 7u));
        for (const Arrival& x : all) CHECK(x.end_ns == Approx(x.bytes == 600 ? 170.0 : 220.0));
        continue;
      }
      e.start(100, ra, 400);
      run(e, all, 100);
      std::uint32_t on_a = 0, on_b = 0, on_c = 0;
      for (const Arrival& x : all) {
        if (x.bytes == 600) {
          on_c += x.count;
          CHECK(x.end_ns == Approx(20 + 600 / 4.0));
        } else if (x.end_ns > 250) {
          on_a += x.count;
          CHECK(x.end_ns == Approx(270));
        } else {
          on_b += x.count;
          CHECK(x.end_ns == Approx(220));
        }
      }
      CHECK(on_a == 3);
      CHECK(on_b == 2);
      CHECK(on_c == 3);
      CHECK(e.stats(a, 500).bytes == Approx(2000));
      CHECK(e.stats(a, 500).max_concurrent == 3);
      CHECK(e.stats(a, 500).busy_ns == Approx(250));
      CHECK(e.stats(b, 500).busy_ns == Approx(200));
      CHECK(e.stats(c, 500).transfers == 3);
    }
  }
}
