// FlowEngine departures (report_departure): when a flow's last byte has left its source, the
// event a posted sender waits for before its next transfer, checked against closed forms on an
// idle route and under contention.
#include <algorithm>
#include <catch2/catch.hpp>

#include "models/network/flow_engine.hpp"
#include "tests/unit/models/network/resource_spec_helper.hpp"

using namespace ipusim;

namespace {

using ipusim::test::res;

/// Runs the engine event by event until idle; returns departures and arrivals in the order the
/// engine reported them.
std::vector<Arrival> run_to_idle(FlowEngine& e) {
  std::vector<Arrival> all;
  double t = 0;
  e.reallocate(t);
  for (int guard = 0; guard < 1000; ++guard) {
    const double next = e.next_event_ns();
    if (next == FlowEngine::kInf) break;
    t = next;
    e.advance(t, all);
    e.reallocate(t);
  }
  return all;
}

}  // namespace

TEST_CASE("a posted flow departs after its first resource's latency and its drain",
          "[flow_engine][departure]") {
  // Route a (10 B/ns, 100 ns) then b (5 B/ns, 50 ns), 1000 B, no chunking: the flow drains at
  // the bottleneck, 1000 / 5 = 200 ns; its last byte has left the source after a's access
  // (100 ns) and the drain: 300 ns; it arrives after b's latency too: 350 ns.
  FlowEngine e(FlowEngineParams{Arbitration::Fair, 0, 0});
  const ResourceId a = e.add_resource(res("a", 10.0, 100.0));
  const ResourceId b = e.add_resource(res("b", 5.0, 50.0));
  const auto slot = e.start(0, {a, b}, 1000);
  e.report_departure(slot);
  const auto events = run_to_idle(e);
  REQUIRE(events.size() == 2);
  CHECK(events[0].departed);
  CHECK(events[0].end_ns == Approx(300.0));
  CHECK(events[0].start_ns == 0.0);
  CHECK(events[0].bytes == 1000);
  CHECK_FALSE(events[1].departed);
  CHECK(events[1].end_ns == Approx(350.0));
  CHECK(events[1].id == events[0].id);
}

TEST_CASE("a flow without report_departure reports only its arrival", "[flow_engine][departure]") {
  FlowEngine e(FlowEngineParams{Arbitration::Fair, 0, 0});
  const ResourceId a = e.add_resource(res("a", 10.0, 100.0));
  e.start(0, {a}, 1000);
  const auto events = run_to_idle(e);
  REQUIRE(events.size() == 1);
  CHECK_FALSE(events[0].departed);
  CHECK(events[0].end_ns == Approx(200.0));  // 100 + 1000 / 10
}

TEST_CASE("under contention a posted flow departs when its share has drained it",
          "[flow_engine][departure]") {
  // a (4 B/ns, 100 ns) is shared by the posted flow P (a then b, 2000 B) and a plain flow Q
  // (a alone, 1000 B); b (10 B/ns, 40 ns). Max-min: 2 B/ns each until Q has drained at
  // 1000 / 2 = 500 ns; then P has 1000 B left at 4 B/ns: 250 ns more, drain end 750 ns.
  // P departs at 750 + 100 (a's access) = 850 ns and arrives at 750 + 140 = 890 ns; Q arrives
  // at 500 + 100 = 600 ns. A departure on a single-resource route is its arrival instant, and
  // is reported first.
  FlowEngine e(FlowEngineParams{Arbitration::Fair, 0, 0});
  const ResourceId a = e.add_resource(res("a", 4.0, 100.0));
  const ResourceId b = e.add_resource(res("b", 10.0, 40.0));
  const auto p = e.start(0, {a, b}, 2000);
  e.report_departure(p);
  const auto q = e.start(0, {a}, 1000);
  e.report_departure(q);
  const auto events = run_to_idle(e);
  REQUIRE(events.size() == 4);
  // Q: departure and arrival at 600 ns, departure first.
  CHECK(events[0].departed);
  CHECK(events[0].end_ns == Approx(600.0));
  CHECK_FALSE(events[1].departed);
  CHECK(events[1].end_ns == Approx(600.0));
  CHECK(events[0].id == events[1].id);
  // P: departure at 850 ns, arrival at 890 ns.
  CHECK(events[2].departed);
  CHECK(events[2].end_ns == Approx(850.0));
  CHECK_FALSE(events[3].departed);
  CHECK(events[3].end_ns == Approx(890.0));
  CHECK(events[2].id == events[3].id);
  CHECK(e.active_flows() == 0);
}
