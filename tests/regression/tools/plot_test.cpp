// tools/plot_sweep.py on a hand-made results.json: every plot kind is written as a
// non-empty PNG and SVG.
#include <catch2/catch.hpp>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// results.json of a bytes x algorithm sweep with a memory column, as `sweep` writes it.
Json hand_made_results() {
  Json rows = Json::array();
  const std::vector<std::string> algorithms = {"clockwise", "meet_in_the_middle"};
  int index = 0;
  for (long long bytes : {4096LL, 65536LL, 1048576LL}) {
    for (std::size_t a = 0; a < algorithms.size(); ++a) {
      const double time = 1000.0 + bytes / (a == 0 ? 10.0 : 14.0);
      rows.push_back({{"index", index++},
                      {"workload.bytes", bytes},
                      {"workload.algorithm", algorithms[a]},
                      {"status", "ok"},
                      {"error", ""},
                      {"time_ns", time},
                      {"memory.max_tile_bytes", 1000.0 * (a + 1) + bytes / 4096}});
    }
  }
  rows.push_back({{"index", index},
                  {"workload.bytes", 4096},
                  {"workload.algorithm", "auto"},
                  {"status", "failed"},
                  {"error", "x"},
                  {"time_ns", nullptr},
                  {"memory.max_tile_bytes", nullptr}});
  return {{"format_version", 1},
          {"axes", Json::array({{{"path", "workload.bytes"}, {"values", {4096, 65536, 1048576}}},
                                {{"path", "workload.algorithm"},
                                 {"values", {"clockwise", "meet_in_the_middle", "auto"}}}})},
          {"columns",
           {"index", "workload.bytes", "workload.algorithm", "status", "error", "time_ns",
            "memory.max_tile_bytes"}},
          {"rows", rows}};
}

void check_plot(const Scratch& s, const std::string& stem) {
  for (const char* ext : {".png", ".svg"}) {
    const std::string path = s.path("plots/" + stem + ext);
    INFO(path);
    REQUIRE(fs::is_regular_file(path));
    CHECK(fs::file_size(path) > 1000);
  }
}

}  // namespace

TEST_CASE("plot_sweep.py writes non-empty PNG and SVG files", "[e2e][plot]") {
  Scratch s;
  const std::string results = s.write("results.json", hand_made_results().dump(2));
  const CliResult r =
      run_python(s, {source_path("tools/plot_sweep.py"), results, "--out", s.path("plots")});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  check_plot(s, "time_vs_workload.bytes");
  check_plot(s, "time_vs_message_size");
  check_plot(s, "time_memory_pareto");
  CHECK_THAT(read_text(s.path("plots/time_vs_message_size.svg")), Catch::Contains("<svg"));
}

TEST_CASE("plot_sweep.py honours --x/--series and rejects unknown columns", "[e2e][plot]") {
  Scratch s;
  const std::string results = s.write("results.json", hand_made_results().dump(2));
  const CliResult r =
      run_python(s, {source_path("tools/plot_sweep.py"), results, "--out", s.path("plots"), "--x",
                     "workload.algorithm", "--series", "workload.bytes"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  check_plot(s, "time_vs_workload.algorithm");
  const CliResult bad = run_python(s, {source_path("tools/plot_sweep.py"), results, "--x", "nope"});
  CHECK(bad.exit_code != 0);
  CHECK_THAT(bad.err, Catch::Contains("no column 'nope'"));
}

TEST_CASE("sweep --plot runs the plot script on the sweep's results", "[e2e][plot][sweep]") {
  Scratch s;
  const std::string sweep = s.write(
      "sweep.json",
      R"({"base": ")" + rail_transfer_config() +
          R"(", "axes": [{"path": "workload.steps.0.bytes", "values": [1048576, 2097152]}]})");
  const CliResult r = run_cli(s, {"sweep", sweep, "--out", s.path("plots"), "--plot", "--quiet"});
  INFO(r.out << r.err << read_text(s.path("plots/plot.log")));
  CHECK(r.exit_code == 0);
  check_plot(s, "time_vs_workload.steps.0.bytes");
}
