// The sweep's result table: rows from reports, column order, CSV quoting, Pareto front,
// point folders and resume markers.
#include "tools/sweep/sweep_results.hpp"

#include <catch2/catch.hpp>

#include "tools/sweep/sweep_pareto.hpp"
#include "tools/sweep/sweep_progress.hpp"
#include "tools/sweep/sweep_runner.hpp"
#include "tools/sweep/sweep_table.hpp"

using namespace ipusim;
using namespace ipusim::cli;

namespace {

SweepSpec spec_with_axes() {
  return parse_sweep(Json::parse(R"({"base": "a.json", "axes": [
      {"path": "workload.bytes", "values": [4096, 8192]},
      {"path": "workload.algorithm", "values": ["clockwise"]}],
      "columns": {"busbw": "/workload/bus_bandwidth_GBps", "tiers": "/workload/time_by_tier_ns"}})"),
                     "s.json");
}

Json fake_report(double time_ns) {
  return Json::parse(R"({"format_version": 1, "simulated": {"time_ns": )" +
                     std::to_string(time_ns) +
                     R"(, "cycles": 10, "clock_GHz": 1.325},
      "breakdown_ns": {"compute": 1.5, "exchange": 2, "sync": 0},
      "utilisation": {"ipu_link": 0.5, "gw_link": 0},
      "memory": {"max_tile_bytes": 1000, "per_ipu_bytes": 5000, "by_kind": {"weights": 7, "name": "x"}},
      "workload": {"algorithm": "meet_in_the_middle", "bus_bandwidth_GBps": 12.5, "time_by_tier_ns": {"ipu_link": 3}},
      "run_info": {"wall_s": 0.1}})");
}

}  // namespace

TEST_CASE("numeric leaves flatten with dotted names in document order", "[sweep]") {
  Json out = Json::object();
  flatten_numeric(
      Json::parse(R"({"a": 1, "b": {"c": 2.5, "d": "text", "e": [3, {"f": 4}]}, "g": true})"), "m",
      out);
  std::vector<std::string> keys;
  for (auto it = out.begin(); it != out.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"m.a", "m.b.c", "m.b.e.0", "m.b.e.1.f"});
  CHECK(out["m.b.c"] == 2.5);
}

TEST_CASE("a row holds axes, status, time, numeric leaves, algorithm and extras", "[sweep]") {
  const SweepSpec spec = spec_with_axes();
  const auto points = expand_points(spec);
  const Json ok = make_row(spec, points[1], "ok", "", fake_report(1234.5));
  CHECK(ok["index"] == 1);
  CHECK(ok["workload.bytes"] == 8192);
  CHECK(ok["workload.algorithm"] == "clockwise");                // the axis value ...
  CHECK(ok["workload.algorithm_used"] == "meet_in_the_middle");  // ... and what the report says
  CHECK(ok["time_ns"] == 1234.5);
  CHECK(ok["breakdown_ns.compute"] == 1.5);
  CHECK(ok["utilisation.ipu_link"] == 0.5);
  CHECK(ok["memory.by_kind.weights"] == 7);
  CHECK_FALSE(ok.contains("memory.by_kind.name"));
  CHECK_FALSE(ok.contains("run_info.wall_s"));
  CHECK(ok["busbw"] == 12.5);

  const Json failed = make_row(spec, points[0], "failed", "bad value", Json());
  CHECK(failed["status"] == "failed");
  CHECK(failed["error"] == "bad value");
  CHECK(failed["time_ns"].is_null());
  CHECK(failed["busbw"].is_null());

  const auto columns = collect_columns(spec, {failed, ok});
  REQUIRE(columns.size() >= 8);
  CHECK(std::vector<std::string>(columns.begin(), columns.begin() + 6) ==
        std::vector<std::string>{"index", "workload.bytes", "workload.algorithm", "status", "error",
                                 "time_ns"});
  CHECK(columns[6] == "breakdown_ns.compute");
  CHECK(columns[columns.size() - 3] == "workload.algorithm_used");
  CHECK(columns[columns.size() - 2] == "busbw");
  CHECK(columns.back() == "tiers");

  const std::string csv = to_csv(columns, {failed, ok});
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);
  CHECK(csv.rfind("index,workload.bytes,workload.algorithm,status,error,time_ns,", 0) == 0);
  CHECK_THAT(csv, Catch::Contains("\n0,4096,clockwise,failed,bad value,,"));
  CHECK_THAT(csv, Catch::Contains("\"{\"\"ipu_link\"\":3}\""));  // an object cell, quoted

  const Json doc = results_document(spec, columns, {failed, ok});
  CHECK(doc["rows"].size() == 2);
  CHECK(doc["rows"][0].size() == columns.size());
  CHECK(doc["axes"][0]["path"] == "workload.bytes");
}

TEST_CASE("the reported algorithm is named workload.algorithm unless an axis sweeps it",
          "[sweep]") {
  const SweepSpec plain = parse_sweep(
      Json::parse(R"({"base": "a.json", "axes": [{"path": "workload.bytes", "values": [1]}]})"),
      "s.json");
  CHECK(algorithm_column(plain) == "workload.algorithm");
  const SweepSpec slashed = parse_sweep(
      Json::parse(
          R"({"base": "a.json", "axes": [{"path": "/workload/algorithm", "values": ["auto"]}]})"),
      "s.json");
  CHECK(algorithm_column(slashed) == "workload.algorithm_used");
}

TEST_CASE("CSV fields are quoted only when needed", "[sweep][csv]") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("") == "");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(csv_field("cr\r") == "\"cr\r\"");
  CHECK(csv_field(" padded") == "\" padded\"");
  CHECK(cell_text(Json()) == "");
  CHECK(cell_text(Json(4096)) == "4096");
  CHECK(cell_text(Json(0.1)) == "0.1");
  CHECK(cell_text(Json("x")) == "x");
}

TEST_CASE("Pareto front of a hand-made set", "[sweep][pareto]") {
  //                                         0        1        2        3        4        5        6
  const std::vector<std::pair<double, double>> pts = {{1, 10}, {2, 5}, {3, 7},  {4, 1},
                                                      {2, 5},  {5, 5}, {NAN, 0}};
  CHECK(pareto_front(pts) == std::vector<std::size_t>{0, 1, 4, 3});
  CHECK(pareto_front({}).empty());
  CHECK(pareto_front({{3, 3}}) == std::vector<std::size_t>{0});
  // Same x, different y: only the lower one survives.
  CHECK(pareto_front({{1, 2}, {1, 1}}) == std::vector<std::size_t>{1});
}

TEST_CASE("point folders and resume markers", "[sweep]") {
  CHECK(point_dir_name(7, 40) == "0007");
  CHECK(point_dir_name(12345, 20000) == "12345");
  CHECK(point_dir_name(3, 20000) == "00003");
  const SweepSpec spec = spec_with_axes();
  const auto points = expand_points(spec);
  const Json marker = done_marker("/a.json", points[1], "ok", "", 0);
  CHECK(marker_matches(marker, "/a.json", points[1]));
  CHECK_FALSE(marker_matches(marker, "/b.json", points[1]));
  CHECK_FALSE(marker_matches(marker, "/a.json", points[0]));
  CHECK_FALSE(
      marker_matches(done_marker("/a.json", points[1], "failed", "x", 2), "/a.json", points[1]));
}

TEST_CASE("progress line and tables", "[sweep]") {
  CHECK(Progress::line(12, 40, 1, 3.2, 7.4) == "[12/40] failures 1, elapsed 3.2 s, ETA 7.4 s");
  const std::string t = format_table({"name", "value"}, {{"a", "1.5"}, {"long name", "12"}});
  CHECK(t == "name       value\n----------------\na            1.5\nlong name     12\n");
}
