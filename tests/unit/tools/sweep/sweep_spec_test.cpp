// Sweep files: strict parsing and grid/zip expansion into points.
#include "tools/sweep/sweep_spec.hpp"

#include <catch2/catch.hpp>

#include "sim/errors.hpp"
#include "tests/support/scratch.hpp"

using namespace ipusim;
using namespace ipusim::cli;
using ipusim::test::config_error_of;

namespace {

Json two_by_two(const std::string& mode) {
  return Json::parse(
      R"({"base": "../workloads/a.json", "set": ["sim.fidelity=aggregated"], "mode": ")" + mode +
      R"(", "axes": [{"path": "workload.bytes", "values": [4096, 1048576]},
                                    {"path": "workload.algorithm", "values": ["clockwise", "auto"]}]})");
}

}  // namespace

TEST_CASE("grid mode: 2x2 axes give 4 points, last axis fastest", "[sweep]") {
  const SweepSpec spec = parse_sweep(two_by_two("grid"), "configs/sweeps/s.json");
  CHECK(spec.base == "configs/workloads/a.json");
  const auto points = expand_points(spec);
  REQUIRE(points.size() == 4);
  const std::vector<std::pair<Json, Json>> expected = {
      {4096, "clockwise"}, {4096, "auto"}, {1048576, "clockwise"}, {1048576, "auto"}};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(points[i].index == i);
    CHECK(points[i].values[0] == expected[i].first);
    CHECK(points[i].values[1] == expected[i].second);
  }
  CHECK(points[3].sets == std::vector<std::string>{"sim.fidelity=aggregated",
                                                   "workload.bytes=1048576",
                                                   "workload.algorithm=\"auto\""});
}

TEST_CASE("zip mode pairs values element-wise", "[sweep]") {
  const auto points = expand_points(parse_sweep(two_by_two("zip"), "s.json"));
  REQUIRE(points.size() == 2);
  CHECK(points[0].values == std::vector<Json>{4096, "clockwise"});
  CHECK(points[1].values == std::vector<Json>{1048576, "auto"});
}

TEST_CASE("zip mode rejects axes of different lengths", "[sweep]") {
  Json doc = two_by_two("zip");
  doc["axes"][1]["values"].push_back("meet_in_the_middle");
  const std::string msg = config_error_of([&] { parse_sweep(doc, "s.json"); });
  CHECK_THAT(msg, Catch::Contains("s.json: /axes/1/values"));
  CHECK_THAT(msg, Catch::Contains("equal length"));
}

TEST_CASE("no axes give one point with the base config", "[sweep]") {
  const auto points =
      expand_points(parse_sweep(Json::parse(R"({"base": "a.json", "axes": []})"), "s.json"));
  REQUIRE(points.size() == 1);
  CHECK(points[0].sets.empty());
}

TEST_CASE("sweep files are strict: unknown keys, types, pointers", "[sweep]") {
  Json doc = two_by_two("grid");
  doc["axis"] = doc["axes"];
  std::string msg = config_error_of([&] { parse_sweep(doc, "s.json"); });
  CHECK_THAT(msg, Catch::Contains("unknown key 'axis' at /axis"));
  CHECK_THAT(msg, Catch::Contains("did you mean 'axes'"));

  doc = two_by_two("grid");
  doc["axes"][0]["valuez"] = 1;
  CHECK_THAT(config_error_of([&] { parse_sweep(doc, "s.json"); }),
             Catch::Contains("/axes/0/valuez"));

  doc = two_by_two("grid");
  doc["axes"][1]["values"] = Json::array();
  CHECK_THAT(config_error_of([&] { parse_sweep(doc, "s.json"); }),
             Catch::Contains("/axes/1/values: expected a non-empty list"));

  doc = two_by_two("cube");
  CHECK_THAT(config_error_of([&] { parse_sweep(doc, "s.json"); }),
             Catch::Contains("/mode: expected \"grid\" or \"zip\""));

  doc = two_by_two("grid");
  doc["set"] = Json::array({"a=1", 2});
  CHECK_THAT(config_error_of([&] { parse_sweep(doc, "s.json"); }),
             Catch::Contains("/set/1: expected a string"));

  doc = two_by_two("grid");
  doc["columns"] = {{"bw", "workload/bus_bandwidth_GBps"}};
  CHECK_THAT(config_error_of([&] { parse_sweep(doc, "s.json"); }),
             Catch::Contains("/columns/bw: expected a JSON pointer"));

  doc = two_by_two("grid");
  doc["axes"][1]["path"] = "workload.bytes";
  CHECK_THAT(config_error_of([&] { parse_sweep(doc, "s.json"); }),
             Catch::Contains("already swept by /axes/0"));

  doc = two_by_two("grid");
  doc.erase("base");
  CHECK_THAT(config_error_of([&] { parse_sweep(doc, "s.json"); }),
             Catch::Contains("s.json: /base: missing required key"));
}

TEST_CASE("overrides keep the JSON type of the value", "[sweep]") {
  CHECK(override_for("workload.bytes", 4096) == "workload.bytes=4096");
  CHECK(override_for("workload.algorithm", "auto") == "workload.algorithm=\"auto\"");
  CHECK(override_for("x", "4") == "x=\"4\"");
  CHECK(override_for("x", true) == "x=true");
}
