// Regression cases: parsing, field comparison with tolerance, --update rewriting, JUnit XML.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "sim/format.hpp"
#include "tests/support/scratch.hpp"
#include "tools/regress/regress_case.hpp"
#include "tools/regress/regress_compare.hpp"
#include "tools/regress/regress_junit.hpp"
#include "tools/sweep/sweep_input.hpp"

using namespace ipusim;
using namespace ipusim::cli;
using ipusim::test::config_error_of;
using ipusim::test::Scratch;

namespace {

/// Checks that `xml` is well-formed enough for JUnit consumers: balanced tags, quoted
/// attributes, no raw '<' or '&' outside markup and entities.
bool well_formed(const std::string& xml, std::string& why) {
  std::vector<std::string> open;
  std::size_t i = 0;
  if (xml.rfind("<?xml ", 0) == 0) i = xml.find("?>") + 2;
  while (i < xml.size()) {
    if (xml[i] == '&') {
      const auto semi = xml.find(';', i);
      const std::string ent = xml.substr(i, semi == std::string::npos ? 0 : semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&#39;") {
        why = "bad entity at " + std::to_string(i);
        return false;
      }
      i = semi + 1;
      continue;
    }
    if (xml[i] != '<') {
      if (xml[i] == '>') {
        why = "raw '>' at " + std::to_string(i);
        return false;
      }
      ++i;
      continue;
    }
    // A tag: scan to its '>' outside quoted attribute values.
    std::size_t j = i + 1;
    bool in_quotes = false;
    for (; j < xml.size(); ++j) {
      if (xml[j] == '"')
        in_quotes = !in_quotes;
      else if (!in_quotes && (xml[j] == '<')) {
        why = "'<' inside a tag";
        return false;
      } else if (!in_quotes && xml[j] == '>')
        break;
    }
    if (j >= xml.size()) {
      why = "unterminated tag";
      return false;
    }
    std::string tag = xml.substr(i + 1, j - i - 1);
    const bool closing = !tag.empty() && tag[0] == '/';
    const bool self_closing = !tag.empty() && tag.back() == '/';
    std::string name = tag.substr(closing ? 1 : 0);
    name = name.substr(0, name.find_first_of(" /"));
    if (closing) {
      if (open.empty() || open.back() != name) {
        why = "mismatched </" + name + ">";
        return false;
      }
      open.pop_back();
    } else if (!self_closing) {
      open.push_back(name);
    }
    i = j + 1;
  }
  if (!open.empty()) {
    why = "unclosed <" + open.back() + ">";
    return false;
  }
  return true;
}

}  // namespace

TEST_CASE("numbers compare exactly at 0 % and within a relative tolerance otherwise", "[regress]") {
  CHECK(compare_field("t", 100.0, 100.0, 0).pass);
  CHECK(compare_field("t", 100, 100.0, 0).pass);  // integer and double are the same number
  const FieldCheck tiny = compare_field("t", 100.0, 100.0000001, 0);
  CHECK_FALSE(tiny.pass);
  CHECK(tiny.delta_pct == Approx(1e-7));
  CHECK(format_delta(tiny.delta_pct) != "+0.000%");
  CHECK(compare_field("t", 100.0, 100.9, 1.0).pass);
  CHECK(compare_field("t", 100.0, 99.1, 1.0).pass);
  const FieldCheck moved = compare_field("t", 100.0, 101.1, 1.0);
  CHECK_FALSE(moved.pass);
  CHECK(moved.delta_pct == Approx(1.1));
  CHECK(format_delta(moved.delta_pct) == "+1.100%");
  CHECK(format_delta(-25.0) == "-25.000%");
  CHECK(format_delta(0.0) == "0%");
  CHECK(compare_field("t", 0.0, 0.0, 0).pass);
  CHECK(std::isinf(compare_field("t", 0.0, 1.0, 50).delta_pct));
  CHECK_FALSE(compare_field("t", 0.0, 1.0, 50).pass);
}

TEST_CASE("strings and missing values", "[regress]") {
  CHECK(compare_field("algorithm", "clockwise", "clockwise", 0).pass);
  const FieldCheck differs = compare_field("algorithm", "clockwise", "meet_in_the_middle", 50);
  CHECK_FALSE(differs.pass);
  CHECK(std::isnan(differs.delta_pct));
  CHECK(format_delta(differs.delta_pct) == "n/a");
  CHECK_FALSE(compare_field("t", Json(), 1.0, 0).pass);
  CHECK_THAT(compare_field("t", Json(), 1.0, 0).note, Catch::Contains("--update"));
  CHECK_THAT(compare_field("t", 1.0, Json(), 0).note, Catch::Contains("not in the report"));
  CHECK_FALSE(compare_field("t", 1.0, "1", 0).pass);
}

TEST_CASE("case files: defaults, explicit fields, strictness", "[regress]") {
  Scratch s;
  s.write("configs/c.json", "{}");
  const std::string file =
      s.write("base/case_a.json", R"({"config": "../configs/c.json", "set": ["a.b=1"],
      "expected": {"time_ns": 10.0, "algorithm": "clockwise"}})");
  const RegressCase c = load_case(file);
  CHECK(c.name == "case_a");
  CHECK(c.config == (s.dir / "configs/c.json").lexically_normal().string());
  CHECK(c.sets == std::vector<std::string>{"a.b=1"});
  const auto fields = fields_for(c, Json::parse(R"({"simulated": {"time_ns": 1}})"));
  REQUIRE(fields.size() == 2);  // algorithm is expected, so compared even when missing
  CHECK(fields[0].pointer == "/simulated/time_ns");
  CHECK(fields[1].pointer == "/workload/algorithm");
  const RegressCase no_alg = parse_case(Json::parse(R"({"config": "c.json"})"), "x.json");
  CHECK(fields_for(no_alg, Json::parse(R"({"simulated": {"time_ns": 1}})")).size() == 1);
  CHECK(fields_for(no_alg, Json::parse(R"({"workload": {"algorithm": "auto"}})")).size() == 2);

  const RegressCase explicit_fields = parse_case(
      Json::parse(R"({"config": "c.json", "fields": {"bw": "/workload/bus_bandwidth_GBps"}})"),
      "x.json");
  REQUIRE(explicit_fields.fields.size() == 1);
  CHECK(fields_for(explicit_fields, Json::object())[0].name == "bw");

  CHECK_THAT(config_error_of([] {
               parse_case(Json::parse(R"({"config": "c.json", "expect": {}})"), "x.json");
             }),
             Catch::Contains("did you mean 'expected'"));
  CHECK_THAT(config_error_of([] {
               parse_case(Json::parse(R"({"config": "c.json", "expected": {"tme_ns": 1}})"),
                          "x.json");
             }),
             Catch::Contains("x.json: /expected/tme_ns: no field named 'tme_ns'"));
  CHECK_THAT(config_error_of([] {
               parse_case(Json::parse(R"({"config": "c.json", "fields": {"t": "simulated"}})"),
                          "x.json");
             }),
             Catch::Contains("/fields/t: expected a JSON pointer"));
  CHECK_THAT(config_error_of(
                 [&] { load_case(s.write("bad/missing.json", R"({"config": "nope.json"})")); }),
             Catch::Contains("does not exist"));
  CHECK_THAT(config_error_of([&] { find_case_files((s.dir / "empty").string()); }),
             Catch::Contains("not a folder"));
}

TEST_CASE("update rewrites expected and keeps everything else in order", "[regress]") {
  Scratch s;
  s.write("c.json", "{}");
  const std::string file = s.write("case.json", R"({"description": "d", "config": "c.json",
      "expected": {"time_ns": 10.0}, "set": ["x=1"]})");
  const RegressCase c = load_case(file);
  const Json got = Json::parse(R"({"time_ns": 12.5, "algorithm": "auto"})");
  CHECK(write_expected(c, got));
  const Json doc = read_json_file(file);
  std::vector<std::string> keys;
  for (auto it = doc.begin(); it != doc.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"description", "config", "expected", "set"});
  CHECK(doc["expected"] == got);
  CHECK(Scratch::read(file) == doc.dump(2) + "\n");
  CHECK_FALSE(write_expected(load_case(file), got));  // unchanged: the file is left alone
}

TEST_CASE("JUnit XML is well-formed and counts failures and errors", "[regress][junit]") {
  std::vector<JunitCase> cases(3);
  cases[0].name = "ok_case";
  cases[1].name = "changed <&> \"case\"";
  cases[1].failure = "values changed";
  cases[1].details = "time_ns: expected 1, got 2 (+100%) & more <stuff>\n";
  cases[2].name = "broken";
  cases[2].failure = "case did not run";
  cases[2].details = std::string(
      "bad\x01"
      "byte");
  cases[2].error = true;
  for (auto& c : cases) c.classname = "ipusim.regress";
  const std::string xml = junit_xml("ipusim.regress", cases);
  std::string why;
  CHECK(well_formed(xml, why));
  INFO(why);
  CHECK_THAT(xml, Catch::Contains("tests=\"3\" failures=\"1\" errors=\"1\""));
  CHECK_THAT(xml, Catch::Contains("name=\"changed &lt;&amp;&gt; &quot;case&quot;\""));
  CHECK_THAT(xml, Catch::Contains("<failure message=\"values changed\">"));
  CHECK_THAT(xml, Catch::Contains("<error message=\"case did not run\">bad?byte</error>"));
  CHECK_THAT(xml, Catch::Contains(
                      "<testcase classname=\"ipusim.regress\" name=\"ok_case\" time=\"0.000\"/>"));
  CHECK(ipusim::escape_markup("a'b") == "a&#39;b");
}

TEST_CASE("max_slowdown_pct: a speed-up passes, a slowdown beyond the limit fails", "[regress]") {
  // 5 % one-sided: 100 -> 50 (twice as fast) passes; 100 -> 105 passes; 100 -> 105.1 fails.
  CHECK(compare_field("time_ns", 100.0, 50.0, 0, 5.0).pass);
  CHECK(compare_field("time_ns", 100.0, 105.0, 0, 5.0).pass);
  const FieldCheck slow = compare_field("time_ns", 100.0, 105.1, 0, 5.0);
  CHECK_FALSE(slow.pass);
  CHECK(slow.delta_pct == Approx(5.1));
  CHECK_THAT(slow.note, Catch::Contains("slower"));
  // 0 % one-sided: equal or faster passes, any slowdown fails.
  CHECK(compare_field("time_ns", 100.0, 100.0, 0, 0.0).pass);
  CHECK(compare_field("time_ns", 100.0, 99.0, 0, 0.0).pass);
  CHECK_FALSE(compare_field("time_ns", 100.0, 100.0001, 0, 0.0).pass);
  // Without it (negative), the symmetric tolerance still fails a speed-up.
  CHECK_FALSE(compare_field("time_ns", 100.0, 50.0, 0).pass);
  // Only times are judged one-sidedly.
  CHECK(is_time_field("time_ns"));
  CHECK(is_time_field("step_ns"));
  CHECK_FALSE(is_time_field("algorithm"));
  CHECK_FALSE(is_time_field("bw_GBps"));
}

TEST_CASE("case files: system and max_slowdown_pct", "[regress]") {
  Scratch s;
  s.write(
      "configs/c.json",
      R"({"name": "mine", "workload": {"kind": "collective", "bytes": 4}, "system": {"name": "old"}})");
  s.write("configs/sys.json", R"({"system": {"name": "other"}, "ipu_link": {"latency_ns": 5}})");
  const RegressCase named =
      load_case(s.write("base/a.json", R"({"config": "../configs/c.json", "system": "pod64",
      "max_slowdown_pct": 2.5})"));
  CHECK(named.system == "pod64");  // a preset name: the command resolves it
  CHECK(named.max_slowdown_pct == 2.5);
  const RegressCase by_path = load_case(s.write(
      "base/b.json", R"({"config": "../configs/c.json", "system": "../configs/sys.json"})"));
  CHECK(by_path.system == (s.dir / "configs/sys.json").lexically_normal().string());
  CHECK(by_path.max_slowdown_pct < 0);
  // The run config: the system file's sections, and the config's other top-level sections.
  const std::string wrapper = case_config_path(by_path, s.dir.string());
  const Json doc = read_json_file(wrapper);
  CHECK(doc["$include"] == Json::array({(s.dir / "configs/sys.json").lexically_normal().string()}));
  CHECK(doc["workload"]["bytes"] == 4);
  CHECK(doc["name"] == "mine");
  CHECK_FALSE(doc.contains("system"));  // from the system file, not the config
  const RegressCase own = load_case(s.write("base/c.json", R"({"config": "../configs/c.json"})"));
  CHECK(case_config_path(own, s.dir.string()) == own.config);  // no system: the config itself
  CHECK_THAT(config_error_of([] {
               parse_case(Json::parse(R"({"config": "c.json", "max_slowdown_pct": -1})"), "x.json");
             }),
             Catch::Contains("/max_slowdown_pct: expected a finite number of percent >= 0"));
  CHECK_THAT(config_error_of([] {
               parse_case(Json::parse(R"({"config": "c.json", "system": 64})"), "x.json");
             }),
             Catch::Contains("/system"));
}
