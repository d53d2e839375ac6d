// Validation references: parsing, relative error and geometric-mean error.
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/support/scratch.hpp"
#include "tools/validate/validate_reference.hpp"

using namespace ipusim;
using namespace ipusim::cli;
using ipusim::test::config_error_of;

namespace {

Json one_case() {
  return Json::parse(
      R"({"cases": [{"name": "sync16", "quantity": "external sync", "conditions": "16 IPUs",
      "value": 199, "unit": "cycles", "source": "PLTEST", "config": "cases/sync.json", "set": ["a=1"],
      "metric": "/workload/steps/0/duration_ns", "scale": 1.325, "tolerance_pct": 1}]})");
}

}  // namespace

TEST_CASE("reference files parse strictly", "[validate]") {
  const auto cases = parse_reference(one_case(), "configs/validation/ref.json");
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].config == "configs/validation/cases/sync.json");
  CHECK(cases[0].scale == 1.325);
  CHECK(cases[0].tolerance_pct == 1.0);
  CHECK(cases[0].sets == std::vector<std::string>{"a=1"});

  Json doc = one_case();
  doc["cases"][0].erase("scale");
  CHECK(parse_reference(doc, "r.json")[0].scale == 1.0);

  doc = one_case();
  doc["cases"][0].erase("tolerance_pct");
  CHECK_THAT(config_error_of([&] { parse_reference(doc, "r.json"); }),
             Catch::Contains("r.json: /cases/0/tolerance_pct: missing required key"));

  doc = one_case();
  doc["cases"][0]["metrc"] = "/x";
  CHECK_THAT(config_error_of([&] { parse_reference(doc, "r.json"); }),
             Catch::Contains("did you mean 'metric'"));

  doc = one_case();
  doc["cases"][0]["value"] = "199";
  CHECK_THAT(config_error_of([&] { parse_reference(doc, "r.json"); }),
             Catch::Contains("/cases/0/value: expected a number, got the string \"199\""));

  doc = one_case();
  doc["cases"].push_back(doc["cases"][0]);
  CHECK_THAT(config_error_of([&] { parse_reference(doc, "r.json"); }),
             Catch::Contains("already used by /cases/0"));

  CHECK_THAT(config_error_of([&] { load_reference("/nonexistent/r.json"); }),
             Catch::Contains("cannot open"));
}

TEST_CASE("relative and geometric-mean errors", "[validate]") {
  CHECK(relative_error(110, 100) == Approx(0.1));
  CHECK(relative_error(90, 100) == Approx(-0.1));
  CHECK(relative_error(0, 0) == 0);
  CHECK(std::isinf(relative_error(1, 0)));
  CHECK(geometric_mean_error({}) == 0);
  CHECK(geometric_mean_error({0.0}) == 0);
  CHECK(geometric_mean_error({0.1, -0.1}) == Approx(0.1));
  CHECK(geometric_mean_error({0.21, 0.0}) == Approx(0.1));
}
