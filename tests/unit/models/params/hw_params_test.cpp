// Reading the hardware sections: presets resolve, bad input names file, path and reason.
#include "models/params/hw_params.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/params/model_params.hpp"
#include "sim/config.hpp"
#include "sim/errors.hpp"

using namespace ipusim;

namespace {

std::string src() {
  const char* d = std::getenv("IPUSIM_SOURCE_DIR");
  return d ? d : IPUSIM_TEST_SOURCE_DIR;
}

HwParams read(const Json& j) {
  register_model_params();
  ConfigDoc doc = ConfigDoc::from_json(j, "t.json");
  return read_hw_params(doc);
}

}  // namespace

TEST_CASE("every system preset resolves with the documented values", "[params]") {
  register_model_params();
  for (const char* name : {"pod4", "pod16", "pod64", "pod128", "pod256", "multipod", "bow_pod16",
                           "bow_pod64", "bow_pod128", "bow_pod256"}) {
    INFO(name);
    ConfigDoc doc = ConfigDoc::load_file(src() + "/configs/systems/" + name + ".json");
    const HwParams p = read_hw_params(doc);
    CHECK(p.system.name == name);
    CHECK(p.machine.ipus_per_machine == 4);
    CHECK(p.chip.tiles == 1472);
    const bool bow = std::string(name).rfind("bow", 0) == 0;
    CHECK(p.chip.clock_GHz == (bow ? 1.85 : 1.325));
    CHECK(p.machine.name == (bow ? "bow2000" : "m2000"));
  }
  // The Bow Pod128 / Pod256 keep their M2000 Pods' GW-Links: crossed cables between two racks
  // (POD-DS POD128), two redundant GW-Link switches for four (POD-DS Bow Pod256, SWGW 1.3).
  for (const auto& [name, ilds, gw] :
       {std::tuple{"bow_pod128", 2u, GwTopology::Ring}, {"bow_pod256", 4u, GwTopology::Switch}}) {
    INFO(name);
    ConfigDoc doc = ConfigDoc::load_file(src() + "/configs/systems/" + name + ".json");
    const HwParams p = read_hw_params(doc);
    CHECK(p.system.num_ilds == ilds);
    CHECK(p.system.gw_topology == gw);
    CHECK(p.num_ipus() == 64 * ilds);
  }
  ConfigDoc gc2 = ConfigDoc::load_file(src() + "/configs/chips/gc2.json");
  const ChipParams c2 = read_hw_params(gc2).chip;
  CHECK(c2.tiles == 1216);
  // GC2: 8 outputs a pass for FP32 too. The SDK is the run's, not the chip's: the chip preset
  // alone runs the registry's 2.4.0; the Citadel set-up (and so every GC2 case) sets 1.0.49.
  CHECK(c2.amp_conv_units_fp32 == 8);
  CHECK(c2.poplar_sdk == PoplarSdk::V2_4_0);
  ConfigDoc citadel =
      ConfigDoc::load_file(src() + "/configs/validation/setups/citadel_gc2_ladder16.json");
  const ChipParams cit = read_hw_params(citadel).chip;
  CHECK(cit.tiles == 1216);
  CHECK(cit.poplar_sdk == PoplarSdk::V1_0_49);
  CHECK(to_string(cit.poplar_sdk) == "1.0.49");
  ConfigDoc gc200 = ConfigDoc::load_file(src() + "/configs/chips/gc200.json");
  CHECK(read_hw_params(gc200).chip.poplar_sdk == PoplarSdk::V2_4_0);
  // A GC2 run under SDK 2.x says so without touching the chip.
  ConfigDoc gc2_sdk2 =
      ConfigDoc::load_file(src() + "/configs/validation/setups/citadel_gc2_ladder16.json");
  gc2_sdk2.apply_override("software.poplar_sdk_version=2.4.0");
  CHECK(read_hw_params(gc2_sdk2).chip.poplar_sdk == PoplarSdk::V2_4_0);
}

TEST_CASE("each MLPerf set-up runs the SDK its submission used", "[params]") {
  // measurements.md section 2 and the set-ups' descriptions: v1.0 SDK 2.1, v1.1 SDK 2.3, v2.0
  // (Bow) SDK 2.5.1; PEARC'22 names none, so the default 2.4.0.
  register_model_params();
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"configs/workloads/mlperf_v1.0_bert_pod16.json", "2.1.0"},
      {"configs/workloads/mlperf_v1.0_bert_pod64.json", "2.1.0"},
      {"configs/validation/setups/mlperf_v1.0_bert_pod16_open.json", "2.1.0"},
      {"configs/validation/setups/mlperf_v1.0_resnet50_pod64.json", "2.1.0"},
      {"configs/workloads/mlperf_v1.1_resnet50_pod16.json", "2.3.0"},
      {"configs/workloads/mlperf_v1.1_resnet50_pod64.json", "2.3.0"},
      {"configs/validation/setups/mlperf_v1.1_bert_pod64.json", "2.3.0"},
      {"configs/validation/setups/mlperf_v1.1_resnet50_pod128.json", "2.3.0"},
      {"configs/validation/setups/mlperf_v2.0_bert_bow_pod256.json", "2.5.1"},
      {"configs/validation/setups/mlperf_v2.0_resnet50_bow_pod128.json", "2.5.1"},
      {"configs/validation/setups/pearc22_resnet50_1ipu.json", "2.4.0"},
  };
  for (const auto& [file, release] : runs) {
    INFO(file);
    ConfigDoc doc = ConfigDoc::load_file(src() + "/" + file);
    const PoplarSdk sdk = read_hw_params(doc).chip.poplar_sdk;
    CHECK(to_string(sdk) == release);
    CHECK(poplar_sdk_from_string(release) == sdk);
  }
}

TEST_CASE("defaults are the GC200 / IPU-M2000 values", "[params]") {
  const HwParams p = read(Json::object());
  CHECK(p.ipu_link.link_Bpns() == Approx(128.0 * 1073741824.0 / 8e9 * 0.85));
  CHECK(p.num_ipus() == 64);
  CHECK(p.machine.capacity_bytes() == 128ull << 30);
}

TEST_CASE("bad hardware configs are errors with the JSON path", "[params]") {
  CHECK_THROWS_WITH(read(Json{{"chip", {{"tilez", 3}}}}),
                    Catch::Contains("/chip/tilez") && Catch::Contains("tiles"));
  // The chip key of old names where the SDK went.
  CHECK_THROWS_WITH(read(Json{{"chip", {{"amp_vertex_sdk_major", 1}}}}),
                    Catch::Contains("/chip/amp_vertex_sdk_major") &&
                        Catch::Contains("moved to /software/poplar_sdk_version"));
  CHECK_THROWS_WITH(read(Json{{"software", {{"poplar_sdk_version", "2.1"}}}}),
                    Catch::Contains("/software/poplar_sdk_version") && Catch::Contains("1.0.49"));
  // A release without a table (2.2.0 ran no modelled measurement): the closed list.
  CHECK_THROWS_WITH(read(Json{{"software", {{"poplar_sdk_version", "2.2.0"}}}}),
                    Catch::Contains("/software/poplar_sdk_version") &&
                        Catch::Contains("1.0.49, 2.1.0, 2.3.0, 2.4.0, 2.5.1"));
  CHECK_THROWS_WITH(read(Json{{"software", {{"sdk", "1.0.49"}}}}),
                    Catch::Contains("/software/sdk") && Catch::Contains("poplar_sdk_version"));
  CHECK_THROWS_WITH(
      read(Json{{"ipu_link", {{"partner_links", 9}}}}),
      Catch::Contains("/ipu_link/partner_links") && Catch::Contains("exceed links_per_ipu"));
  CHECK_THROWS_WITH(read(Json{{"system", {{"num_ilds", 2}}}}),
                    Catch::Contains("/system/gw_topology"));
  CHECK_THROWS_WITH(
      read(Json{{"machine", {{"ipus_per_machine", 3}}}, {"system", {{"machines_per_ild", 1}}}}),
      Catch::Contains("/machine/ipus_per_machine: 3 IPUs cannot form a machine"));
  CHECK_THROWS_WITH(read(Json{{"system", {{"ipu_link_topology", "ring"}}}}),
                    Catch::Contains("ladder, torus"));
  CHECK_THROWS_AS(read(Json{{"chip", {{"clock_GHz", -1}}}}), ConfigError);
}

TEST_CASE("only machine and Pod shapes the hardware has are accepted (M2K-DS, PODDA)", "[params]") {
  const auto sys = [](Json system) { return Json{{"system", std::move(system)}}; };
  // Accepted: 2 or 4 IPUs per machine, 1 for a one-machine system; power-of-two Pods.
  CHECK(read(Json{{"machine", {{"ipus_per_machine", 2}}}}).num_ipus() == 32);
  CHECK(read(Json{{"machine", {{"ipus_per_machine", 1}}}, {"system", {{"machines_per_ild", 1}}}})
            .num_ipus() == 1);
  CHECK(read(sys({{"machines_per_ild", 8}})).num_ipus() == 32);
  CHECK(read(sys({{"num_ilds", 4}, {"gw_topology", "switch"}})).num_ipus() == 256);
  // Refused, naming the file and the path.
  CHECK_THROWS_WITH(read(Json{{"machine", {{"ipus_per_machine", 1}}}}),
                    Catch::StartsWith("t.json: /machine/ipus_per_machine: 1 IPUs"));
  CHECK_THROWS_WITH(
      read(sys({{"machines_per_ild", 3}})),
      Catch::StartsWith("t.json: /system/machines_per_ild: 3 machines cannot form a Pod"));
  CHECK_THROWS_WITH(read(sys({{"machines_per_ild", 12}})),
                    Catch::Contains("/system/machines_per_ild"));
  CHECK_THROWS_WITH(read(sys({{"num_ilds", 3}, {"gw_topology", "ring"}})),
                    Catch::StartsWith("t.json: /system/num_ilds: 3 IPU-Link domains"));
  for (const char* gw : {"ring", "switch"}) {
    CHECK_THROWS_WITH(read(sys({{"gw_topology", gw}})),
                      Catch::StartsWith("t.json: /system/gw_topology: '" + std::string(gw) +
                                        "' needs num_ilds >= 2"));
  }
  // Graph compile domains (V-IPU --num-gcds): whole IPU-Link domains, a power of two.
  CHECK(read(sys({{"num_ilds", 4}, {"gw_topology", "switch"}, {"num_gcds", 4}})).system.num_gcds ==
        4);
  CHECK_THROWS_WITH(read(sys({{"num_ilds", 2}, {"gw_topology", "ring"}, {"num_gcds", 4}})),
                    Catch::StartsWith("t.json: /system/num_gcds: 4 graph compile domains"));
  CHECK_THROWS_WITH(read(sys({{"num_ilds", 4}, {"gw_topology", "switch"}, {"num_gcds", 3}})),
                    Catch::StartsWith("t.json: /system/num_gcds: 3 graph compile domains"));
  CHECK_THROWS_WITH(read(sys({{"num_gcds", 2}})), Catch::Contains("/system/num_gcds"));
  CHECK_THROWS_WITH(read(Json{{"ipu_link", {{"up_links", 0}}}}),
                    Catch::StartsWith("t.json: /ipu_link/up_links: is 0"));
  CHECK_THROWS_WITH(read(Json{{"machine", {{"gw_link", {{"links_per_machine", 0}}}}},
                              {"system", {{"num_ilds", 2}, {"gw_topology", "ring"}}}}),
                    Catch::StartsWith("t.json: /machine/gw_link/links_per_machine: is 0"));
}
