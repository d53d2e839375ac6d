// The network model table: the two models by name with their capabilities, the registry's
// `/sim/network_model` generated from the table, and each model timing a lone transfer
// through the NetworkEngine interface to its closed form (the packet model's links are modules
// with processes of their own, so the test runs SystemC before taking the host's wakes).
#include "models/network/network_engine.hpp"

#include <catch2/catch.hpp>
#include <systemc>

#include "models/params/model_params.hpp"
#include "resource_spec_helper.hpp"
#include "sim/errors.hpp"
#include "sim/params.hpp"

using namespace ipusim;

namespace {

/// Collects arrivals; no other process is ever due (run-ahead may run to the end).
struct RecordingHost : NetworkHost {
  std::vector<Arrival> arrivals;
  void deliver(const std::vector<Arrival>& a) override {
    arrivals.insert(arrivals.end(), a.begin(), a.end());
  }
  std::uint64_t ps_to_next_activity() const override { return 1'000'000'000; }
  void wake_soon() override {}  // drive() takes a wake after SystemC has run
};

/// Runs `model` as the Network would: a wake now, then one at each next event.
/// Models with processes of their own (packet: one per link) run them to the end first.
void drive(NetworkEngine& model, RecordingHost& host, bool has_processes) {
  if (has_processes) sc_core::sc_start();
  std::uint64_t now_ps = sc_core::sc_time_stamp().value();
  for (int wakes = 0; wakes < 1000; ++wakes) {
    const std::uint64_t resume = model.run(now_ps, 0, host);
    const double next = model.next_event_ns();
    if (resume == NetworkEngine::kNoResume && next == FlowEngine::kInf) return;
    now_ps = resume != NetworkEngine::kNoResume
                 ? resume
                 : static_cast<std::uint64_t>(static_cast<long long>(next * 1000.0 + 0.5));
  }
  FAIL("the model did not finish in 1000 wakes");
}

}  // namespace

TEST_CASE("the network model table names fluid (default) and packet with their capabilities",
          "[network][models]") {
  const auto& table = network_models();
  REQUIRE(table.size() == 2);
  CHECK(std::string(table[0].name) == "fluid");
  CHECK(std::string(table[1].name) == "packet");
  CHECK_FALSE(network_model("fluid").moves_chunks);
  CHECK(network_model("packet").moves_chunks);

  FlowEngineParams params;
  params.chunk_bytes = 256;  // the packet model needs a chunk size
  FlowEngine resources(params);
  resources.add_resource(test::res("l", 2.0, 100.0));
  NetworkOptions options;
  auto fluid = network_model("fluid").make(resources, options);
  auto packet = network_model("packet").make(resources, options);
  // Without a hardware hierarchy to place them, the packet model's link modules are made here.
  CHECK_FALSE(fluid->place(0, "l"));
  packet->place_rest();
  CHECK(std::string(fluid->name()) == "fluid");
  CHECK(fluid->can_replay());
  CHECK(fluid->can_stream());
  CHECK_FALSE(fluid->has_work_budget());
  CHECK(std::string(packet->name()) == "packet");
  CHECK_FALSE(packet->can_replay());
  CHECK_FALSE(packet->can_stream());
  CHECK(packet->has_work_budget());
  CHECK_THROWS_AS(packet->start_stream(0, {0}, 100, 2, nullptr), SimulationError);
  CHECK_THROWS_AS(packet->credit_replay(1, {}), SimulationError);
}

TEST_CASE("an unknown network model name lists the table's names", "[network][models]") {
  try {
    network_model("flud");
    FAIL("no error");
  } catch (const SimulationError& e) {
    CHECK(std::string(e.what()) == "unknown network model 'flud': expected one of fluid, packet");
  }
}

TEST_CASE("/sim/network_model takes its choices and default from the table", "[network][models]") {
  register_model_params();
  const ParamSpec* spec = ParamRegistry::instance().find("/sim/network_model");
  REQUIRE(spec != nullptr);
  CHECK(spec->choices == std::vector<std::string>{"fluid", "packet"});
  CHECK(spec->default_value == "fluid");
  for (const NetworkModelInfo& m : network_models())
    CHECK(spec->description.find(std::string(m.name) + ": ") != std::string::npos);
}

TEST_CASE("both models time a lone transfer to latency + bytes / capacity", "[network][models]") {
  // One resource of 2 B/ns and 100 ns; 1000 bytes in 256-byte chunks (the last one 232):
  // fluid drains at 2 B/ns, packet serialises the four chunks back to back at 2 B/ns; both
  // arrive one latency after the last byte has been sent: 100 + 1000 / 2 = 600 ns.
  // Beside it, on resources of its own, a posted transfer (report_departure) of 1000 B over p
  // (2 B/ns, 100 ns) then q (1 B/ns, 50 ns), whose departure is when its last byte has left p
  // (p's latency included). Fluid: the flow drains at the bottleneck, 1000 / 1 = 1000 ns, so it
  // departs at 1000 + 100 = 1100 ns and arrives at 100 + 50 + 256 / 1 (one chunk of fill) +
  // 1000 = 1406 ns. Packet: p sends its four chunks at its own rate (no credits), the last
  // ending at 1000 / 2 = 500 ns: departure 600 ns; they reach q at 228, 356, 484 and 600 ns,
  // q serialises them at 1 B/ns from 228 (q is then never idle): 228 + 1000 = 1228, + 50 ns.
  // This test makes the SystemC modules of the packet model: no other test may follow it with
  // another packet model (a module cannot be made once SystemC has run).
  for (const char* name : {"fluid", "packet"}) {
    INFO(name);
    const bool packet = std::string(name) == "packet";
    FlowEngineParams params;
    params.chunk_bytes = 256;
    FlowEngine resources(params);
    resources.add_resource(test::res("l", 2.0, 100.0));
    resources.add_resource(test::res("p", 2.0, 100.0));
    resources.add_resource(test::res("q", 1.0, 50.0));
    auto model = network_model(name).make(resources, NetworkOptions{});
    model->place_rest();
    int tag = 0, posted = 0;
    RecordingHost host;
    model->attach(host);
    model->start(0, {0}, 1000, &tag);
    model->report_departure(model->start(0, {1, 2}, 1000, &posted));
    drive(*model, host, packet);  // fluid first: no sc_start before
    REQUIRE(host.arrivals.size() == 3);
    CHECK(host.arrivals[0].end_ns == Approx(600.0).margin(1e-9));
    CHECK(host.arrivals[0].tag == &tag);
    CHECK_FALSE(host.arrivals[0].departed);
    CHECK(host.arrivals[1].tag == &posted);
    CHECK(host.arrivals[1].departed);
    CHECK(host.arrivals[1].end_ns == Approx(packet ? 600.0 : 1100.0).margin(1e-9));
    CHECK(host.arrivals[2].tag == &posted);
    CHECK_FALSE(host.arrivals[2].departed);
    CHECK(host.arrivals[2].end_ns == Approx(packet ? 1278.0 : 1406.0).margin(1e-9));
    CHECK(model->flows_started() == 2);
    CHECK(model->resource_stats(0, 600.0).transfers == 1);
    CHECK(model->resource_stats(0, 600.0).bytes == Approx(1000.0));
  }
}

TEST_CASE("the packet model's budget work is its chunk hops", "[network][models]") {
  FlowEngineParams params;
  params.chunk_bytes = 256;
  FlowEngine resources(params);
  resources.add_resource(test::res("a", 2.0, 100.0));
  resources.add_resource(test::res("b", 2.0, 100.0));
  // ceil(1000 / 256) = 4 chunks on each of the two hops.
  auto packet = network_model("packet").make(resources, NetworkOptions{});
  packet->place_rest();
  CHECK(packet->work_of({0, 1}, 1000) == 8.0);
}

TEST_CASE("packet: a credit back at a busy link wakes nothing", "[network][models]") {
  // One link of 4 B/ns and 10 ns, 256-byte chunks, a 512-byte receiver buffer (two chunks),
  // 16 chunks. Chunk k is serialised over [64k, 64(k + 1)], delivered 10 ns later and its
  // credit is back 20 ns after its end: before the link needs it (64(k + 2)), so the link sends
  // back to back and the flow arrives at 64 x 16 + 10 = 1034 ns. Every event falls on an
  // instant of its own: 16 ends of serialisation, 16 deliveries, 16 credits. The first 15
  // credits come back while the next chunk is being serialised and are taken at that chunk's
  // end; only the last, back at 1044 ns on an idle link, wakes it: 16 + 16 + 1 = 33 activations
  // (48 if every credit woke the link).
  FlowEngineParams params;
  params.chunk_bytes = 256;
  params.credits_bytes = 512;
  FlowEngine resources(params);
  resources.add_resource(test::res("l", 4.0, 10.0));
  auto model = network_model("packet").make(resources, NetworkOptions{});
  model->place_rest();
  RecordingHost host;
  model->attach(host);
  model->start(0, {0}, 16 * 256, nullptr);
  drive(*model, host, true);
  REQUIRE(host.arrivals.size() == 1);
  CHECK(host.arrivals[0].end_ns == Approx(1034.0).margin(1e-9));
  CHECK(model->resource_stats(0, 1034.0).busy_ns == Approx(1024.0));
  Json stats;
  model->collect_stats(stats);
  CHECK(stats["chunk_hops"].get<std::uint64_t>() == 16);
  CHECK(stats["link_activations"].get<std::uint64_t>() == 33);
}

TEST_CASE("packet: a chunk reaching a busy link wakes nothing", "[network][models]") {
  // Link a (4 B/ns, 10 ns) feeds link b (2 B/ns, 10 ns); 256-byte chunks, no credits, 4
  // chunks. a sends chunk k over [64k, 64(k + 1)]: 4 activations (64, 128, 192, 256); the
  // chunks reach b at 74, 138, 202, 266. b, idle at 74, serialises them back to back in 128 ns
  // each: over [74, 202], [202, 330], [330, 458], [458, 586]; the last reaches the far end at
  // 596 (without credits only that delivery is an event). The chunks at 138 and 266 reach a
  // busy b and are taken at its next end of serialisation (the one at 202 falls on such an
  // end anyway): b is woken at 74, 202, 330, 458, 586 and 596. 4 + 6 = 10 activations (12 if
  // every arrival woke b).
  FlowEngineParams params;
  params.chunk_bytes = 256;
  FlowEngine resources(params);
  resources.add_resource(test::res("a", 4.0, 10.0));
  resources.add_resource(test::res("b", 2.0, 10.0));
  auto model = network_model("packet").make(resources, NetworkOptions{});
  model->place_rest();
  RecordingHost host;
  model->attach(host);
  model->start(0, {0, 1}, 4 * 256, nullptr);
  drive(*model, host, true);
  REQUIRE(host.arrivals.size() == 1);
  CHECK(host.arrivals[0].end_ns == Approx(596.0).margin(1e-9));
  Json stats;
  model->collect_stats(stats);
  CHECK(stats["chunk_hops"].get<std::uint64_t>() == 8);
  CHECK(stats["link_activations"].get<std::uint64_t>() == 10);
}
