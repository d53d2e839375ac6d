// Sizes and rates written with their units: the parsers, and config values and --set
// overrides that use them (converted to the parameter's unit when read).
#include "sim/units.hpp"

#include <catch2/catch.hpp>
#include <functional>

#include "sim/config.hpp"
#include "sim/params.hpp"
#include "tests/support/scratch.hpp"

using namespace ipusim;
using ipusim::test::config_error_of;

namespace {

void declare_unit_params() {
  ParamRegistry::instance().add({
      {"/u/size_bytes", ParamType::Int, "B", 0, 0, {}, {}, "test size"},
      {"/u/capacity_GiB", ParamType::Double, "GiB", 128.0, 0, {}, {}, "test capacity"},
      {"/u/rate_GBps", ParamType::Double, "GB/s", 12.5, 0.001, {}, {}, "test rate"},
      {"/u/count", ParamType::Int, "", 1, 0, {}, {}, "test count (no unit: no text)"},
  });
}

}  // namespace

TEST_CASE("size text: binary suffixes are powers of 1024, decimal ones powers of 1000",
          "[config][units]") {
  CHECK(parse_size_bytes("67108864", "x") == 67108864u);
  CHECK(parse_size_bytes("1GiB", "x") == 1073741824u);
  CHECK(parse_size_bytes("64 MiB", "x") == 64u * 1024 * 1024);
  CHECK(parse_size_bytes("1.5KiB", "x") == 1536u);
  CHECK(parse_size_bytes("5MB", "x") == 5000000u);
  CHECK(parse_size_bytes("2tb", "x") == 2000000000000u);  // case-insensitive
  CHECK(parse_size_bytes("0", "x", true) == 0u);
  CHECK(config_error_of([] {
          parse_size_bytes("0", "--flag");
        }).find("--flag: expected at least 1 byte") == 0);
  CHECK(config_error_of([] {
          parse_size_bytes("0.5B", "x");
        }).find("not a whole number of bytes") != std::string::npos);
  for (const char* bad : {"", "GiB", "1.2.3MB", "-5", "1GiBB", "1Gbit"}) {
    CHECK(config_error_of([&] { parse_size_bytes(bad, "--flag"); }).find("expected a byte count") !=
          std::string::npos);
  }
}

TEST_CASE("rate text: b is a bit, B a byte, results in GB/s", "[config][units]") {
  CHECK(parse_rate_GBps("100Gbit/s", "x") == 12.5);
  CHECK(parse_rate_GBps("100 Gbps", "x") == 12.5);
  CHECK(parse_rate_GBps("100Gb/s", "x") == 12.5);
  CHECK(parse_rate_GBps("12.5GB/s", "x") == 12.5);
  CHECK(parse_rate_GBps("38.4GBps", "x") == 38.4);
  CHECK(parse_rate_GBps("400Mbit/s", "x") == Approx(0.05));
  CHECK(parse_rate_GBps("2TB/s", "x") == 2000.0);
  // 128 x 2^30 bit/s = 16 GiB/s = 17.179869184 GB/s (the IPU-Link rate of PLTEST).
  CHECK(parse_rate_GBps("16GiB/s", "x") == Approx(17.179869184).epsilon(1e-15));
  CHECK(parse_rate_GBps("128Gibit/s", "x") == Approx(17.179869184).epsilon(1e-15));
  for (const char* bad : {"12.5", "12.5GB", "fast", "1 G/s", "5Gbit/h"}) {
    CHECK(config_error_of([&] { parse_rate_GBps(bad, "/k"); }).find("/k: expected a rate") == 0);
  }
}

TEST_CASE("config values take text with units in size and rate parameters", "[config][units]") {
  declare_unit_params();
  ConfigDoc doc = ConfigDoc::from_json(
      Json::parse(
          R"({"u": {"size_bytes": "1GiB", "capacity_GiB": "512GiB", "rate_GBps": "100Gbit/s"}})"),
      "inline.json");
  ConfigNode u = ConfigNode(doc, "").child("u");
  CHECK(u.get_int("size_bytes") == 1073741824);
  CHECK(u.get_double("capacity_GiB") == 512.0);
  CHECK(u.get_double("rate_GBps") == 12.5);
  // The resolved config records the numbers in the parameters' units.
  CHECK(doc.resolved()["u"]["size_bytes"] == 1073741824);
  CHECK(doc.resolved()["u"]["rate_GBps"] == 12.5);
}

TEST_CASE("set overrides take text with units, bad text is refused at once with the unit",
          "[config][units]") {
  declare_unit_params();
  ConfigDoc doc = ConfigDoc::from_json(Json::parse(R"({"u": {"size_bytes": 4}})"), "inline.json");
  doc.apply_override("u.size_bytes=5MB");
  doc.apply_override("u.rate_GBps=200Gbps");
  ConfigNode u = ConfigNode(doc, "").child("u");
  CHECK(u.get_int("size_bytes") == 5000000);
  CHECK(u.get_double("rate_GBps") == 25.0);
  const std::string bad_size =
      config_error_of([&] { doc.apply_override("u.size_bytes=5 apples"); });
  CHECK(bad_size.find("/u/size_bytes: expected an integer in B (or a size with its unit") !=
        std::string::npos);
  const std::string bad_rate = config_error_of([&] { doc.apply_override("u.rate_GBps=12.5GB"); });
  CHECK(bad_rate.find("a rate with its unit: 100Gbit/s") != std::string::npos);
  // A parameter without a unit takes no text.
  CHECK(config_error_of([&] {
          doc.apply_override("u.count=1KiB");
        }).find("expected an integer, got \"1KiB\"") != std::string::npos);
}

TEST_CASE("a bad size text in a config file names the file, the path and the value",
          "[config][units]") {
  declare_unit_params();
  ConfigDoc doc =
      ConfigDoc::from_json(Json::parse(R"({"u": {"size_bytes": "1.5B"}})"), "inline.json");
  ConfigNode u = ConfigNode(doc, "").child("u");
  const std::string msg = config_error_of([&] { u.get_int("size_bytes"); });
  CHECK(msg.find("inline.json: /u/size_bytes: expected an integer in B") == 0);
  CHECK(msg.find("got \"1.5B\"") != std::string::npos);
}
