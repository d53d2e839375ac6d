// StepMemo on a hand-built three-resource network: a recorded batch and its replays take the
// hand-worked time and add the hand-worked stats per repeat; a batch is timed from its own
// start whenever it starts on an idle network (the network's time origin); nothing is
// replayed while a flow is in flight. One elaboration.
#include "runtime/exec/step_memo.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <systemc>

#include "models/network/network.hpp"

using namespace ipusim;

namespace {

std::vector<ResourceSpec> resources() {
  // r0: 10 B/ns, 100 ns; r1: 8 B/ns, 50 ns; r2: 10 B/ns, no latency. No chunk fill (chunk 0).
  std::vector<ResourceSpec> specs(3);
  const double capacity_Bpns[] = {10.0, 8.0, 10.0}, latency_ns[] = {100.0, 50.0, 0.0};
  for (std::size_t i = 0; i < specs.size(); ++i) {
    specs[i].name = "r" + std::to_string(i);
    specs[i].capacity_Bpns = capacity_Bpns[i];
    specs[i].latency_ns = latency_ns[i];
  }
  return specs;
}

struct Driver : sc_core::sc_module {
  SC_HAS_PROCESS(Driver);
  explicit Driver(sc_core::sc_module_name name)
      : sc_core::sc_module(name),
        net("net", resources(), FlowEngineParams{}, NetworkOptions{"fluid", 0}) {
    SC_THREAD(run);
  }

  /// A over r0 then r1 (1000 B), B over r0 (500 B), C over r2 (500 B). r0 is shared: A and B
  /// get 5 B/ns each until B has drained at 100 ns; A then runs at r1's 8 B/ns and drains its
  /// last 500 B by 162.5 ns, arriving 150 ns later at 312.5 ns; B arrives at 200 ns, C at 50 ns.
  void run() {
    const Route a{0, 1}, b{0}, c{2};
    const std::vector<const Route*> routes{&a, &b, &c};
    const std::vector<std::uint64_t> bytes{1000, 500, 500};
    StepMemo memo(net);
    sc_core::wait(1234567, sc_core::SC_PS);  // an odd start: times count from the batch's start
    CHECK_FALSE(memo.can_replay());
    std::uint64_t t0 = sc_core::sc_time_stamp().value();
    memo.play_and_record(routes, bytes);
    recorded_ps = sc_core::sc_time_stamp().value() - t0;
    for (int i = 0; i < 3; ++i) {
      CHECK(memo.can_replay());
      t0 = sc_core::sc_time_stamp().value();
      memo.replay();
      replayed_ps.push_back(sc_core::sc_time_stamp().value() - t0);
    }
    memo.flush();
    replays = memo.replayed();
    for (ResourceId id = 0; id < 3; ++id) after_four.push_back(net.resource_stats(id));
    flows_after_four = net.engine().flows_started();

    // The same batch played again later, at another odd time, takes the same time.
    sc_core::wait(777777, sc_core::SC_PS);
    t0 = sc_core::sc_time_stamp().value();
    net.transfer_batch(routes, bytes);
    again_ps = sc_core::sc_time_stamp().value() - t0;

    // A flow in flight: the network is not idle and nothing may be replayed.
    CHECK(memo.can_replay());
    sc_core::sc_event done;
    net.start(TransferRequest{a, 1000},
              [&done](const TransferResult&) { done.notify(sc_core::SC_ZERO_TIME); });
    busy_refused = !net.idle() && !memo.can_replay();
    sc_core::wait(done);
    idle_at_end = net.idle();
  }
  bool busy_refused = false, idle_at_end = false;

  Network net;
  std::uint64_t recorded_ps = 0, again_ps = 0, flows_after_four = 0, replays = 0;
  std::vector<std::uint64_t> replayed_ps;
  std::vector<ResourceStats> after_four;
};

}  // namespace

TEST_CASE("step memo: replays take the recorded step's time and credit its stats per repeat",
          "[step_memo]") {
  Driver d("driver");
  sc_core::sc_start();
  CHECK(d.recorded_ps == 312500);
  REQUIRE(d.replayed_ps.size() == 3);
  for (std::uint64_t ps : d.replayed_ps) CHECK(ps == 312500);
  CHECK(d.again_ps == 312500);
  CHECK(d.replays == 3);
  CHECK(d.busy_refused);
  CHECK(d.idle_at_end);
  CHECK(d.flows_after_four == 12);
  REQUIRE(d.after_four.size() == 3);
  // Four steps: r0 carried 1500 B and was busy 162.5 ns each, r1 1000 B for 162.5 ns (A drains
  // from 0 to 162.5 ns), r2 500 B for 50 ns.
  CHECK(d.after_four[0].bytes == 6000);
  CHECK(d.after_four[0].busy_ns == Approx(650.0).margin(1e-9));
  CHECK(d.after_four[0].transfers == 8);
  CHECK(d.after_four[0].max_concurrent == 2);
  CHECK(d.after_four[1].bytes == 4000);
  CHECK(d.after_four[1].busy_ns == Approx(650.0).margin(1e-9));
  CHECK(d.after_four[1].transfers == 4);
  CHECK(d.after_four[1].max_concurrent == 1);
  CHECK(d.after_four[2].bytes == 2000);
  CHECK(d.after_four[2].busy_ns == Approx(200.0).margin(1e-9));
  CHECK(d.after_four[2].transfers == 4);
}
