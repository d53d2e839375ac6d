// The training workload through the CLI: a model too large for SRAM is reported, with
// /workload/memory/on_overflow = error as bad input (exit 2) and = warn as a warning that
// names the phase and the largest tensors (exit 0).
#include <catch2/catch.hpp>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

constexpr std::uint64_t kSmall = 1024ull * 1024 * 2;    // w_small: 1024 x 1024 float16
constexpr std::uint64_t kBig = 20480ull * 15360 * 2;    // w_big: 600 MiB float16
constexpr std::uint64_t kTemp = 400ull << 20;           // op b's working memory: 400 MiB
constexpr std::uint64_t kTiles = 1472, kSram = 638976;  // GC200 (configs/chips/gc200.json)

/// One replica on an IPU-POD4: phase 0 reads the off-chip w_small and preloads w_big, phase 1
/// reads w_big with 400 MiB of working memory: 1000 MiB on the compute tiles, more than the
/// 1472 x 624 KiB of SRAM, while phase 0 (602 MiB) fits.
std::string config(const Scratch& s, const std::string& on_overflow) {
  const Json cfg = {
      {"$include", {source_path("configs/systems/pod4.json")}},
      {"workload",
       {{"kind", "training"},
        {"model",
         {{"generator", "explicit"},
          {"tensors",
           Json::array({{{"name", "w_small"}, {"shape", {1024, 1024}}, {"kind", "weight"}},
                        {{"name", "w_big"}, {"shape", {20480, 15360}}, {"kind", "weight"}}})},
          {"ops",
           Json::array(
               {{{"name", "a"}, {"forward_phase", 0}, {"flops", 1e9}, {"inputs", {"w_small"}}},
                {{"name", "b"},
                 {"forward_phase", 1},
                 {"flops", 1e9},
                 {"inputs", {"w_big"}},
                 {"temp_bytes", kTemp}}})}}},
        {"session",
         {{"replicatedGraphCount", 1},
          {"weightTensorLocationSettings", {{"location", {{"storage", "off_chip"}}}}}}},
        {"memory", {{"on_overflow", on_overflow}}}}}};
  return s.write("overflow_" + on_overflow + ".json", cfg.dump(1));
}

}  // namespace

TEST_CASE("training: on_overflow=error refuses a model too large for SRAM with exit 2",
          "[cli][training]") {
  Scratch s;
  const CliResult r = run_cli(s, {"run", config(s, "error"), "--out", s.path("o"), "--quiet"});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/workload/memory/on_overflow: error: the model does not fit in SRAM") !=
        std::string::npos);
  CHECK(r.err.find(config(s, "error")) != std::string::npos);  // the file that set it
  CHECK(r.err.find("phase 1 (virtual graph 0)") != std::string::npos);
  CHECK(r.err.find("w_big (weight, " + std::to_string(kBig) + " B)") != std::string::npos);
}

TEST_CASE(
    "training: on_overflow=warn runs (exit 0) and warns naming the phase and the largest tensors",
    "[cli][training]") {
  Scratch s;
  const CliResult r = run_cli(s, {"run", config(s, "warn"), "--out", s.path("o"), "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::uint64_t tile =
      (kBig + kTemp + kTiles - 1) / kTiles;  // busiest compute tile in phase 1
  REQUIRE(tile > kSram);
  CHECK(r.err.find("does not fit in SRAM") != std::string::npos);
  CHECK(r.err.find("phase 1 (virtual graph 0) needs " + std::to_string(tile) + " B") !=
        std::string::npos);
  CHECK(r.err.find("w_big (weight, " + std::to_string(kBig) + " B)") != std::string::npos);
  CHECK(r.err.find("(working memory) (temporary, " + std::to_string(kTemp) + " B)") !=
        std::string::npos);
  const Json report = Json::parse(read_text(s.path("o/report.json")));
  CHECK(report["memory"]["fits"] == 0);
  CHECK(report["memory"]["max_tile_bytes"] == tile);
  CHECK(report["memory"]["per_ipu_bytes"] == kBig + kTemp);
  // Only IPU 0 of the IM2000 runs a replica: its buffers alone fill streaming memory.
  CHECK(report["memory"]["streaming_memory_per_machine_bytes"] == kSmall + kBig);
  const Json& mem = report["workload"]["memory"];
  CHECK(mem["worst_phase"] == 1);
  CHECK(mem["largest_in_worst_phase"][0]["tensor"] == "w_big");
  CHECK(mem["largest_in_worst_phase"][1]["what"] == "temporary");
  CHECK(mem["overflow"].get<std::string>().find("phase 1") != std::string::npos);
  CHECK(report["simulated"]["time_ns"].get<double>() > 0);
}
