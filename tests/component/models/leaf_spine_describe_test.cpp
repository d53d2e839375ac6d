// describe on the leaf/spine presets: fabric shape and GW-Link bisection worked by hand
// from the m2000 figures (2 GW-Links of 100 Gbit/s = 12.5 GB/s at 0.85 efficiency per
// machine, 16 machines per Pod64, 4 Pod64 per leaf, 2:1 oversubscribed leaf uplinks, a
// 3,200 GB/s switch pair per leaf).
#include <catch2/catch.hpp>

#include "model_fixture.hpp"
#include "models/system/describe.hpp"
#include "sim/errors.hpp"
#include "sim/resource_guard.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// Leaf uplink by hand: 4 Pod64 x 16 machines x 2 links x 12.5 GB/s x 0.85 / 2 = 680 GB/s
/// (below the leaf switch's 3,200 GB/s, so the uplink is the cut).
constexpr double kLeafUplinkGBps = 680.0;

Json describe_preset(const std::string& preset) {
  ConfigDoc doc = preset_config(preset);
  auto sys = build_system(doc);
  return describe_system(*sys);
}

}  // namespace

TEST_CASE("pod1024 = 16 Pod64 under 4 leaves: bisection 2 leaf uplinks = 1,360 GB/s",
          "[models][describe][leaf_spine]") {
  const Json d = describe_preset("pod1024");
  CHECK(d["ipus"] == 1024);
  CHECK(d["gw_topology"] == "leaf_spine");
  CHECK(d["gw_fabric"]["leaves"] == 4);
  CHECK(d["gw_fabric"]["leaf_down_ports"] == 128);  // 4 x 16 machines x 2 GW-Links
  CHECK(d["gw_fabric"]["leaf_up_ports"] == 64);     // 128 / 2
  CHECK(d["bisection"]["gw_GBps_per_direction"].get<double>() == Approx(2 * kLeafUplinkGBps));
  CHECK(d["bisection"]["gw_GBps_per_direction"].get<double>() == Approx(1360.0));
}

TEST_CASE("pod16k = 256 Pod64 under 64 leaves: bisection 32 leaf uplinks = 21,760 GB/s",
          "[models][describe][leaf_spine]") {
  const Json d = describe_preset("pod16k");
  CHECK(d["ipus"] == 16384);
  CHECK(d["machines"] == 4096);
  CHECK(d["gw_fabric"]["leaves"] == 64);
  CHECK(d["bisection"]["gw_GBps_per_direction"].get<double>() == Approx(21760.0));
}

TEST_CASE("pod64k = 1024 Pod64 under 256 leaves: bisection 128 leaf uplinks = 87,040 GB/s",
          "[models][describe][leaf_spine]") {
  const Json d = describe_preset("pod64k");
  CHECK(d["ipus"] == 65536);
  CHECK(d["machines"] == 16384);
  CHECK(d["ilds"] == 1024);
  CHECK(d["gw_fabric"]["leaves"] == 256);  // = the spine radix (256 ports): the largest fabric
  CHECK(d["bisection"]["gw_GBps_per_direction"].get<double>() == Approx(87040.0));
  // Links: every machine's 2 GW-Links to its leaf, and each leaf's 64 uplinks to the spine.
  for (const auto& l : d["links"]) {
    if (l["group"] == "gw_link") CHECK(l["links"] == 16384 * 2);
    if (l["group"] == "gw_spine_link") CHECK(l["links"] == 256 * 64);
  }
}

TEST_CASE("a 65,536-IPU per_tile system above the memory limit is refused before it is built",
          "[models][leaf_spine][guard]") {
  // By hand: 65,536 IPUs x 1,472 tiles x 30 bytes of tile counters alone = 2.89 GB, above a
  // 2 GB limit (a smaller machine than the CI one); the message names the setting to change.
  ConfigDoc doc = preset_config("pod64k", {{"sim", {{"fidelity", "per_tile"}}}});
  ResourceLimits limits;
  limits.max_memory_bytes = 2e9;
  limits.memory_is_default = false;
  set_resource_limits(limits);
  try {
    build_system(doc);
    FAIL("the per_tile pod64k system was built");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CHECK(what.find("/sim/fidelity") != std::string::npos);
    CHECK(what.find("aggregated") != std::string::npos);
    CHECK(what.find("per_tile state of 9.65e+07 tiles") != std::string::npos);
  }
}
