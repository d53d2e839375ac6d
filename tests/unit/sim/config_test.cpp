// Strict configuration: includes, overrides, unknown keys, type and range errors, cycles.
#include "sim/config.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>

#include "sim/params.hpp"
#include "tests/support/scratch.hpp"

using namespace ipusim;
using ipusim::test::config_error_of;
namespace fs = std::filesystem;

namespace {

/// A scratch folder with files written from strings.
struct Scratch {
  fs::path dir;
  Scratch() {
    dir = fs::temp_directory_path() / ("ipusim_cfg_" + std::to_string(::getpid()) + "_" +
                                       std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(dir / "sub");
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

void declare_test_params() {
  ParamRegistry::instance().add({
      {"/link/bandwidth_GBps",
       ParamType::Double,
       "GB/s",
       16.0,
       0.001,
       1000.0,
       {},
       "test link bandwidth"},
      {"/link/latency_ns", ParamType::Double, "ns", 100.0, 0.0, {}, {}, "test latency"},
      {"/link/count", ParamType::Int, "", 2, 1, 16, {}, "test count"},
      {"/link/mode",
       ParamType::Enum,
       "",
       "fair_share",
       {},
       {},
       {"fair_share", "fifo"},
       "test mode"},
      {"/steps/*/bytes", ParamType::Int, "B", Json(), 0, {}, {}, "test step bytes"},
  });
}

}  // namespace

TEST_CASE("includes merge in order and the including file overrides", "[config]") {
  declare_test_params();
  Scratch s;
  s.write("sub/a.json", R"({"link": {"bandwidth_GBps": 10, "latency_ns": 50}})");
  s.write("sub/b.json", R"({"link": {"bandwidth_GBps": 20}})");
  const auto top =
      s.write("top.json", R"({"$include": ["sub/a.json", "sub/b.json"], "link": {"count": 4}})");
  ConfigDoc doc = ConfigDoc::load_file(top);
  ConfigNode link = ConfigNode(doc, "").child("link");
  CHECK(link.get_double("bandwidth_GBps") == 20.0);  // b overrides a
  CHECK(link.get_double("latency_ns") == 50.0);      // only a sets it
  CHECK(link.get_int("count") == 4);
  CHECK(link.get_enum("mode") == "fair_share");  // default
  CHECK(doc.resolved()["link"]["mode"] == "fair_share");
  CHECK(doc.origin_of("/link/bandwidth_GBps").find("b.json") != std::string::npos);
}

TEST_CASE("include paths are relative to the including file", "[config]") {
  declare_test_params();
  Scratch s;
  s.write("sub/chip.json", R"({"link": {"latency_ns": 7}})");
  s.write("sub/machine.json", R"({"$include": "chip.json"})");
  const auto top = s.write("top.json", R"({"$include": ["sub/machine.json"]})");
  ConfigDoc doc = ConfigDoc::load_file(top);
  CHECK(ConfigNode(doc, "").child("link").get_double("latency_ns") == 7.0);
}

TEST_CASE("an include cycle is an error naming the cycle", "[config]") {
  Scratch s;
  s.write("a.json", R"({"$include": "b.json"})");
  s.write("b.json", R"({"$include": "a.json"})");
  const std::string msg =
      config_error_of([&] { ConfigDoc::load_file((s.dir / "a.json").string()); });
  CHECK(msg.find("include cycle") != std::string::npos);
  CHECK(msg.find("a.json -> ") != std::string::npos);
  CHECK(msg.find("b.json") != std::string::npos);
}

TEST_CASE("a missing file and bad JSON are clear errors", "[config]") {
  Scratch s;
  CHECK(config_error_of([&] {
          ConfigDoc::load_file((s.dir / "nope.json").string());
        }).find("cannot open") != std::string::npos);
  const auto bad = s.write("bad.json", "{\"link\": {\"count\": 2,,}}");
  CHECK(config_error_of([&] { ConfigDoc::load_file(bad); }).find("invalid JSON") !=
        std::string::npos);
}

TEST_CASE("an unknown key names file, path, allowed keys and a suggestion", "[config]") {
  declare_test_params();
  Scratch s;
  const auto top = s.write("top.json", R"({"link": {"bandwith_GBps": 10}})");
  ConfigDoc doc = ConfigDoc::load_file(top);
  ConfigNode link = ConfigNode(doc, "").child("link");
  link.get_double("bandwidth_GBps");
  link.get_double("latency_ns");
  const std::string msg = config_error_of([&] { link.finish(); });
  CHECK(msg.find("top.json") != std::string::npos);
  CHECK(msg.find("/link/bandwith_GBps") != std::string::npos);
  CHECK(msg.find("allowed keys") != std::string::npos);
  CHECK(msg.find("did you mean 'bandwidth_GBps'") != std::string::npos);
}

TEST_CASE("wrong types and out-of-range values name path, value, unit and range", "[config]") {
  declare_test_params();
  ConfigDoc doc = ConfigDoc::from_json(
      Json::parse(
          R"({"link": {"bandwidth_GBps": "fast", "latency_ns": -1, "count": 2.5, "mode": "fifi"}})"),
      "inline.json");
  ConfigNode link = ConfigNode(doc, "").child("link");
  const std::string type_msg = config_error_of([&] { link.get_double("bandwidth_GBps"); });
  CHECK(type_msg.find("/link/bandwidth_GBps") != std::string::npos);
  CHECK(type_msg.find("GB/s") != std::string::npos);
  CHECK(type_msg.find("\"fast\"") != std::string::npos);
  const std::string range_msg = config_error_of([&] { link.get_double("latency_ns"); });
  CHECK(range_msg.find("out of range [0.0, inf] ns") != std::string::npos);
  CHECK(range_msg.find("-1") != std::string::npos);
  CHECK(config_error_of([&] { link.get_int("count"); }).find("expected an integer") !=
        std::string::npos);
  CHECK(config_error_of([&] { link.get_enum("mode"); }).find("did you mean 'fifo'") !=
        std::string::npos);
}

TEST_CASE("set overrides existing and declared parameters, refuses unknown paths", "[config]") {
  declare_test_params();
  ConfigDoc doc = ConfigDoc::from_json(
      Json::parse(R"({"link": {"count": 2}, "steps": [{"bytes": 5}]})"), "inline.json");
  doc.apply_override("link.count=8");
  doc.apply_override("link.latency_ns=12.5");  // declared, not in the file: allowed
  doc.apply_override("/steps/0/bytes=64");
  ConfigNode root(doc, "");
  ConfigNode link = root.child("link");
  CHECK(link.get_int("count") == 8);
  CHECK(link.get_double("latency_ns") == 12.5);
  CHECK(root.children("steps").at(0).get_int("bytes") == 64);
  CHECK(doc.origin_of("/link/count") == "--set link.count");
  const std::string msg = config_error_of([&] { doc.apply_override("link.bandwith_GBps=3"); });
  CHECK(msg.find("no parameter at /link/bandwith_GBps") != std::string::npos);
  CHECK(msg.find("did you mean 'bandwidth_GBps'") != std::string::npos);
  CHECK(config_error_of([&] {
          doc.apply_override("nonsense");
        }).find("expected path.to.key=value") != std::string::npos);
}

TEST_CASE("a required parameter without default must be present", "[config]") {
  declare_test_params();
  ConfigDoc doc = ConfigDoc::from_json(Json::parse(R"({"steps": [{}]})"), "inline.json");
  auto steps = ConfigNode(doc, "").children("steps");
  CHECK(config_error_of([&] { steps.at(0).get_int("bytes"); }).find("/steps/0/bytes: required") !=
        std::string::npos);
}

TEST_CASE("normalise_pointer replaces array indices", "[config]") {
  CHECK(normalise_pointer("/workload/steps/12/bytes") == "/workload/steps/*/bytes");
  CHECK(normalise_pointer("/a/b") == "/a/b");
  CHECK(normalise_pointer("") == "");
}
