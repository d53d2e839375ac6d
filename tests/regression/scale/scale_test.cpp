// Past the largest Pod (issue 28), end to end through the CLI:
// - exactness: the fast paths (the step memo and its symmetry: one representative of every
//   class of identical components played, runtime/exec/step_symmetry.hpp) give byte-identical
//   reports to the general path on leaf/spine and switched systems up to 4,096 IPUs, for the
//   three-tier and two-tier hierarchical collectives and CommGroups spanning leaves;
// - the closed form 2(N-1)(alpha + S/(N B)) of a clockwise ring AllReduce's IPU-Link time on a
//   uniform ring (one IPU-Link torus of N IPUs), at every N from 4 to 64, computed here from the
//   resolved parameters;
// - `auto` and `best` on the leaf/spine presets.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "sim/json.hpp"
#include "tests/regression/tools/cli_harness.hpp"

namespace ipusim::test {
namespace {

/// `ipusim collective ARGS --out DIR --quiet`: the report (without run_info) and the resolved
/// config.
std::pair<Json, Json> collective(const Scratch& scratch, const std::string& name,
                                 std::vector<std::string> args) {
  args.insert(args.begin(), "collective");
  for (const char* a : {"--quiet", "--out"}) args.push_back(a);
  args.push_back(scratch.path(name));
  const CliResult r = run_cli(scratch, args);
  INFO(name << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  Json report = Json::parse(read_text(scratch.path(name + "/report.json")));
  REQUIRE(report.contains("run_info"));
  report.erase("run_info");
  return {report, Json::parse(read_text(scratch.path(name + "/resolved_config.json")))};
}

/// The same collective with the fast paths on and off gives the same report, byte for byte.
Json check_fast_paths_exact(std::vector<std::string> args) {
  Scratch scratch;
  std::vector<std::string> off = args;
  off.insert(off.end(), {"--set", "sim.fast_paths=false"});
  const Json on_report = collective(scratch, "on", args).first;
  const Json off_report = collective(scratch, "off", off).first;
  CHECK(on_report.dump() == off_report.dump());
  // The network really ran: GW-Link time (the comparison is not between two empty reports).
  CHECK(on_report.at("workload").at("time_by_tier_ns").at("gw_link").get<double>() > 0);
  return on_report;
}

}  // namespace

TEST_CASE("scale: three-tier AllReduce over 4,096 IPUs on leaf/spine is exact with fast paths",
          "[scale]") {
  // 64 Pod64 under 16 leaves: the ILD phases have 64 identical domains, the leaf phases 16
  // identical leaves, the spine phase one component.
  const Json r = check_fast_paths_exact({"--system", "pod1024", "--set", "system.num_ilds=64",
                                         "--bytes", "16MiB", "--algorithm", "hierarchical"});
  const Json& phases = r.at("workload").at("time_by_phase_ns");
  CHECK(phases.contains("leaf_reduce_scatter"));
  CHECK(phases.contains("spine_all_reduce"));
  CHECK(r.at("workload").at("replicas") == 4096);
}

TEST_CASE("scale: three-tier ReduceScatter and AllGather on pod1024 are exact with fast paths",
          "[scale]") {
  for (const char* op : {"reduce_scatter", "all_gather"}) {
    INFO(op);
    const Json r = check_fast_paths_exact(
        {"--system", "pod1024", "--op", op, "--bytes", "1MiB", "--algorithm", "hierarchical"});
    CHECK(r.at("workload").at("time_by_phase_ns").size() == 3);  // ILD, leaf, spine
  }
}

TEST_CASE("scale: stride-64 groups across the leaves (GPT-3's data-parallel groups) are exact",
          "[scale]") {
  // 64 groups of 16 replicas, one per domain: leaf rings of 4 domains, spine rings of 4 leaves.
  const Json r = check_fast_paths_exact({"--system", "pod1024", "--stride", "64", "--group-size",
                                         "16", "--bytes", "1MiB", "--algorithm", "hierarchical"});
  CHECK(r.at("workload").at("num_groups") == 64);
  CHECK(r.at("workload").at("time_by_phase_ns").contains("leaf_reduce_scatter"));
}

TEST_CASE("scale: two-tier AllReduce over 4,096 IPUs on one switch is exact with fast paths",
          "[scale]") {
  check_fast_paths_exact({"--system", source_path("configs/systems/multipod.json"), "--bytes",
                          "4MiB", "--algorithm", "hierarchical"});
}

TEST_CASE("scale: a clockwise ring AllReduce follows 2(N-1)(alpha + S/(N B)) at every N",
          "[scale]") {
  // One IPU-Link torus of N = 4 x machines IPUs: every ring hop is one rail or rung link of
  // the same bandwidth B and latency alpha, so each of the 2(N-1) steps moves S/N bytes per
  // link. The IPU-Link time is that closed form; the total adds a sync, the fixed exchange
  // overhead per step and N-1 reductions (not re-derived here).
  Scratch scratch;
  const double bytes = 3 * (1 << 20);  // S: not a power of two, so S/N is not always whole
  for (const int machines : {1, 2, 4, 8, 16}) {
    const auto [report, resolved] = collective(
        scratch, "ring" + std::to_string(machines),
        {"--system", "pod16", "--set", "system.machines_per_ild=" + std::to_string(machines),
         "--bytes", std::to_string(static_cast<long>(bytes)), "--algorithm", "clockwise"});
    const Json& w = report.at("workload");
    const double n = 4.0 * machines;
    const Json& l = resolved.at("ipu_link");
    const double alpha = l.at("latency_ns").get<double>();
    const double link_Bpns = l.at("up_links").get<double>() *
                             l.at("bandwidth_GBps_per_link").get<double>() *
                             l.at("efficiency").get<double>();
    const double expected = 2 * (n - 1) * (alpha + bytes / (n * link_Bpns));
    INFO("N = " << n);
    CHECK(w.at("replicas").get<double>() == n);
    CHECK(w.at("steps").get<double>() == 2 * (n - 1));
    // Each step's time is rounded to the picosecond.
    CHECK(w.at("time_by_tier_ns").at("ipu_link").get<double>() ==
          Approx(expected).margin(2 * (n - 1) * 1e-3));
  }
}

TEST_CASE("scale: auto picks the three-tier hierarchical algorithm on pod16k and pod64k",
          "[scale]") {
  Scratch scratch;
  for (const char* preset : {"pod16k", "pod64k"}) {
    INFO(preset);
    // --json prints the workload's results (the whole report has 300 k link entries, which an
    // ordered JSON parser reads in quadratic time).
    const CliResult r = run_cli(scratch, {"collective", "--system", preset, "--bytes", "1MiB",
                                          "--algorithm", "auto", "--json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const Json w = Json::parse(r.out);
    CHECK(w.at("algorithm") == "hierarchical");
    CHECK(w.at("requested_algorithm") == "auto");
    CHECK(w.at("replicas") == (std::string(preset) == "pod16k" ? 16384 : 65536));
    // ILD, leaf and spine tiers, both ways.
    CHECK(w.at("time_by_phase_ns").size() == 5);
  }
}

TEST_CASE("scale: best on pod1024 takes the fastest candidate and skips one too large", "[scale]") {
  Scratch scratch;
  const Json hier =
      collective(scratch, "hier",
                 {"--system", "pod1024", "--bytes", "1MiB", "--algorithm", "hierarchical"})
          .first.at("workload");
  // The direct candidate has 1,024 x 1,023 transfers in each of its 2 steps: at least 300 B
  // each, 314 MB, more than a 256 MiB limit, so it is not tried (on pod16k it would need
  // 268 M transfers in a step).
  const Json w = collective(scratch, "best",
                            {"--system", "pod1024", "--bytes", "1MiB", "--algorithm", "best",
                             "--set", "sim.max_memory_bytes=256MiB"})
                     .first.at("workload");
  CHECK(w.at("algorithm") == "hierarchical");
  // The played collective is the hierarchical one, simulated on its own above.
  CHECK(w.at("time_ns").get<double>() == hier.at("time_ns").get<double>());
  const Json& best = w.at("best");
  CHECK(best.at("chosen_time_ns").get<double>() == hier.at("time_ns").get<double>());
  CHECK(best.at("candidates").size() == 5);  // the rings and hierarchical
  for (const Json& c : best.at("candidates"))
    CHECK(c.at("time_ns").get<double>() >= best.at("chosen_time_ns").get<double>());
  bool direct_skipped = false;
  for (const Json& c : best.at("not_applicable")) {
    if (c.at("algorithm") != "direct") continue;
    direct_skipped = true;
    CHECK(c.at("reason").get<std::string>().find("/sim/max_memory_bytes") != std::string::npos);
  }
  CHECK(direct_skipped);
}

}  // namespace ipusim::test
