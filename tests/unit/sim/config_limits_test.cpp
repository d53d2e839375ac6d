// Input limits of the config loader: only regular files, no duplicate includes in one
// list, include depth <= 64 and <= 1000 loads, JSON nesting <= 256 (checked while
// parsing), number overflow as bad input naming file and path. Every error is a
// ConfigError (exit 2) that names the limit.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "sim/config.hpp"
#include "sim/json_parse.hpp"
#include "sim/output.hpp"
#include "tests/support/scratch.hpp"

namespace fs = std::filesystem;
using namespace ipusim;
using ipusim::test::config_error_of;

namespace {

struct Dir {
  fs::path path;
  explicit Dir(const std::string& tag)
      : path(fs::temp_directory_path() /
             ("ipusim_limits_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

}  // namespace

TEST_CASE("limits: a directory, a FIFO and /proc/self/mem are refused without blocking",
          "[limits]") {
  Dir d("kinds");
  CHECK_THAT(config_error_of([&] { ConfigDoc::load_file(d.path.string()); }),
             Catch::Contains("is a directory"));
  const std::string fifo = (d.path / "f.json").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string inc = d.write("inc.json", R"({"$include": ["f.json"]})");
  const std::string msg = config_error_of([&] { ConfigDoc::load_file(inc); });
  CHECK_THAT(msg, Catch::Contains("is a FIFO"));
  CHECK_THAT(msg, Catch::StartsWith(inc + ": "));  // names the including file
  CHECK_THAT(config_error_of([&] { ConfigDoc::load_file("/proc/self/mem"); }),
             Catch::Contains("cannot read config file"));
}

TEST_CASE("limits: a file twice in one $include list is refused, naming both positions",
          "[limits]") {
  Dir d("dup");
  d.write("a.json", "{}");
  const std::string top = d.write("top.json", R"({"$include": ["a.json", "./a.json"]})");
  const std::string msg = config_error_of([&] { ConfigDoc::load_file(top); });
  CHECK_THAT(msg, Catch::Contains("/$include/1"));
  CHECK_THAT(msg, Catch::Contains("already included at /$include/0"));
}

TEST_CASE("limits: include fan-out stops at 1000 loads", "[limits]") {
  Dir d("fanout");
  // top -> 10 b's -> each 10 c's (the same 10) -> each 10 d's: 1 + 10 + 100 + 1000 loads.
  std::string b_list, c_list, d_list;
  for (int i = 0; i < 10; ++i) {
    const std::string sep = i ? ", " : "";
    b_list += sep + "\"b" + std::to_string(i) + ".json\"";
    c_list += sep + "\"c" + std::to_string(i) + ".json\"";
    d_list += sep + "\"d" + std::to_string(i) + ".json\"";
  }
  for (int i = 0; i < 10; ++i) {
    d.write("b" + std::to_string(i) + ".json", "{\"$include\": [" + c_list + "]}");
    d.write("c" + std::to_string(i) + ".json", "{\"$include\": [" + d_list + "]}");
    d.write("d" + std::to_string(i) + ".json", "{\"v\": " + std::to_string(i) + "}");
  }
  const std::string top = d.write("top.json", "{\"$include\": [" + b_list + "]}");
  CHECK_THAT(config_error_of([&] { ConfigDoc::load_file(top); }),
             Catch::Contains("more than 1000 config files"));
  // One level less (1 + 10 + 100 = 111 loads) is fine and merges normally: the last d wins.
  const std::string small = d.write("small.json", "{\"$include\": [" + c_list + "]}");
  CHECK(ConfigDoc::load_file(small).root()["v"] == 9);
}

TEST_CASE("limits: includes nest at most 64 levels", "[limits]") {
  Dir d("depth");
  for (int i = 0; i < 70; ++i)
    d.write("n" + std::to_string(i) + ".json",
            "{\"$include\": [\"n" + std::to_string(i + 1) + ".json\"]}");
  d.write("n70.json", "{}");
  CHECK_THAT(config_error_of([&] { ConfigDoc::load_file((d.path / "n0.json").string()); }),
             Catch::Contains("deeper than 64 levels"));
  // 63 includes under the main file = 64 levels: accepted.
  CHECK_NOTHROW(ConfigDoc::load_file((d.path / "n7.json").string()));
}

TEST_CASE("limits: JSON nesting deeper than 256 is refused while parsing, naming the path",
          "[limits]") {
  const auto nested = [](int depth) {
    return "{\"x\": " + std::string(depth - 1, '[') + std::string(depth - 1, ']') + "}";
  };
  CHECK_NOTHROW(parse_json_text(nested(256), "ok.json"));  // the object + 255 arrays = 256 levels
  const std::string msg = config_error_of([&] { parse_json_text(nested(257), "deep.json"); });
  CHECK_THAT(msg, Catch::StartsWith("deep.json: /x/0/0/"));
  CHECK_THAT(msg, Catch::Contains("deeper than 256 levels"));
  // 40,000 levels (the case that took > 4 GB) fails at once.
  CHECK_THAT(config_error_of([&] { parse_json_text(nested(40000), "huge.json"); }),
             Catch::Contains("deeper than 256"));
}

TEST_CASE("limits: number overflow names the file and the JSON path", "[limits]") {
  CHECK(config_error_of([] { parse_json_text(R"({"a": {"b": [1, 2, 1e999]}})", "f.json"); }) ==
        "f.json: /a/b/2: number overflow parsing '1e999' (numbers must fit in a 64-bit double or "
        "integer)");
  Dir d("overflow");
  const std::string file = d.write("c.json", R"({"sim": {"max_time_ns": -1e400}})");
  CHECK_THAT(config_error_of([&] { ConfigDoc::load_file(file); }),
             Catch::StartsWith(file + ": /sim/max_time_ns: number overflow"));
  // --set: JSON-shaped text that overflows is an error, a bare word stays a string.
  ConfigDoc doc = ConfigDoc::from_json(Json{{"name", "x"}}, "mem");
  CHECK_THAT(config_error_of([&] { doc.apply_override("name=1e999"); }),
             Catch::Contains("number overflow"));
  doc.apply_override("name=hello");
  CHECK(doc.root()["name"] == "hello");
}

TEST_CASE("limits: --set values must have the JSON type of the declared parameter", "[limits]") {
  register_sim_params();
  ConfigDoc doc = ConfigDoc::from_json(Json{{"sim", {{"max_time_ns", 5}}}}, "mem");
  CHECK(config_error_of([&] { doc.apply_override("sim.max_time_ns=abc"); }) ==
        "--set sim.max_time_ns: /sim/max_time_ns: expected a number in ns, got \"abc\"");
  CHECK_THAT(config_error_of([&] { doc.apply_override("name=12"); }),
             Catch::Contains("expected a string, got 12"));
  doc.apply_override("sim.max_time_ns=7.5");
  CHECK(doc.root()["sim"]["max_time_ns"] == 7.5);
}

TEST_CASE("limits: an escaped NUL in a key or string is refused, naming the file and the JSON path",
          "[limits]") {
  CHECK(config_error_of([] { parse_json_text(R"({"a": ["x", "b\u0000c"]})", "f.json"); }) ==
        "f.json: /a/1: a string holds a NUL character (\\u0000) at byte 1; NUL is not allowed in "
        "keys or strings");
  CHECK(config_error_of([] { parse_json_text(R"({"a": {"k\u0000": 1}})", "f.json"); }) ==
        "f.json: /a: a key holds a NUL character (\\u0000) at byte 1; NUL is not allowed in keys "
        "or strings");
  CHECK_NOTHROW(
      parse_json_text(R"({"a": "\u0001 tab\t"})", "ok.json"));  // other escapes stay allowed
}

TEST_CASE("limits: strings longer than 1 MiB are refused; exactly 1 MiB is read", "[limits]") {
  const std::string at_limit = "{\"d\": \"" + std::string(1u << 20, 'x') + "\"}";
  CHECK(parse_json_text(at_limit, "ok.json")["d"].get<std::string>().size() == (1u << 20));
  const std::string over = "{\"d\": [\"" + std::string((1u << 20) + 1, 'x') + "\"]}";
  CHECK(config_error_of([&] { parse_json_text(over, "big.json"); }) ==
        "big.json: /d/0: a string of 1048577 bytes, more than the limit of 1048576 bytes per JSON "
        "string");
}

TEST_CASE("limits: a UTF-8 byte order mark at the start is skipped (RFC 8259 8.1)", "[limits]") {
  CHECK(parse_json_text("\xEF\xBB\xBF{\"a\": 1}", "bom.json") == Json{{"a", 1}});
  Dir d("bom");
  d.write("inc.json", "\xEF\xBB\xBF{\"b\": 2}");
  const std::string main =
      d.write("main.json", "\xEF\xBB\xBF{\"$include\": [\"inc.json\"], \"a\": 1}");
  CHECK(ConfigDoc::load_file(main).root() == (Json{{"b", 2}, {"a", 1}}));  // included keys first
}

TEST_CASE(
    "limits: an include error names the including file, the $include entry and the included path",
    "[limits]") {
  Dir d("incerr");
  const std::string main = d.write("main.json", R"({"$include": ["ok.json", "missing.json"]})");
  d.write("ok.json", "{}");
  CHECK_THAT(config_error_of([&] { ConfigDoc::load_file(main); }),
             Catch::StartsWith(main + ": /$include/1: cannot open included file '" +
                               (d.path / "missing.json").string() + "'"));
  const std::string list = d.write("list.json", R"({"$include": "arr.json"})");
  d.write("arr.json", "[1]");
  CHECK(config_error_of([&] { ConfigDoc::load_file(list); }) ==
        list + ": /$include/0: " + (d.path / "arr.json").string() +
            ": expected a JSON object at the top level");
}
