// Progress watchdog (runtime/exec/watchdog.hpp): a lowered program that cannot progress ends
// sc_start() with the executor not done, and the stall report names the stuck ops, their IPU
// lanes and what they wait for. The lowering never emits such a program (explicit graphs with
// cycles are refused as bad input), so the test builds one by hand: two ops of one phase on
// different lanes, each waiting for the other, which is a receive that no send matches.
#include "runtime/exec/watchdog.hpp"

#include <catch2/catch.hpp>
#include <systemc>

#include "models/params/model_params.hpp"
#include "models/system/system.hpp"
#include "runtime/exec/executor.hpp"
#include "runtime/workloads/runtime_params.hpp"
#include "sim/output.hpp"
#include "tests/component/models/model_fixture.hpp"

using namespace ipusim;
using namespace ipusim::rt;

namespace {

LOp compute_op(const std::string& label, Lane lane, std::vector<int> deps) {
  LOp op;
  op.kind = LKind::Compute;
  op.lane = lane;
  op.label = label;
  op.flops = 1e6;
  op.deps = std::move(deps);
  return op;
}

}  // namespace

TEST_CASE("watchdog: two ops waiting for each other stop the executor and are named",
          "[runtime][watchdog]") {
  register_sim_params();
  register_model_params();
  register_runtime_params();
  ConfigDoc doc = ConfigDoc::from_json(
      ConfigDoc::load_file(test::source_dir() + "/configs/systems/pod4.json").root(), "watchdog");
  auto system = build_system(doc);
  Program program;
  LPhase ok;  // phase 0 completes: one op
  ok.ops = {compute_op("warm_up", Lane::Compute, {})};
  LPhase stuck;  // phase 1: op 1 waits for op 2 on the IO lane, which waits for op 1
  stuck.index = 1;
  stuck.ops = {compute_op("independent", Lane::Compute, {}),
               compute_op("recv_grad", Lane::Compute, {2}),
               compute_op("send_grad", Lane::IoPhase, {1})};
  program.phases = {ok, stuck};
  Executor ex("executor", *system, program, 1, 1, ExecutorOptions{});
  sc_core::sc_start();
  CHECK_FALSE(ex.done());
  CHECK(ex.failure().empty());
  const std::string report = ex.stall_report();
  INFO(report);
  CHECK(report.find("phase 1 (PopART phase 1, repetition 0)") != std::string::npos);
  CHECK(report.find("op 1 'recv_grad' (virtual graph 0, lane compute) waits for op 2 'send_grad', "
                    "not done") != std::string::npos);
  CHECK(report.find("op 2 'send_grad' (virtual graph 0, lane io_phase) waits for op 1 'recv_grad', "
                    "not done") != std::string::npos);
  CHECK(report.find("independent") == std::string::npos);  // it completed
}

TEST_CASE("watchdog: describe_stall is empty for a completed phase and lists lanes in order",
          "[runtime][watchdog]") {
  Program program;
  LPhase ph;
  ph.ops = {compute_op("a", Lane::Compute, {}), compute_op("b", Lane::Io, {0})};
  program.phases = {ph};
  CHECK(describe_stall(program, 0, {1, 1}).empty());
  CHECK(describe_stall(program, 5, {}).empty());
  const std::string s = describe_stall(program, 0, {0, 0});
  INFO(s);
  CHECK(
      s.find("op 0 'a' (virtual graph 0, lane compute) is next on its lane but did not complete") !=
      std::string::npos);
  CHECK(s.find("op 1 'b' (virtual graph 0, lane io) waits for op 0 'a', not done") !=
        std::string::npos);
}
