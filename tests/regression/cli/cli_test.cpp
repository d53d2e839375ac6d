// The CLI end to end: every exit code, a misspelt key, determinism of the report outside
// run_info, the written files, and the banner not being shown.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

Json read_json(const std::string& path) { return Json::parse(read_text(path)); }

}  // namespace

TEST_CASE("help and version exit 0", "[cli]") {
  Scratch s;
  const CliResult help = run_cli(s, {"--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("usage: ipusim <command>") != std::string::npos);
  const CliResult version = run_cli(s, {"--version"});
  CHECK(version.exit_code == 0);
  CHECK(version.out.find("ipusim 0.") == 0);
  CHECK(run_cli(s, {"run", "--help"}).exit_code == 0);
}

TEST_CASE("run writes report and resolved config, prints a summary, no banner", "[cli]") {
  Scratch s;
  const CliResult r = run_cli(
      s, {"run", source_path("configs/workloads/allreduce_pod16.json"), "--out", s.path("o")});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("simulated time") != std::string::npos);
  CHECK(r.err.find("Copyright") == std::string::npos);
  CHECK(r.out.find("Copyright") == std::string::npos);
  const Json report = read_json(s.path("o/report.json"));
  CHECK(report["format_version"] == 1);
  CHECK(report["simulated"]["time_ns"].get<double>() > 0);
  CHECK(report.contains("run_info"));
  const Json resolved = read_json(s.path("o/resolved_config.json"));
  CHECK(resolved["workload"]["op"] == "allreduce");
  CHECK(resolved["ipu_link"]["efficiency"] == 0.85);  // defaults and includes resolved
}

TEST_CASE("two runs of one config give identical reports outside run_info", "[cli]") {
  Scratch s;
  const std::string cfg = source_path("configs/workloads/allreduce_pod16.json");
  REQUIRE(run_cli(s, {"run", cfg, "--out", s.path("a"), "--quiet"}).exit_code == 0);
  REQUIRE(run_cli(s, {"run", cfg, "--out", s.path("b"), "--quiet"}).exit_code == 0);
  Json a = read_json(s.path("a/report.json"));
  Json b = read_json(s.path("b/report.json"));
  CHECK(a["run_info"] != b["run_info"]);  // wall time differs...
  a.erase("run_info");
  b.erase("run_info");
  CHECK(a.dump() == b.dump());  // ...everything else is byte-identical
}

TEST_CASE("a misspelt key exits 2 naming the key, the path and a suggestion", "[cli]") {
  Scratch s;
  const std::string cfg = s.write(
      "bad.json",
      R"({"$include": [")" + source_path("configs/systems/pod16.json") +
          R"("], "ipu_link": {"latency_nss": 100}, "workload": {"kind": "collective", "bytes": 1024}})");
  const CliResult r = run_cli(s, {"run", cfg, "--out", s.path("o")});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bad.json") != std::string::npos);
  CHECK(r.err.find("/ipu_link/latency_nss") != std::string::npos);
  CHECK(r.err.find("did you mean 'latency_ns'") != std::string::npos);
}

TEST_CASE("bad input exits 2: missing file, unknown command, bad option, bad override", "[cli]") {
  Scratch s;
  CHECK(run_cli(s, {"run", s.path("missing.json")}).exit_code == 2);
  CHECK(run_cli(s, {"frobnicate"}).exit_code == 2);
  const CliResult typo = run_cli(s, {"colective"});
  CHECK(typo.exit_code == 2);
  CHECK(typo.err.find("unknown command 'colective'; did you mean 'collective'?") !=
        std::string::npos);
  CHECK(run_cli(s, {"run", "--no-such-option"}).exit_code == 2);
  const CliResult r = run_cli(s, {"run", source_path("configs/workloads/allreduce_pod16.json"),
                                  "--set", "workload.bites=4", "--out", s.path("o")});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("did you mean 'bytes'") != std::string::npos);
  const CliResult range = run_cli(s, {"run", source_path("configs/workloads/allreduce_pod16.json"),
                                      "--set", "ipu_link.efficiency=7", "--out", s.path("o")});
  CHECK(range.exit_code == 2);
  CHECK(range.err.find("out of range") != std::string::npos);
}

TEST_CASE("a simulation failure exits 3 and a regression failure exits 1", "[cli]") {
  Scratch s;
  // Exit 3: a simulated-time limit reached before the workload finished.
  const CliResult limited =
      run_cli(s, {"run", source_path("configs/workloads/allreduce_pod16.json"), "--set",
                  "sim.max_time_ns=1000", "--out", s.path("o")});
  CHECK(limited.exit_code == 3);
  CHECK(limited.err.find("simulation error") != std::string::npos);
  CHECK(limited.err.find("max_time_ns") != std::string::npos);
  // A working buffer beyond 2^32 - 1 elements is refused up front as bad input (exit 2).
  const CliResult huge =
      run_cli(s, {"collective", "--system", source_path("configs/systems/pod4.json"), "--elements",
                  "8589934592"});
  CHECK(huge.exit_code == 2);
  CHECK(huge.err.find("2^32 - 1") != std::string::npos);
  // Bad input is still exit 2: more replicas than IPUs.
  CHECK(run_cli(s, {"collective", "--system", source_path("configs/systems/pod4.json"), "--bytes",
                    "1024", "--replicas", "8"})
            .exit_code == 2);
  // Exit 1: regress with a case whose expected time is wrong.
  const std::string dir = s.path("base");
  s.write("base/case.json", R"({"config": ")" +
                                source_path("configs/workloads/allreduce_pod16.json") +
                                R"(", "expected": {"time_ns": 1.0}})");
  CHECK(run_cli(s, {"regress", dir, "--quiet"}).exit_code == 1);
}

TEST_CASE("run with trace writes Perfetto trace events: one process per IPU, link tracks",
          "[cli][trace]") {
  Scratch s;
  REQUIRE(run_cli(s, {"run", source_path("configs/workloads/allreduce_pod16.json"), "--trace",
                      "--out", s.path("t"), "--quiet"})
              .exit_code == 0);
  const Json trace = read_json(s.path("t/trace.json"));
  REQUIRE(trace["traceEvents"].is_array());
  std::set<std::string> processes;
  std::map<int, std::string> names;
  std::size_t complete = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name")
      names[e["pid"].get<int>()] = e["args"]["name"];
    // Shared links carry async slices (concurrent transfers overlap there).
    if (e["ph"] == "b") processes.insert(names.at(e["pid"].get<int>()));
    if (e["ph"] != "X") continue;
    ++complete;  // complete events carry their own duration: begin/end always balance
    CHECK(e["dur"].get<double>() >= 0);
    CHECK(e["ts"].get<double>() >= 0);
    processes.insert(names.at(e["pid"].get<int>()));
  }
  CHECK(complete > 0);
  for (int ipu = 0; ipu < 16; ++ipu) CHECK(processes.count("ipu" + std::to_string(ipu)) == 1);
  CHECK(processes.count("links") == 1);
}

TEST_CASE("a phased training workload's trace has a track per IPU lane, phases and links",
          "[cli][trace]") {
  Scratch s;
  REQUIRE(run_cli(s, {"run", source_path("configs/workloads/mnist_phased.json"), "--trace", "--out",
                      s.path("t"), "--quiet"})
              .exit_code == 0);
  const Json trace = read_json(s.path("t/trace.json"));
  std::map<int, std::string> process_of;
  std::map<std::pair<int, int>, std::string> thread_of;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "M") continue;
    if (e["name"] == "process_name") process_of[e["pid"].get<int>()] = e["args"]["name"];
    if (e["name"] == "thread_name")
      thread_of[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
  }
  std::set<std::string> tracks;
  std::size_t phases = 0;
  for (const auto& e : trace["traceEvents"]) {
    // Shared resources (DDR, links) carry async slices, on tracks named by their category.
    if (e["ph"] == "b")
      tracks.insert(process_of.at(e["pid"].get<int>()) + "/" + e["cat"].get<std::string>());
    if (e["ph"] != "X") continue;
    REQUIRE(e["dur"].get<double>() >= 0);
    const std::string process = process_of.at(e["pid"].get<int>());
    tracks.insert(process + "/" + thread_of.at({e["pid"].get<int>(), e["tid"].get<int>()}));
    if (process == "phases") ++phases;
  }
  // The MNIST tutorial: 2 replicas of 1 IPU, 7 phases, compute and IO-tile lanes.
  CHECK(phases == 7);
  for (const char* ipu : {"ipu0", "ipu1"}) {
    CHECK(tracks.count(std::string(ipu) + "/compute") == 1);
    CHECK(tracks.count(std::string(ipu) + "/io_phase") + tracks.count(std::string(ipu) + "/io") >=
          1);
  }
  CHECK(tracks.count("links/ddr.m0") == 1);
}
