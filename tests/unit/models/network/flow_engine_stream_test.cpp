// FlowEngine::start_stream: back-to-back repeats restarted inside the engine give the times
// and stats of separate transfers chained by arrival callbacks (hand-worked case, and bit for
// bit against the chain on a shared, multi-resource case); only_internal_events_due().
#include <catch2/catch.hpp>
#include <map>

#include "models/network/flow_engine.hpp"
#include "tests/unit/models/network/resource_spec_helper.hpp"

using namespace ipusim;

namespace {

using ipusim::test::res;

/// The SystemC time (ns) Network wakes at for an engine event at `ns` (ns_to_sc: whole ps).
double wake_ns(double ns) {
  return static_cast<double>(static_cast<long long>(ns * 1000.0 + 0.5)) * 1e-3;
}

/// Network::wake()'s loop, one wake per event time, until idle; `on_arrival(a, t)` runs for
/// every reported arrival in order (a callback; it may start flows at t).
template <class F>
void run_like_network(FlowEngine& e, F on_arrival) {
  std::vector<Arrival> arr;
  e.reallocate(0);
  for (int guard = 0; guard < 1000000; ++guard) {
    const double next = e.next_event_ns();
    if (next == FlowEngine::kInf) return;
    const double t = wake_ns(next);
    for (;;) {
      arr.clear();
      e.advance(t, arr);
      for (const Arrival& a : arr) on_arrival(a, t);
      e.reallocate(t);
      if (e.next_event_ns() > t + FlowEngine::kTolNs) break;
    }
  }
  FAIL("engine did not go idle");
}

/// One stream of the equivalence test.
struct StreamSpec {
  Route route;
  std::uint64_t bytes;
  std::uint64_t count;
};

}  // namespace

TEST_CASE("stream: hand-worked repeats sharing a link with a plain transfer",
          "[flow_engine][stream]") {
  // One link, 1 B/ns, 10 ns latency. X = 2 x 100 B back to back, Y = 300 B, both from t = 0.
  // 0..200: both at 0.5 B/ns; X drains, Y has 200 B left. 200..210: Y alone at 1 B/ns (X is
  // in flight); Y has 190 left. X arrives at 210 and restarts: both at 0.5 until X drains at
  // 410 (Y: 90 left), X arrives at 420. Y alone: drains at 500, arrives at 510.
  FlowEngine e;
  const ResourceId l = e.add_resource(res("l", 1.0, 10.0));
  int x = 0, y = 0;
  e.start_stream(0, {l}, 100, 2, &x);
  e.start(0, {l}, 300, &y);
  CHECK(e.active_streams() == 1);
  std::map<void*, Arrival> got;
  run_like_network(e, [&](const Arrival& a, double) { got[a.tag] = a; });
  REQUIRE(got.size() == 2);
  CHECK(got[&x].end_ns == 420.0);
  CHECK(got[&x].start_ns == 210.0);  // the last repeat's start
  CHECK(got[&y].end_ns == 510.0);
  CHECK(e.flows_started() == 3);
  CHECK(e.active_streams() == 0);
  CHECK(e.active_flows() == 0);
  const ResourceStats s = e.stats(l, 600);
  CHECK(s.bytes == 500.0);
  CHECK(s.busy_ns == 500.0);
  CHECK(s.transfers == 3);
  CHECK(s.max_concurrent == 2);
}

TEST_CASE("stream: only drain ends and restarts are internal instants", "[flow_engine][stream]") {
  // Same case as above: 200 (X drains, arrives later) and 210 (X restarts) are internal; 410
  // is a drain end too; 420 (X's last arrival) and 510 (Y's) are not.
  FlowEngine e;
  const ResourceId l = e.add_resource(res("l", 1.0, 10.0));
  int x = 0, y = 0;
  e.start_stream(0, {l}, 100, 2, &x);
  e.start(0, {l}, 300, &y);
  e.reallocate(0);
  std::vector<Arrival> arr;
  std::vector<std::pair<double, bool>> seen;
  for (int i = 0; i < 10; ++i) {
    const double t = e.next_event_ns();
    if (t == FlowEngine::kInf) break;
    seen.emplace_back(t, e.only_internal_events_due(t));
    e.advance(t, arr);
    e.reallocate(t);
  }
  const std::vector<std::pair<double, bool>> expected = {{200, true},  {210, true}, {410, true},
                                                         {420, false}, {500, true}, {510, false}};
  CHECK(seen == expected);
  // A zero-latency link: the last repeat's drain end is its arrival, so it is not internal.
  FlowEngine z;
  const ResourceId m = z.add_resource(res("m", 2.0, 0.0));
  z.start_stream(0, {m}, 100, 2);
  z.reallocate(0);
  CHECK(z.next_event_ns() == 50.0);
  CHECK(z.only_internal_events_due(50.0));  // the first repeat restarts at once
  z.advance(50.0, arr);
  z.reallocate(50.0);
  CHECK(z.next_event_ns() == 100.0);
  CHECK_FALSE(z.only_internal_events_due(100.0));
}

TEST_CASE("stream: bit-identical to a chain of callbacks on shared multi-hop routes",
          "[flow_engine][stream]") {
  // Streams of different sizes over routes sharing resources in a parking lot (a-b, b-c, a-b-c,
  // b), plus a plain transfer; latencies are not whole ps so wakes round. The chain restarts
  // each repeat from its arrival's callback, as the microbenchmark did before streams.
  const std::vector<StreamSpec> specs = {{{0, 1}, 65536, 7},
                                         {{1, 2}, 69632, 5},
                                         {{0, 1, 2}, 4096, 40},
                                         {{1}, 12345, 11},
                                         {{0, 2}, 1000000, 1}};
  struct Result {
    std::vector<Arrival> last;  // per stream
    std::vector<ResourceStats> stats;
    std::uint64_t flows = 0;
  };
  auto simulate = [&](bool streams) {
    FlowEngine e;
    e.add_resource(res("a", 25.6, 170.3));
    e.add_resource(res("b", 32.0, 100.07));
    e.add_resource(res("c", 12.8, 0.5));
    Result r;
    r.last.resize(specs.size());
    std::vector<std::uint64_t> left(specs.size());
    for (std::size_t i = 0; i < specs.size(); ++i) {
      void* tag = &left[i];
      if (streams && specs[i].count > 1) {
        e.start_stream(0, specs[i].route, specs[i].bytes, specs[i].count, tag);
        left[i] = 1;
      } else {
        e.start(0, specs[i].route, specs[i].bytes, tag);
        left[i] = specs[i].count;
      }
    }
    run_like_network(e, [&](const Arrival& a, double t) {
      const std::size_t i =
          static_cast<std::size_t>(static_cast<std::uint64_t*>(a.tag) - left.data());
      if (--left[i] > 0) {
        e.start(t, specs[i].route, specs[i].bytes, a.tag);
      } else {
        r.last[i] = a;
      }
    });
    for (ResourceId id = 0; id < 3; ++id) r.stats.push_back(e.stats(id, 1e9));
    r.flows = e.flows_started();
    return r;
  };
  const Result chain = simulate(false), stream = simulate(true);
  CHECK(stream.flows == chain.flows);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    INFO("stream " << i);
    CHECK(stream.last[i].id == chain.last[i].id);
    CHECK(stream.last[i].start_ns == chain.last[i].start_ns);
    CHECK(stream.last[i].end_ns == chain.last[i].end_ns);
    CHECK(stream.last[i].end_ns > 0);
  }
  for (std::size_t id = 0; id < 3; ++id) {
    INFO("resource " << id);
    CHECK(stream.stats[id].bytes == chain.stats[id].bytes);
    CHECK(stream.stats[id].busy_ns == chain.stats[id].busy_ns);
    CHECK(stream.stats[id].transfers == chain.stats[id].transfers);
    CHECK(stream.stats[id].max_concurrent == chain.stats[id].max_concurrent);
  }
}

TEST_CASE("stream: needs bytes and a route", "[flow_engine][stream]") {
  FlowEngine e;
  const ResourceId l = e.add_resource(res("l", 1.0, 10.0));
  CHECK_THROWS(e.start_stream(0, {l}, 0, 3));
  CHECK_THROWS(e.start_stream(0, {}, 100, 3));
}
