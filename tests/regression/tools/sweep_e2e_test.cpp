// `ipusim sweep` end to end: a 2x2 grid with 2 jobs, a failing point, --resume.
#include <catch2/catch.hpp>
#include <set>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// Writes a sweep over the lone-transfer config with the given axes JSON.
std::string write_sweep(const Scratch& s, const std::string& axes) {
  return s.write("sweep.json", R"({"base": ")" + rail_transfer_config() + R"(", "axes": )" + axes +
                                   R"(, "columns": {"bw": "/workload/steps/0/bandwidth_GBps"}})");
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("a 2x2 sweep with 2 jobs gives 4 rows with the right axis values", "[e2e][sweep]") {
  Scratch s;
  const std::string sweep =
      write_sweep(s, R"([{"path": "workload.steps.0.bytes", "values": [1048576, 4194304]},
                                               {"path": "workload.steps.0.dst_ipu", "values": [1, 2]}])");
  const CliResult r = run_cli(s, {"sweep", sweep, "--jobs", "2", "--out", s.path("out")});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto lines = lines_of(read_text(s.path("out/results.csv")));
  REQUIRE(lines.size() == 5);
  CHECK(lines[0].rfind("index,workload.steps.0.bytes,workload.steps.0.dst_ipu,status,error,time_ns",
                       0) == 0);
  CHECK(lines[1].rfind("0,1048576,1,ok,,", 0) == 0);
  CHECK(lines[2].rfind("1,1048576,2,ok,,", 0) == 0);
  CHECK(lines[3].rfind("2,4194304,1,ok,,", 0) == 0);
  CHECK(lines[4].rfind("3,4194304,2,ok,,", 0) == 0);
  const Json results = cli::read_json_file(s.path("out/results.json"));
  REQUIRE(results["rows"].size() == 4);
  for (const auto& row : results["rows"]) {
    CHECK(row["time_ns"].is_number());
    CHECK(row["time_ns"].get<double>() > 0);
  }
  // More bytes over the same link take longer.
  CHECK(results["rows"][3]["time_ns"].get<double>() > results["rows"][1]["time_ns"].get<double>());
  for (int i = 0; i < 4; ++i)
    CHECK(fs::is_regular_file(s.path("out/points/000" + std::to_string(i) + "/report.json")));
}

TEST_CASE("a point with an invalid value fails alone and the others complete", "[e2e][sweep]") {
  Scratch s;
  const std::string sweep =
      write_sweep(s, R"([{"path": "workload.steps.0.bytes", "values": [1048576, -1, 4194304]}])");
  const CliResult r =
      run_cli(s, {"sweep", sweep, "--jobs", "2", "--out", s.path("out"), "--quiet"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);  // results written, but not every point ran
  const Json results = cli::read_json_file(s.path("out/results.json"));
  REQUIRE(results["rows"].size() == 3);
  CHECK(results["rows"][0]["status"] == "ok");
  CHECK(results["rows"][1]["status"] == "failed");
  CHECK_THAT(results["rows"][1]["error"].get<std::string>(), Catch::Contains("bytes"));
  CHECK(results["rows"][1]["time_ns"].is_null());
  CHECK(results["rows"][2]["status"] == "ok");
  const Json marker = cli::read_json_file(s.path("out/points/0001/done.json"));
  CHECK(marker["status"] == "failed");
  CHECK(marker["exit_code"] == 2);
}

TEST_CASE("resuming reruns nothing that completed", "[e2e][sweep]") {
  Scratch s;
  const std::string sweep =
      write_sweep(s, R"([{"path": "workload.steps.0.bytes", "values": [1048576, 2097152]}])");
  REQUIRE(run_cli(s, {"sweep", sweep, "--out", s.path("out"), "--quiet"}).exit_code == 0);
  const std::string csv = read_text(s.path("out/results.csv"));
  std::vector<fs::file_time_type> before;
  for (const char* p :
       {"out/points/0000/done.json", "out/points/0001/done.json", "out/points/0000/report.json"})
    before.push_back(fs::last_write_time(s.path(p)));

  const CliResult again =
      run_cli(s, {"sweep", sweep, "--out", s.path("out"), "--resume", "--quiet"});
  INFO(again.out << again.err);
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("(0 run, 2 reused)"));
  std::vector<fs::file_time_type> after;
  for (const char* p :
       {"out/points/0000/done.json", "out/points/0001/done.json", "out/points/0000/report.json"})
    after.push_back(fs::last_write_time(s.path(p)));
  CHECK(before == after);
  CHECK(read_text(s.path("out/results.csv")) == csv);  // same table, byte for byte

  // A changed sweep (new values) reruns only the points whose inputs changed.
  write_sweep(s, R"([{"path": "workload.steps.0.bytes", "values": [1048576, 4194304]}])");
  const CliResult changed =
      run_cli(s, {"sweep", sweep, "--out", s.path("out"), "--resume", "--quiet"});
  CHECK_THAT(changed.out, Catch::Contains("(1 run, 1 reused)"));
}

TEST_CASE("a bad sweep file is bad input (exit 2) naming the JSON path", "[e2e][sweep]") {
  Scratch s;
  const std::string sweep = s.write(
      "bad.json",
      R"({"base": ")" + rail_transfer_config() +
          R"(", "mode": "zip", "axes": [{"path": "a", "values": [1]}, {"path": "b", "values": [1, 2]}]})");
  const CliResult r = run_cli(s, {"sweep", sweep, "--out", s.path("out")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/axes/1/values"));
}
