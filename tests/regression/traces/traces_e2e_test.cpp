// Traces that Perfetto draws as intended: on every thread track the "X" slices nest or follow
// each other, every async slice has one begin and one end, counter samples of a track come
// in time order, and each IPU is one process. Also the --trace-* filters and the byte cap.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/json.hpp"
#include "sim/progress.hpp"
#include "tests/regression/tools/cli_harness.hpp"

namespace ipusim::test {
namespace {

// Timestamps are written in microseconds with 6 decimals: allow one rounding step each.
constexpr double kEpsUs = 2e-6;

struct TraceFacts {
  std::map<int, std::string> process_of;
  std::size_t slices = 0;  ///< X events
  std::size_t async = 0;   ///< b/e pairs
  std::size_t counters = 0;
  std::set<std::string> processes_with_events;
  double min_ts_us = 1e300, max_end_us = -1;
};

/// Checks the invariants of one trace file and returns what it holds.
TraceFacts check_trace(const std::string& path) {
  const Json trace = Json::parse(read_text(path));
  REQUIRE(trace.at("traceEvents").is_array());
  TraceFacts f;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
  std::map<std::string, std::pair<int, double>> open_async;  // id -> (count, begin ts)
  std::map<std::pair<int, std::string>, double> last_counter;
  std::map<std::string, int> process_names;
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e.at("ph");
    if (ph == "M") {
      if (e["name"] == "process_name") {
        f.process_of[e["pid"].get<int>()] = e["args"]["name"];
        ++process_names[e["args"]["name"].get<std::string>()];
      }
      continue;
    }
    if (ph == "i") continue;
    const double ts = e.at("ts").get<double>();
    CHECK(ts >= 0);
    const std::string process = f.process_of.at(e.at("pid").get<int>());
    f.processes_with_events.insert(process);
    if (ph == "X") {
      const double dur = e.at("dur").get<double>();
      CHECK(dur >= 0);
      tracks[{e["pid"].get<int>(), e.at("tid").get<int>()}].push_back({ts, ts + dur});
      ++f.slices;
      f.min_ts_us = std::min(f.min_ts_us, ts);
      f.max_end_us = std::max(f.max_end_us, ts + dur);
    } else if (ph == "b" || ph == "e") {
      const std::string id = e.at("cat").get<std::string>() + "#" + e.at("id").dump();
      auto& [count, begin] = open_async[id];
      if (ph == "b") {
        begin = ts;
        f.min_ts_us = std::min(f.min_ts_us, ts);
      } else {
        CHECK(ts + kEpsUs >= begin);
        f.max_end_us = std::max(f.max_end_us, ts);
        ++f.async;
      }
      ++count;
    } else if (ph == "C") {
      const auto key = std::make_pair(e["pid"].get<int>(), e.at("name").get<std::string>());
      auto it = last_counter.find(key);
      if (it != last_counter.end()) CHECK(ts >= it->second);
      last_counter[key] = ts;
      ++f.counters;
    } else {
      FAIL("unexpected event phase " << ph);
    }
  }
  for (const auto& [id, c] : open_async) {
    INFO(id);
    CHECK(c.first == 2);  // one begin, one end
  }
  for (const auto& [name, n] : process_names) {
    INFO(name);
    CHECK(n == 1);  // one process per IPU (and per other process name)
  }
  // Nesting: sorted by start (longest first on ties), every slice ends before the slice
  // enclosing it ends.
  for (auto& [key, v] : tracks) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<double> stack;
    for (const auto& [s, e] : v) {
      while (!stack.empty() && stack.back() <= s + kEpsUs) stack.pop_back();
      INFO(f.process_of[key.first] << " tid " << key.second << " slice [" << s << ", " << e << "]");
      if (!stack.empty()) CHECK(e <= stack.back() + kEpsUs);
      stack.push_back(e);
    }
  }
  return f;
}

CliResult run_traced(const Scratch& s, const std::string& preset,
                     const std::vector<std::string>& extra) {
  std::vector<std::string> args = {
      "run",       source_path("configs/workloads/" + preset + ".json"),
      "--trace",   "--out",
      s.path("t"), "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli(s, args);
}

void check_preset(const std::string& preset) {
  Scratch s;
  const CliResult r = run_traced(s, preset, {});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const TraceFacts f = check_trace(s.path("t/trace.json"));
  CHECK(f.slices > 0);
  CHECK(f.counters > 0);  // link tier / DDR utilisation
  CHECK(f.processes_with_events.count("ipu0") == 1);
  CHECK(f.processes_with_events.count("utilisation") == 1);
  // A short run on a pipe: no progress line, and never a terminal redraw.
  CHECK(r.err.find("[progress]") == std::string::npos);
  CHECK(r.err.find('\r') == std::string::npos);
}

}  // namespace

TEST_CASE("trace invariants: mnist_phased", "[trace]") { check_preset("mnist_phased"); }
TEST_CASE("trace invariants: allreduce_pod16", "[trace]") { check_preset("allreduce_pod16"); }
TEST_CASE("trace invariants: bert_large_phased_pod64", "[trace]") {
  check_preset("bert_large_phased_pod64");
}
TEST_CASE("trace invariants: mlperf_v1.0_bert_pod16", "[trace]") {
  check_preset("mlperf_v1.0_bert_pod16");
}
TEST_CASE("trace invariants: mlperf_v1.1_resnet50_pod16", "[trace]") {
  check_preset("mlperf_v1.1_resnet50_pod16");
}
TEST_CASE("trace invariants: sharded_weight_pod128", "[trace]") {
  check_preset("sharded_weight_pod128");
}

TEST_CASE("trace of a symmetric 4-domain step: folded as untraced, same report", "[trace][fold]") {
  // GPT-3 175B on a Pod256 (4 Pod64 domains), 2 layers: untraced, its network batches fold
  // onto one domain (models/network/flow_fold.hpp). A trace must not cost the folding (traced
  // runs once did not fold: with the direct small collectives of 1d039db every one of the 256
  // IPUs' flows was simulated, 5x the CPU time): the same flows fold, the same batches are
  // handed over folded, and the report is the untraced one.
  Scratch s;
  std::vector<Json> reports;
  for (const bool traced : {true, false}) {
    std::vector<std::string> args = {
        "run",    source_path("configs/workloads/gpt3_175b_pod256.json"),
        "--set",  "workload.model.transformer.layers=2",
        "--out",  s.path(traced ? "t" : "u"),
        "--quiet"};
    if (traced) args.push_back("--trace");
    const CliResult r = run_cli(s, args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    reports.push_back(Json::parse(read_text(s.path(traced ? "t/report.json" : "u/report.json"))));
  }
  const Json& t = reports[0].at("run_info");
  const Json& u = reports[1].at("run_info");
  CHECK(u.at("network_folded_flows").get<std::uint64_t>() > 0);
  CHECK(t.at("network_folded_flows") == u.at("network_folded_flows"));
  // Absent when 0 (none unfolds here).
  CHECK(t.value("network_unfolded_flows", std::uint64_t{0}) ==
        u.value("network_unfolded_flows", std::uint64_t{0}));
  CHECK(t.at("network_prefolded_batches") == u.at("network_prefolded_batches"));
  reports[0].erase("run_info");
  reports[1].erase("run_info");
  CHECK(reports[0].dump() == reports[1].dump());
  // The utilisation counters still cover all four domains (a representative counts once per
  // member of its cell): the IPU-Link tier is busy at some point, never above its capacity.
  const TraceFacts f = check_trace(s.path("t/trace.json"));
  CHECK(f.counters > 0);
  double peak = 0;
  const Json trace = Json::parse(read_text(s.path("t/trace.json")));
  for (const auto& e : trace.at("traceEvents"))
    if (e.at("ph") == "C" && e.at("name") == "ipu_link utilisation")
      peak = std::max(peak, e.at("args").at("value").get<double>());
  CHECK(peak > 0.25);  // more than one domain's share (1/4 of the links) at once
  CHECK(peak <= 1.0 + 1e-9);
}

TEST_CASE("trace filter: --trace-ipus keeps only the named IPUs' processes", "[trace]") {
  Scratch s;
  REQUIRE(run_traced(s, "allreduce_pod16", {"--trace-ipus", "2-3,7"}).exit_code == 0);
  const TraceFacts f = check_trace(s.path("t/trace.json"));
  std::set<std::string> ipus;
  for (const auto& p : f.processes_with_events) {
    if (p.rfind("ipu", 0) == 0) ipus.insert(p);
  }
  CHECK(ipus == std::set<std::string>{"ipu2", "ipu3", "ipu7"});
}

TEST_CASE("trace filter: --trace-window keeps only events that meet the window", "[trace]") {
  Scratch s;
  // The MNIST step lasts milliseconds; keep 100 us to 200 us.
  REQUIRE(run_traced(s, "mnist_phased", {"--trace-window", "100000:200000"}).exit_code == 0);
  const TraceFacts f = check_trace(s.path("t/trace.json"));
  CHECK(f.slices > 0);
  CHECK(f.max_end_us >= 100.0);
  CHECK(f.min_ts_us <= 200.0);
  // Every slice meets [100, 200] us: none ends before 100 or starts after 200.
  const Json trace = Json::parse(read_text(s.path("t/trace.json")));
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    CHECK(e["ts"].get<double>() + e["dur"].get<double>() >= 100.0 - kEpsUs);
    CHECK(e["ts"].get<double>() <= 200.0 + kEpsUs);
  }
}

TEST_CASE("trace filter: --trace-tiers compute drops link slices and link counters", "[trace]") {
  Scratch s;
  REQUIRE(run_traced(s, "allreduce_pod16", {"--trace-tiers", "compute"}).exit_code == 0);
  const TraceFacts f = check_trace(s.path("t/trace.json"));
  CHECK(f.processes_with_events.count("links") == 0);
  CHECK(f.counters == 0);
}

TEST_CASE("trace cap: --trace-max-bytes stops the trace at the cap, valid, and says so",
          "[trace]") {
  Scratch s;
  const CliResult r = run_traced(s, "bert_large_phased_pod64", {"--trace-max-bytes", "20000"});
  REQUIRE(r.exit_code == 0);
  CHECK(fs::file_size(s.path("t/trace.json")) < 20000 + 400);  // cap + the closing note
  check_trace(s.path("t/trace.json"));
  CHECK(r.err.find("trace stopped at --trace-max-bytes 20000") != std::string::npos);
}

TEST_CASE("bad --trace-* values exit 2 with a message naming the flag", "[trace]") {
  Scratch s;
  for (const auto& [flag, value] :
       std::vector<std::pair<std::string, std::string>>{{"--trace-ipus", "1-x"},
                                                        {"--trace-window", "5"},
                                                        {"--trace-window", "9:3"},
                                                        {"--trace-tiers", "nvlink"}}) {
    const CliResult r = run_traced(s, "mnist_phased", {flag, value});
    INFO(flag << " " << value << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(flag) != std::string::npos);
  }
}

TEST_CASE("the progress line shows simulated time, counts, rate and ETA", "[progress]") {
  CHECK(RunProgress::line(1.5e6, 12, 48, "ops", 2.5e6, 3.25) ==
        "[progress] simulated 1.500 ms, 12/48 ops, 2.50 M events/s, ETA 3.2 s");
  CHECK(RunProgress::line(0, 7, 0, "supersteps", 0, -1) ==
        "[progress] simulated 0.000 ms, 7 supersteps, 0.00 M events/s");
}

/// Sets IPUSIM_PROGRESS_EVERY_S for the CLI runs of one test case (the child inherits it).
struct ProgressEvery {
  explicit ProgressEvery(const char* seconds) { ::setenv("IPUSIM_PROGRESS_EVERY_S", seconds, 1); }
  ~ProgressEvery() { ::unsetenv("IPUSIM_PROGRESS_EVERY_S"); }
};

/// Progress lines ("[progress] ...") on stderr of `ipusim run mnist_phased` with `extra` flags.
std::size_t progress_lines(Scratch& s, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"run", source_path("configs/workloads/mnist_phased.json"),
                                   "--out", s.path("p")};
  args.insert(args.end(), extra.begin(), extra.end());
  const CliResult r = run_cli(s, args);
  REQUIRE(r.exit_code == 0);
  std::size_t lines = 0;
  for (std::size_t at = r.err.find("[progress]"); at != std::string::npos;
       at = r.err.find("[progress]", at + 1)) {
    ++lines;
  }
  return lines;
}

TEST_CASE("progress: a run prints progress lines unless --quiet", "[progress]") {
  // With no wait before the first line, the same run prints progress without --quiet (so the
  // --quiet case below could fail) and none with it.
  Scratch s;
  const ProgressEvery every("0");
  CHECK(progress_lines(s, {}) > 0);
  CHECK(progress_lines(s, {"--quiet"}) == 0);
  CHECK(progress_lines(s, {"-q"}) == 0);
}

TEST_CASE("progress: a run shorter than the first wait prints no progress", "[progress]") {
  // The MNIST step takes well under a second of wall time; with the first line due after an
  // hour it prints nothing, while with no wait (previous case) it prints lines.
  Scratch s;
  const ProgressEvery every("3600");
  CHECK(progress_lines(s, {}) == 0);
}

}  // namespace ipusim::test
