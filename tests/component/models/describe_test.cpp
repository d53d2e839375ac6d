// describe_system on the presets: sizes, link counts of ladder and torus, bisection.
#include "models/system/describe.hpp"

#include <catch2/catch.hpp>

#include "model_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {
Json group(const Json& d, const std::string& g) {
  for (const auto& l : d["links"]) {
    if (l["group"] == g) return l;
  }
  return Json::object();
}
}  // namespace

TEST_CASE("describe pod64: 64 IPUs, 94,208 tiles and the ladder/torus link counts",
          "[models][describe]") {
  ConfigDoc torus_doc = preset_config("pod64");
  ConfigDoc ladder_doc =
      preset_config("pod64", Json{{"system", {{"ipu_link_topology", "ladder"}}}});
  auto torus = build_system(torus_doc, "torus");
  auto ladder = build_system(ladder_doc, "ladder");
  const Json t = describe_system(*torus);
  const Json l = describe_system(*ladder);
  const std::uint64_t ipus = 64, rungs = ipus / 2;
  const auto links = [&](const char* key) {
    return static_cast<std::uint64_t>(resolved(torus_doc, key));
  };
  CHECK(t["ipus"] == 64);
  CHECK(t["machines"] == 16);
  CHECK(t["ilds"] == 1);
  CHECK(t["tiles"] == 94208);
  CHECK(t["tiles"] == ipus * links("/chip/tiles"));
  CHECK(t["sram_total_bytes"] == ipus * links("/chip/tiles") * links("/chip/sram_per_tile_bytes"));
  CHECK(group(t, "ipu_link.partner")["links"] == rungs * links("/ipu_link/partner_links"));
  CHECK(group(t, "ipu_link.cross")["links"] == rungs * links("/ipu_link/cross_links"));
  CHECK(group(t, "ipu_link.rail")["links"] == 2 * (rungs - 1) * links("/ipu_link/up_links"));
  CHECK(group(t, "ipu_link.wrap")["links"] == 2 * links("/ipu_link/torus_wrap_links"));
  // With every port used, a 64-IPU torus has 64 x 10 / 2 links.
  CHECK(t["ipu_links_total"] == ipus * links("/ipu_link/links_per_ipu") / 2);
  CHECK(l["ipu_links_total"] ==
        ipus * links("/ipu_link/links_per_ipu") / 2 - 2 * links("/ipu_link/torus_wrap_links"));
  CHECK(group(l, "ipu_link.wrap").empty());
  CHECK(t["torus_wraps"] == true);
  CHECK(l["torus_wraps"] == false);
  const double link = resolved(torus_doc, "/ipu_link/bandwidth_GBps_per_link") *
                      resolved(torus_doc, "/ipu_link/efficiency");
  CHECK(l["bisection"]["ild_GBps_per_direction"].get<double>() ==
        Approx(2 * links("/ipu_link/up_links") * link));
  CHECK(t["bisection"]["ild_GBps_per_direction"].get<double>() ==
        Approx(2 * (links("/ipu_link/up_links") + links("/ipu_link/torus_wrap_links")) * link));
  CHECK(t["bisection"]["gw_GBps_per_direction"] == 0.0);
  CHECK(group(t, "ddr")["links"] == 16);
  const std::string table = describe_table(t);
  CHECK(table.find("94208") != std::string::npos);
  CHECK(table.find("ipu_link.partner") != std::string::npos);
  // Each column names its unit: links per bundle, and the usable rate per bundle in GB/s.
  CHECK(table.find("links/bundle") != std::string::npos);
  CHECK(table.find("usable GB/s/bundle/dir") != std::string::npos);
}

TEST_CASE("describe the multi-pod preset: 64 Pod64 = 4096 IPUs over switched GW-Links",
          "[models][describe]") {
  ConfigDoc doc = preset_config("multipod");
  auto sys = build_system(doc);
  const Json d = describe_system(*sys);
  CHECK(d["ipus"] == 4096);
  CHECK(d["machines"] == 1024);
  CHECK(d["ilds"] == 64);
  CHECK(d["tiles"] == 4096ull * 1472);
  CHECK(group(d, "gw_link")["links"] == 1024 * 2);
  CHECK(group(d, "gw_switch")["links"] == 1);
  const double gw = resolved(doc, "/machine/gw_link/bandwidth_GBps_per_link") *
                    resolved(doc, "/machine/gw_link/efficiency");
  CHECK(d["bisection"]["gw_GBps_per_direction"].get<double>() ==
        Approx(std::min(512.0 * 2 * gw, resolved(doc, "/machine/gw_link/switch_bandwidth_GBps"))));
}

TEST_CASE("describe names the run's Poplar SDK: the registry's 2.4.0 unless the config sets it",
          "[models][describe]") {
  ConfigDoc plain_doc = preset_config("pod16");
  ConfigDoc sdk1_doc =
      preset_config("pod16", Json{{"software", {{"poplar_sdk_version", "1.0.49"}}}});
  auto plain = build_system(plain_doc, "plain");
  auto sdk1 = build_system(sdk1_doc, "sdk1");
  const Json p = describe_system(*plain);
  const Json s = describe_system(*sdk1);
  CHECK(p["poplar_sdk_version"] == "2.4.0");
  CHECK(s["poplar_sdk_version"] == "1.0.49");
  CHECK(describe_table(s).find("Poplar SDK: 1.0.49") != std::string::npos);
}
