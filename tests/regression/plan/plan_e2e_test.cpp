// `ipusim plan` end to end on MLPerf BERT-Large (Pod16) over small spaces: the memory bound
// against every simulated configuration, plan against the exhaustive search, bad input,
// --resume, and the best configuration as a runnable config.
#include <catch2/catch.hpp>
#include <set>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// SRAM per tile of the GC200 (chips/gc200.json, IPU Programmer's Guide: 624 KiB).
constexpr double kSramPerTile = 638976;

std::string bert() { return source_path("configs/workloads/mlperf_v1.0_bert_pod16.json"); }

/// 32 configurations: 4 replicas x 4-IPU pipelines, both splits, 2 micro-batches, RTS off
/// or over all replicas, optimizer state on or off chip, no or pipeline recomputation.
const char* kSmallSpace = R"({"ipus_per_replica": [4], "execution": ["pipelined"],
  "pipeline_split": ["time", "memory"], "micro_batch": [1, 2], "rts": ["off", "all"],
  "weights": ["on_chip"], "optimizer_state": ["on_chip", "off_chip"], "activations": ["on_chip"],
  "io_tiles": [0], "recomputation": ["none", "pipeline"], "batch_serialisation": [1]})";

/// kSmallSpace with 32 I/O tiles as a second choice (48 configurations): its survivors' bounds
/// spread over more than one wave (8), so the time bound has a wave to stop before.
const char* kIoTileSpace = R"({"ipus_per_replica": [4], "execution": ["pipelined"],
  "pipeline_split": ["time", "memory"], "micro_batch": [1, 2], "rts": ["off", "all"],
  "weights": ["on_chip"], "optimizer_state": ["on_chip", "off_chip"], "activations": ["on_chip"],
  "io_tiles": [0, 32], "recomputation": ["none", "pipeline"], "batch_serialisation": [1]})";

Json plan_json(const Scratch& s, const std::string& dir) {
  return Json::parse(read_text(s.path(dir + "/plan.json")));
}

CliResult plan(const Scratch& s, const std::string& dir, std::vector<std::string> extra,
               const char* space = kSmallSpace, const std::string& config = bert()) {
  std::vector<std::string> args = {"plan",   config,      "--space", s.write("space.json", space),
                                   "--out",  s.path(dir), "--jobs",  "2",
                                   "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli(s, args);
}

}  // namespace

TEST_CASE("plan enumerates the space and balances the pipeline as worked by hand", "[e2e][plan]") {
  Scratch s;
  const CliResult r = plan(s, "out", {"--exhaustive"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const Json doc = plan_json(s, "out");
  // 2 splits x 2 micro-batches x 2 RTS x 2 locations x 2 recomputations.
  CHECK(doc["counts"]["enumerated"] == 32);
  CHECK(doc["counts"]["simulated"] == 32);
  std::set<std::string> splits;
  for (const Json& e : doc["configurations"]) {
    splits.insert(e["config"]["layers_per_ipu"].dump());
    // MLPerf's global batch: 4 replicas x 2 packs x 192 = 1536.
    CHECK(e["config"]["replicas"].get<int>() * e["config"]["micro_batch"].get<int>() *
              e["config"]["accumulation_factor"].get<int>() ==
          1536);
  }
  // h = 1024, vocab 30400 (the v1.0 config's), 76 head tokens, seq 512: IPU 0's embedding +
  // heads weigh (30400 h + h^2) / 12 h^2 = 2.56 layers of parameters -> [4, 6, 7, 7]; 0.35
  // layers of flops -> [6, 6, 6, 6].
  CHECK(splits == std::set<std::string>{"[4,6,7,7]", "[6,6,6,6]"});
}

TEST_CASE("plan's memory bound never drops a configuration the simulator fits", "[e2e][plan]") {
  Scratch s;
  const CliResult full = plan(s, "full", {"--exhaustive"});
  INFO(full.out << full.err);
  REQUIRE(full.exit_code == 0);
  const CliResult pruned = plan(s, "pruned", {"--objective", "memory"});
  INFO(pruned.out << pruned.err);
  REQUIRE(pruned.exit_code == 0);
  const Json all = plan_json(s, "full")["configurations"];
  const Json cut = plan_json(s, "pruned")["configurations"];
  REQUIRE(all.size() == cut.size());
  std::size_t dropped = 0, stopped = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    INFO("configuration " << i << ": " << all[i]["config"].dump());
    REQUIRE(all[i]["status"] == "ok");
    // The bound is below what the simulator accounts, for every configuration...
    CHECK(all[i]["estimate"]["sram_bytes_per_tile_lower_bound"].get<double>() <=
          all[i]["sram_bytes_per_tile"].get<double>());
    // ...so whatever the plan drops on memory does not fit in the full search either.
    if (cut[i]["pruned_reason"] == "memory") {
      ++dropped;
      CHECK(all[i]["fits"] == false);
      CHECK(all[i]["sram_bytes_per_tile"].get<double>() > kSramPerTile);
    }
    // A survivor the simulator's memory accounting finds too large is stopped before any
    // timing, so every configuration the plan timed fits, and every one it stopped does not.
    if (cut[i]["pruned_reason"] == "memory_simulated") {
      ++stopped;
      CHECK(all[i]["fits"] == false);
    }
    if (cut[i]["status"] == "ok") CHECK(cut[i]["fits"] == true);
    if (all[i]["fits"] == false) CHECK(cut[i]["status"] == "pruned");
  }
  CHECK(plan_json(s, "pruned")["counts"]["pruned"]["memory_simulated"] == stopped);
  // Without recomputation a layer stashes s b h (34 + 5 a s / h) B per micro-batch
  // (Korthikanti et al.: 512 x 1024 x 74 = 38.8 MB at b = 1) for 2 x 4 + 1 = 9 micro-batches
  // on IPU 0: 6 layers x 9 x 38.8 MB = 2.1 GB > 1472 x 624 KiB = 941 MB (16 of 32). With
  // pipeline recomputation, optimizer state on chip without RTS (LAMB: 8 B + weights 2 B +
  // accumulators 2 B per parameter) on IPU 0's 6 layers + embedding and heads (6 x 12.6 M
  // + 31.3 M + 1 M = 107.8 M parameters, 1.29 GB), or 7 layers (88.1 M, 1.06 GB): 4 more.
  // And [6, 6, 6, 6] at micro-batch 2 with RTS over all replicas and the state on chip: pipeline
  // recomputation stashes each layer's input (its checkpoint, 2 x 512 x 1024 x 2 B = 2 MiB) per
  // micro-batch in flight, so IPU 0 holds 6 x 2 MiB x 9 = 108 MiB of stash where it kept the
  // 12 MiB once: +96 MiB / 1472 tiles = +68,385 B per tile, past the 638,976 B of SRAM: 1 more.
  CHECK(dropped == 21);
}

TEST_CASE("plan's step-time bound is below every simulated step time", "[e2e][plan]") {
  Scratch s;
  const CliResult full = plan(s, "full", {"--exhaustive"});
  INFO(full.out << full.err);
  REQUIRE(full.exit_code == 0);
  for (const Json& e : plan_json(s, "full")["configurations"]) {
    INFO("configuration " << e["index"] << ": " << e["config"].dump());
    REQUIRE(e["status"] == "ok");
    const double bound_ns = e["estimate"]["time_per_step_ns_lower_bound"].get<double>();
    // A GEMM of 2 m n k flops cannot beat the calibrated AMP rate: 6 layers x 2 x 512 x
    // 1024 x 12 x 1024 x 3 (forward + 2 backward) flops per pack on the busiest IPU, at
    // 1472 tiles x 128 flops x 0.7254 (amp_efficiency) x 1.325 GHz, times 1536 / 4 packs per
    // replica.
    const double flops = 6.0 * 2 * 512 * 1024 * 12 * 1024 * 3 * 1536 / 4;
    CHECK(bound_ns >= flops / (1472 * 128 * 0.7254 * 1.325) * 0.999);
    CHECK(bound_ns <= e["time_per_step_ns"].get<double>());
    CHECK(e["estimate"]["samples_per_s_upper_bound"].get<double>() >=
          e["samples_per_s"].get<double>());
  }
}

TEST_CASE("plan's best equals the exhaustive best", "[e2e][plan]") {
  Scratch s;
  // The workload without BERT's attention scale / mask and QKV concat (vector work the plan's
  // AMP-only time bound does not count, docs/bert_micro_batch.md): with them the best's
  // throughput comes within 1 % of the micro-batch-1 configurations' bounds and nothing is left
  // for the time bound to prune; the planner's mechanics are what this case checks.
  const std::string config =
      s.write("bert_plain_attention.json",
              R"({"$include": [")" + bert() +
                  R"("], "workload": {"model": {"transformer": {"attention_mask": "none", )"
                  R"("split_qkv": false}}}})");
  REQUIRE(plan(s, "full", {"--exhaustive"}, kIoTileSpace, config).exit_code == 0);
  // --top 1: the time bound stops as soon as no configuration left can beat the best.
  const CliResult r = plan(s, "plan", {"--top", "1"}, kIoTileSpace, config);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const Json full = plan_json(s, "full"), planned = plan_json(s, "plan");
  REQUIRE(full["best"].is_number());
  REQUIRE(planned["best"].is_number());
  CHECK(planned["counts"]["simulated"].get<int>() < full["counts"]["simulated"].get<int>());
  const double best_full =
      full["configurations"][full["best"].get<std::size_t>()]["samples_per_s"].get<double>();
  const double best_plan =
      planned["configurations"][planned["best"].get<std::size_t>()]["samples_per_s"].get<double>();
  CHECK(best_plan >= 0.99 * best_full);
  CHECK(planned["best"] == full["best"]);
  // Pruned on the time bound: each had a samples/s bound below the best the plan simulated,
  // and the exhaustive search simulated it slower still.
  CHECK(planned["counts"]["pruned"]["time_bound"].get<int>() > 0);
  for (const Json& e : planned["configurations"])
    if (e["pruned_reason"] == "time_bound") {
      CHECK(e["estimate"]["samples_per_s_upper_bound"].get<double>() < best_plan);
      CHECK(full["configurations"][e["index"].get<std::size_t>()]["samples_per_s"].get<double>() <
            best_full);
    }
  // The best of the exhaustive search is the maximum over every fitting configuration.
  for (const Json& e : full["configurations"])
    if (e["fits"] == true) CHECK(e["samples_per_s"].get<double>() <= best_full);
}

TEST_CASE("plan writes a best configuration that ipusim run runs at the planned throughput",
          "[e2e][plan]") {
  Scratch s;
  REQUIRE(plan(s, "out", {}).exit_code == 0);
  const Json doc = plan_json(s, "out");
  const CliResult r =
      run_cli(s, {"run", s.path("out/best_config.json"), "--out", s.path("run"), "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json report = Json::parse(read_text(s.path("run/report.json")));
  CHECK(report["memory"]["fits"] == 1);
  CHECK(
      report["workload"]["samples_per_s"].get<double>() ==
      Approx(doc["configurations"][doc["best"].get<std::size_t>()]["samples_per_s"].get<double>()));
}

TEST_CASE("plan --html writes an offline page holding every simulated configuration",
          "[e2e][plan][html]") {
  Scratch s;
  REQUIRE(plan(s, "out", {"--html"}).exit_code == 0);
  const Json doc = plan_json(s, "out");
  const std::string page = read_text(s.path("out/report.html"));
  CHECK(page.find("src=\"http") == std::string::npos);
  CHECK(page.find("href=\"http") == std::string::npos);
  std::size_t simulated = 0;
  for (const Json& e : doc["configurations"]) {
    if (e["status"] != "ok") continue;
    ++simulated;
    // Each simulated configuration is a point labelled with its plan.json index.
    const std::string label = "\"#" + std::to_string(e["index"].get<std::size_t>()) + "\"";
    INFO(label);
    CHECK(page.find(label) != std::string::npos);
  }
  CHECK(simulated ==
        doc["counts"]["simulated"].get<std::size_t>() - doc["counts"]["failed"].get<std::size_t>());
}

TEST_CASE("plan --resume after an interruption prints and writes the same result", "[e2e][plan]") {
  Scratch s;
  const CliResult first = plan(s, "out", {});
  REQUIRE(first.exit_code == 0);
  const std::string before = read_text(s.path("out/plan.json"));
  // An interruption leaves some simulations without their done.json marker.
  std::size_t removed = 0, kept = 0;
  for (const auto& point : fs::directory_iterator(s.path("out/points"))) {
    if ((removed + kept) % 2 == 0) {
      fs::remove(point.path() / "done.json");
      ++removed;
    } else {
      ++kept;
    }
  }
  REQUIRE(removed > 0);
  REQUIRE(kept > 0);
  fs::remove(s.path("out/plan.json"));
  const CliResult again = plan(s, "out", {"--resume"});
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(read_text(s.path("out/plan.json")) == before);
  CHECK(again.out == first.out);
}

TEST_CASE("plan refuses bad input with exit 2 naming the file, flag or JSON path", "[e2e][plan]") {
  Scratch s;
  const std::string unknown = s.write("unknown.json", R"({"micro_batches": [1]})");
  CliResult r = run_cli(s, {"plan", bert(), "--space", unknown, "--out", s.path("a")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown.json") && Catch::Contains("micro_batches"));

  const std::string bad_value = s.write("bad.json", R"({"weights": ["on_chip", "offchip"]})");
  r = run_cli(s, {"plan", bert(), "--space", bad_value, "--out", s.path("b")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/weights/1") && Catch::Contains("offchip"));

  // 16 replicas of 1 IPU: no micro-batch makes 1000 samples (1000 / 16 is not whole).
  const std::string data_parallel = s.write("dp.json", R"({"ipus_per_replica": [1]})");
  r = run_cli(s, {"plan", bert(), "--space", data_parallel, "--global-batch", "1000", "--out",
                  s.path("c")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--global-batch 1000"));

  // Everything on chip, one IPU per replica, no sharding: 336 M parameters cannot fit.
  const std::string resident = s.write("resident.json", R"({"ipus_per_replica": [1],
    "execution": ["phased"], "rts": ["off"], "weights": ["on_chip"], "optimizer_state": ["on_chip"]})");
  r = run_cli(s, {"plan", bert(), "--space", resident, "--out", s.path("d")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err,
             Catch::Contains("no configuration survives pruning") && Catch::Contains("memory"));

  r = run_cli(s, {"plan", bert(), "--objective", "speed", "--out", s.path("e")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--objective"));

  r = run_cli(
      s, {"plan", source_path("configs/workloads/allreduce_pod16.json"), "--out", s.path("f")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/workload/kind"));
}
