// Guards before work of the collective and sharded_tensor kinds, end to end: the estimate
// (runtime/workloads/collective/collective_estimate.hpp) counts exactly the model events a run
// reports (one per transfer and one per superstep), so a limit one below refuses and the limit
// itself runs; a functional AllReduce that would need ~100 GB of buffers is refused at once.
#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// A config on a POD16 with the given workload object (JSON text) and extra `sim` keys.
std::string pod16_config(const Scratch& s, const std::string& name, const std::string& workload,
                         const std::string& sim) {
  return s.write(name, R"({"$include": [")" + source_path("configs/systems/pod16.json") +
                           R"("], "workload": )" + workload + R"(, "sim": {)" + sim + "}}");
}

double model_events(const Scratch& s, const std::string& out) {
  return cli::read_json_file(s.path(out + "/report.json"))["run_info"]["model_events"]
      .get<double>();
}

// A clockwise ring AllReduce over the 16 replicas: 2 x 15 supersteps of 16 transfers = 510
// events per play.
const char* kRing =
    R"({"kind": "collective", "op": "allreduce", "elements": 1600, "algorithm": "clockwise", "repeat": 20})";

}  // namespace

TEST_CASE(
    "collective guard: events are (16 x 30 transfers + 30 supersteps) x repeat, checked before "
    "running",
    "[reliability][guards]") {
  Scratch s;
  const CliResult refused = run_cli(
      s, {"run", pod16_config(s, "a.json", kRing, R"("max_events": 10199)"), "--out", s.path("a")});
  INFO(refused.out << refused.err);
  CHECK(refused.exit_code == 2);
  for (const char* needle : {"/workload/repeat", "10200 kernel events",
                             "480 transfers + 30 supersteps per play x repeat 20",
                             "/sim/max_events = 10199", "fewer repeats"})
    CHECK(refused.err.find(needle) != std::string::npos);
  CHECK_FALSE(fs::exists(s.path("a/report.json")));

  // At the limit it runs, and the run counts exactly the estimated events.
  const CliResult ok =
      run_cli(s, {"run", pod16_config(s, "b.json", kRing, R"("max_events": 10200)"), "--out",
                  s.path("b"), "-q"});
  INFO(ok.err);
  REQUIRE(ok.exit_code == 0);
  CHECK(model_events(s, "b") == 10200);
}

TEST_CASE("collective guard: a functional AllReduce needing ~100 GB of buffers is refused up front",
          "[reliability][guards]") {
  Scratch s;
  // 64 replicas x 5e7 float32 elements with data: input, working buffer, result and
  // reference of 8-byte doubles = 8 x 64 x 4 x 5e7 B = 102.4 GB = 95.37 GiB.
  const std::string cfg = s.write(
      "f.json",
      R"({"$include": [")" + source_path("configs/systems/pod64.json") +
          R"("], "workload": {"kind": "collective", "op": "allreduce", "elements": 50000000, "data": "iota"},)" +
          R"( "sim": {"max_memory_bytes": 17179869184}})");
  const CliResult r = run_cli(s, {"run", cfg, "--out", s.path("f")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  for (const char* needle :
       {"/workload/data", "at least 95.37 GiB", "functional buffers of 64 replicas",
        "/sim/max_memory_bytes = 16.00 GiB", "use data none"})
    CHECK(r.err.find(needle) != std::string::npos);
}

TEST_CASE(
    "sharded_tensor guard: AllGather + ReduceScatter over 16 replicas = 2 x (15 x 16 + 15) events",
    "[reliability][guards]") {
  Scratch s;
  const char* wl =
      R"({"kind": "sharded_tensor", "elements": 16000, "sharding_domain": "all", "algorithm": "clockwise"})";
  const CliResult refused = run_cli(
      s, {"run", pod16_config(s, "a.json", wl, R"("max_events": 509)"), "--out", s.path("a")});
  INFO(refused.out << refused.err);
  CHECK(refused.exit_code == 2);
  for (const char* needle :
       {"/workload/sharding_domain", "510 kernel events", "480 transfers + 30 supersteps"})
    CHECK(refused.err.find(needle) != std::string::npos);
  const CliResult ok = run_cli(s, {"run", pod16_config(s, "b.json", wl, R"("max_events": 510)"),
                                   "--out", s.path("b"), "-q"});
  INFO(ok.err);
  REQUIRE(ok.exit_code == 0);
  CHECK(model_events(s, "b") == 510);
}
