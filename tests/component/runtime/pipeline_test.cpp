// Pipelined training (pass_pipeline.hpp) against closed forms worked out by hand.
//
// Toy model: S stages, stage s on IPU s (virtualGraph = pipelineStage = s), one forward op of
// kFlopsFwd and (training) one backward op of 2 x kFlopsFwd per stage, so every stage takes f
// forward and b backward per micro-batch (b > f). PopART's schedule: forward stage s is
// pipeline stage s, its backward pipeline stage 2S-2-s; micro-batch i runs pipeline stage p in
// cycle i + p; a cycle lasts as long as its busiest IPU, then all IPUs sync.
//
// S = 2, N = 4 (pipeline stages p0 = fwd s0 on IPU 0, p1 = fwd+bwd s1 on IPU 1, p2 = bwd s0
// on IPU 0; N + 2S - 2 = 6 cycles):
//   c0: IPU0 f (mb0)                       -> f
//   c1: IPU0 f (mb1), IPU1 f+b (mb0)       -> f+b
//   c2: IPU0 f (mb2) + b (mb0), IPU1 f+b   -> f+b
//   c3: IPU0 f + b, IPU1 f+b               -> f+b
//   c4: IPU0 b (mb2), IPU1 f+b (mb3)       -> f+b
//   c5: IPU0 b (mb3)                       -> b
// S = 3, N = 5 (PopART needs N >= 2S - 1 = 5 for training; 9 cycles): IPU0 runs f in c0..c4
// and b in c4..c8, IPU1 f in c1..c5 and b in c3..c7, IPU2 f+b in c2..c6:
//   f, f, f+b, f+b, f+b, f+b, f+b, b, b.
// N = 6 adds one f+b cycle (S = 2: N = 6 two). Forward only: N + S - 1 cycles of f.
#include "tests/component/runtime/phased_chain.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

constexpr double kFlopsFwd = 2e9;

/// S stages; with `activation_bytes` > 0, x<s> (forward) and dx<s> (backward) pass between
/// neighbouring stages; `stash` sets the forward op's stash_bytes.
Json toy_model(int S, bool training, std::int64_t activation_elements = 0,
               std::uint64_t stash = 0) {
  Json tensors = Json::array(), ops = Json::array();
  for (int s = 0; s + 1 < S && activation_elements > 0; ++s) {
    tensors.push_back({{"name", "x" + std::to_string(s + 1)},
                       {"shape", {activation_elements}},
                       {"kind", "activation"}});
    tensors.push_back({{"name", "dx" + std::to_string(s + 1)},
                       {"shape", {activation_elements}},
                       {"kind", "activation"}});
  }
  for (int s = 0; s < S; ++s) {
    Json f = {{"name", "fwd" + std::to_string(s)},
              {"forward_phase", 0},
              {"vgraph", s},
              {"pipelineStage", s},
              {"flops", kFlopsFwd},
              {"stash_bytes", stash}};
    Json b = {{"name", "bwd" + std::to_string(s)},
              {"pass", "backward"},
              {"forward_phase", 0},
              {"vgraph", s},
              {"pipelineStage", s},
              {"flops", 2 * kFlopsFwd}};
    if (activation_elements > 0) {
      if (s > 0) f["inputs"] = {"x" + std::to_string(s)};
      if (s + 1 < S) f["outputs"] = {"x" + std::to_string(s + 1)};
      if (s + 1 < S) b["inputs"] = {"dx" + std::to_string(s + 1)};
      if (s > 0) b["outputs"] = {"dx" + std::to_string(s)};
    }
    ops.push_back(f);
    if (training) ops.push_back(b);
  }
  return {{"generator", "explicit"}, {"tensors", tensors}, {"ops", ops}};
}

Json workload(const Json& model, int S, int N, const std::string& recompute = "none") {
  return {{"kind", "training"},
          {"model", model},
          {"session",
           {{"replicatedGraphCount", 1},
            {"ipusPerReplica", S},
            {"accumulationFactor", N},
            {"enablePipelining", true},
            {"virtualGraphMode", "manual"},
            {"autoRecomputation", recompute}}}};
}

/// Sync after each cycle: every IPU of the replica.
double sync_ns(const TrainingRun& r, int S) {
  std::vector<std::uint32_t> ipus;
  for (int i = 0; i < S; ++i) ipus.push_back(static_cast<std::uint32_t>(i));
  return r.system->sync_cost(ipus).ns;
}

std::vector<double> cycles(const TrainingRun& r) {
  return r.results["pipeline"]["cycle_time_ns"].get<std::vector<double>>();
}

void check_cycles(const TrainingRun& r, const std::vector<double>& expected_without_sync,
                  double sync) {
  const std::vector<double> got = cycles(r);
  REQUIRE(got.size() == expected_without_sync.size());
  for (std::size_t c = 0; c < got.size(); ++c) {
    INFO("cycle " << c);
    CHECK(got[c] == Approx(expected_without_sync[c] + sync).epsilon(1e-6));
  }
}

}  // namespace

TEST_CASE("pipeline forward only: S = 3 stages of t take (N + S - 1) t for N = 6", "[pipeline]") {
  TrainingRun r = TrainingRun::make("pod4", workload(toy_model(3, false), 3, 6));
  const double t = r.compute_ns(kFlopsFwd, r.system->chip().tiles);
  const double s = sync_ns(r, 3);
  CHECK(r.results["pipeline"]["cycles"] == 8);
  check_cycles(r, std::vector<double>(8, t), s);
  CHECK(r.results["pipeline"]["loop_time_ns"].get<double>() == Approx(8 * (t + s)).epsilon(1e-6));
}

/// S = 2 training with N micro-batches (one simulation per process: one TEST_CASE per N).
void check_two_stages(int N) {
  TrainingRun r = TrainingRun::make("pod4", workload(toy_model(2, true), 2, N));
  const double f = r.compute_ns(kFlopsFwd, r.system->chip().tiles),
               b = r.compute_ns(2 * kFlopsFwd, r.system->chip().tiles);
  std::vector<double> expected = {f};
  for (int i = 0; i < N; ++i) expected.push_back(f + b);
  expected.push_back(b);
  CHECK(r.results["pipeline"]["pipeline_stages"] == 3);
  CHECK(r.results["pipeline"]["ramp_up_cycles"] == 2);
  CHECK(r.results["pipeline"]["main_cycles"] == N - 2);
  check_cycles(r, expected, sync_ns(r, 2));
}

TEST_CASE("pipeline training S = 2, N = 4: fill, main and flush cycles", "[pipeline]") {
  check_two_stages(4);
}
TEST_CASE("pipeline training S = 2, N = 6: fill, main and flush cycles", "[pipeline]") {
  check_two_stages(6);
}

/// S = 3 training with N micro-batches.
void check_three_stages(int N) {
  TrainingRun r = TrainingRun::make("pod4", workload(toy_model(3, true), 3, N));
  const double f = r.compute_ns(kFlopsFwd, r.system->chip().tiles),
               b = r.compute_ns(2 * kFlopsFwd, r.system->chip().tiles);
  std::vector<double> expected = {f, f};
  for (int i = 0; i < N; ++i) expected.push_back(f + b);
  expected.push_back(b);
  expected.push_back(b);
  check_cycles(r, expected, sync_ns(r, 3));
  // IPU 2 (the last stage) computes f + b for each micro-batch; the rest of the loop is its bubble.
  const Json& ipu2 = r.results["pipeline"]["ipus"][2];
  CHECK(ipu2["busy_ns"].get<double>() == Approx(N * (f + b)).epsilon(1e-6));
}

TEST_CASE("pipeline training S = 3, N = 5: fill, main and flush cycles", "[pipeline]") {
  check_three_stages(5);
}
TEST_CASE("pipeline training S = 3, N = 6: fill, main and flush cycles", "[pipeline]") {
  check_three_stages(6);
}

TEST_CASE("pipeline IpuCopy moves every boundary activation and gradient in every cycle",
          "[pipeline]") {
  const std::int64_t elements = 1 << 20;  // float16: 2 MiB per micro-batch
  const int N = 6;
  TrainingRun r = TrainingRun::make("pod4", workload(toy_model(3, true, elements), 3, N));
  // Two boundaries (x1, x2) forward and two gradients (dx1, dx2) backward, each copied in all
  // N + 2S - 2 = 6 + 4 = 10 cycles, fill and flush included (PopART adds the whole IpuCopy
  // program to every pipeline cycle): 4 x 10 x 2 MiB.
  CHECK(r.results["pipeline"]["cycles"] == N + 4);
  CHECK(r.results["pipeline"]["ipu_copy"]["bytes_per_replica"] ==
        static_cast<std::uint64_t>(4 * (N + 4) * elements * 2));
  CHECK(r.results["pipeline"]["ipu_copy"]["time_ns"].get<double>() > 0);
}

TEST_CASE("pipeline IpuCopy: the fill and flush cycles pay the same copy time as the main ones",
          "[pipeline]") {
  // S = 3, N = 5 with 2 MiB boundaries: cycles f, f, f+b x 5, b, b (see the header), each
  // followed by the same merged copies (vg0<->vg1, vg1<->vg2, both directions) and the sync.
  // So cycle time minus its compute is one constant T: the first fill cycle (only stage 0 has
  // a micro-batch, so only x1 carried data before) and the last flush cycle (only stage 0's
  // backward: no copy at all before) pay the copy of a main cycle.
  const std::int64_t elements = 1 << 20;
  const int N = 5;
  TrainingRun r = TrainingRun::make("pod4", workload(toy_model(3, true, elements), 3, N));
  const double f = r.compute_ns(kFlopsFwd, r.system->chip().tiles),
               b = r.compute_ns(2 * kFlopsFwd, r.system->chip().tiles);
  const std::vector<double> got = cycles(r);
  REQUIRE(got.size() == static_cast<std::size_t>(N + 4));
  const double T = got[4] - (f + b);  // a main cycle
  CHECK(T > 0);
  CHECK(got.front() - f == Approx(T).epsilon(1e-6));
  CHECK(got.back() - b == Approx(T).epsilon(1e-6));
  CHECK(got[got.size() - 2] - b == Approx(T).epsilon(1e-6));
}

TEST_CASE("pipeline recomputation: none stashes everything the forward keeps", "[pipeline]") {
  // 3 stages, x1/x2 of 1 MiB (float16, 2^19 elements), every forward op stashes 8 MiB.
  // Stage 1 keeps 2(S-1-1)+1 = 3 micro-batches in flight; stage 0: 5; stage 2 (the last): 1.
  const std::int64_t elements = 1 << 19;
  const std::uint64_t stash = 8u << 20;
  const int N = 6;
  TrainingRun none =
      TrainingRun::make("pod4", workload(toy_model(3, true, elements, stash), 3, N, "none"));
  const Json& s1 = none.results["pipeline"]["stages"][1];
  CHECK(s1["micro_batches_in_flight"] == 3);
  CHECK(s1["stash_bytes"] == 3 * stash);  // no recomputation: everything the forward keeps
  CHECK(s1["recompute_flops_per_micro_batch"] == 0.0);
}

TEST_CASE(
    "pipeline recomputation (pipeline): stash = stage input x in-flight, backward adds the forward",
    "[pipeline]") {
  const std::int64_t elements = 1 << 19;
  const std::uint64_t act = elements * 2, stash = 8u << 20;
  const int N = 6;
  TrainingRun r =
      TrainingRun::make("pod4", workload(toy_model(3, true, elements, stash), 3, N, "pipeline"));
  const Json& st = r.results["pipeline"]["stages"];
  // Stage 1: its input x1 (1 MiB) for 3 micro-batches instead of 3 x 8 MiB; saves 21 MiB.
  CHECK(st[1]["stash_bytes"] == 3 * act);
  CHECK(st[1]["recompute_flops_per_micro_batch"] == kFlopsFwd);
  // Stage 0 has no input activation: nothing but a 1-byte marker per micro-batch.
  CHECK(st[0]["stash_bytes"] == 5);
  // The last stage runs forward and backward in the same cycle: not recomputed.
  CHECK(st[2]["recompute_flops_per_micro_batch"] == 0.0);
  CHECK(st[2]["stash_bytes"] == stash);
  // Backward of stage 1 = its recomputed forward f + its backward b.
  const double f = r.compute_ns(kFlopsFwd, r.system->chip().tiles),
               b = r.compute_ns(2 * kFlopsFwd, r.system->chip().tiles);
  CHECK(st[1]["backward_ns_per_micro_batch"].get<double>() == Approx(f + b).epsilon(1e-6));
}

TEST_CASE(
    "pipeline recomputation (pipeline): a checkpoint inside a stage is stashed per micro-batch",
    "[pipeline]") {
  // toy_model(3) with stage 1 split into two recomputation units: fwd1 (reads x1, the stage
  // input, writes y1; stash 8 MiB) and fwd1b (reads y1, a checkpoint, writes x2; stash 4 MiB).
  // PopART (pipeline.cpp getStashCandidateTensors; irlowering.cpp FindRequiredRecomputes)
  // stashes x1 and the checkpoint y1 for each of the 3 micro-batches in flight, 3 x 2 MiB, and
  // rebuilds one unit at a time: the buffer is the larger unit, 8 MiB. (Before: the stash held
  // x1 alone, 3 MiB, and the buffer x1 + y1 + 8 MiB = 10 MiB.)
  const std::int64_t elements = 1 << 19;  // 1 MiB in float16
  const std::uint64_t act = elements * 2, stash = 8u << 20, stash_b = 4u << 20;
  Json model = toy_model(3, true, elements, stash);
  model["tensors"].push_back({{"name", "y1"}, {"shape", {elements}}, {"kind", "activation"}});
  for (Json& o : model["ops"])
    if (o["name"] == "fwd1") o["outputs"] = {"y1"};
  model["ops"].push_back({{"name", "fwd1b"},
                          {"forward_phase", 0},
                          {"vgraph", 1},
                          {"pipelineStage", 1},
                          {"flops", kFlopsFwd},
                          {"stash_bytes", stash_b},
                          {"inputs", {"y1"}},
                          {"outputs", {"x2"}}});
  TrainingRun r = TrainingRun::make("pod4", workload(model, 3, 6, "pipeline"));
  const Json& s1 = r.results["pipeline"]["stages"][1];
  CHECK(s1["micro_batches_in_flight"] == 3);
  CHECK(s1["stash_bytes"] == 3 * (act + act));
  CHECK(s1["recompute_buffer_bytes"] == stash);
}

/// The ConfigError a pipelined workload raises on pod4 ("" if none).
std::string pipeline_error(const Json& wl, int ipus_per_replica) {
  register_sim_params();
  register_model_params();
  register_runtime_params();
  Json root = ConfigDoc::load_file(source_dir() + "/configs/systems/pod4.json").root();
  root["workload"] = wl;
  root["workload"]["session"]["ipusPerReplica"] = ipus_per_replica;
  ConfigDoc doc = ConfigDoc::from_json(root, "test:pod4");
  auto system = build_system(doc);
  try {
    (void)make_workload(*system, ConfigNode(doc, "").child("workload"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("pipeline error: accumulationFactor below the number of pipeline stages", "[pipeline]") {
  // S = 3 training fills 2S - 1 = 5 pipeline stages; 4 micro-batches are too few.
  CHECK_THAT(pipeline_error(workload(toy_model(3, true), 3, 4), 3),
             Catch::Contains(
                 "must equal at least double the number of pipeline stages (3), minus one: 5"));
  // Forward only: S = 3 micro-batches are enough, 2 are not.
  CHECK_THAT(pipeline_error(workload(toy_model(3, false), 3, 2), 3),
             Catch::Contains("must equal at least the number of pipeline stages (3)"));
}

TEST_CASE("pipeline error: a virtualGraph beyond ipusPerReplica", "[pipeline]") {
  CHECK_THAT(pipeline_error(workload(toy_model(3, true), 3, 8), 2),
             Catch::Contains("has virtualGraph 2 but ipusPerReplica is 2"));
}

TEST_CASE("pipeline error: a stage with no ops", "[pipeline]") {
  Json m = toy_model(3, true);
  for (Json& op : m["ops"])
    if (op["pipelineStage"] == 1) {
      op["pipelineStage"] = 2;
      op["vgraph"] = 2;
    }
  CHECK_THAT(pipeline_error(workload(m, 3, 8), 3), Catch::Contains("pipeline stage 1 has no ops"));
}

/// One optimizer update op of 1 FP32 flop on every tile (phased_chain's w<i>/update): the op
/// overhead plus one cycle of vector work, as compute_cycles times it.
double one_update_ns(const TrainingRun& r) {
  ComputeSpec u;
  u.flops = 1.0;
  u.unit = ComputeUnit::Vector;
  u.dtype = ComputeDType::Float32;
  u.tiles = r.system->chip().tiles;
  return r.system->clock().cycles_to_ns(static_cast<double>(compute_cycles(r.system->chip(), u)));
}

TEST_CASE("pipeline optimizer: one update op per weight, each paying the per-op cost, by hand",
          "[pipeline]") {
  // Two layers (phased_chain: weights w0, w1, each updated by its own optimizer op of 1 flop,
  // vector unit, float32), one stage, N = 2, one replica: no gradient all-reduce, so the
  // optimizer phase is the two updates one after another, then the sync of the one IPU. Each
  // costs the op overhead plus one cycle of vector work (compute_cycles), as the phased
  // lowering runs them; one merged update would pay the overhead once.
  Json model = phased_chain(2, {1 << 10}, kFlopsFwd, 2 * kFlopsFwd, true);
  TrainingRun r = TrainingRun::make("pod4", workload(model, 1, 2));
  const double update_ns = one_update_ns(r);
  REQUIRE(update_ns >
          r.system->clock().cycles_to_ns(static_cast<double>(r.system->chip().op_overhead_cycles)));
  CHECK(r.results["pipeline"]["optimizer_time_ns"].get<double>() ==
        Approx(2 * update_ns + sync_ns(r, 1)).margin(0.01));
}

TEST_CASE("pipeline gradient accumulation: one accumulate op per weight and micro-batch, by hand",
          "[pipeline]") {
  // phased_chain's two layers on one stage (one IPU, N = 2 micro-batches), each weight w<i>
  // (1,024 FP16 elements) with an FP16 accumulator w<i>/accum read and written by its update.
  // Each micro-batch adds each weight's gradient into its accumulator with its own op (PopART's
  // AccumulateOp, TensorFlow's GradientAccumulatorAdd): 1,024 adds, 3 x 2,048 B (accumulator
  // read and written, gradient read), the op overhead each. A cycle of the accumulation loop is
  // the stage's forward (fwd0, fwd1) and backward (bwd1, bwd0, then the two accumulations)
  // one after another, then the sync of the one IPU. One merged accumulation (2,048 adds,
  // 12,288 B) would pay the overhead once: 2 x acc1 - acc2 = op_overhead_cycles less per cycle.
  const std::int64_t elements = 1 << 10;
  Json model = phased_chain(2, {elements}, kFlopsFwd, 2 * kFlopsFwd, true);
  for (int i = 0; i < 2; ++i) {
    const std::string w = "w" + std::to_string(i);
    model["tensors"].push_back({{"name", w + "/accum"},
                                {"shape", {elements}},
                                {"dtype", "float16"},
                                {"kind", "accumulator"}});
    for (Json& op : model["ops"])
      if (op["name"] == w + "/update") {
        op["inputs"].push_back(w + "/accum");
        op["outputs"].push_back(w + "/accum");
      }
  }
  TrainingRun r = TrainingRun::make("pod4", workload(model, 1, 2));
  const std::uint32_t tiles = r.system->chip().tiles;
  ComputeSpec acc;
  acc.flops = static_cast<double>(elements);
  acc.bytes = static_cast<std::uint64_t>(elements) * 2 * 3;
  acc.unit = ComputeUnit::Vector;
  acc.dtype = ComputeDType::Float16;
  acc.tiles = tiles;
  const double acc_ns =
      r.system->clock().cycles_to_ns(static_cast<double>(compute_cycles(r.system->chip(), acc)));
  const double f = r.compute_ns(kFlopsFwd, tiles), b = r.compute_ns(2 * kFlopsFwd, tiles);
  REQUIRE(acc_ns >
          r.system->clock().cycles_to_ns(static_cast<double>(r.system->chip().op_overhead_cycles)));
  check_cycles(r, {2 * f + 2 * b + 2 * acc_ns, 2 * f + 2 * b + 2 * acc_ns}, sync_ns(r, 1));
}

/// Two pipelined layers (phased_chain with the optimizer), layer i on IPU i, one replica (no
/// gradient collective), N = 4, under accumulateOuterFragmentSettings `aof` (null: PopART's
/// default). Returns the optimizer phase and one update's time alone (each IPU's accumulate
/// outer fragment is its one update op: the op overhead plus one cycle of vector work).
std::pair<double, double> two_ipu_optimizer(const Json& aof) {
  Json model = phased_chain(2, {1 << 10}, kFlopsFwd, 2 * kFlopsFwd, true);
  for (Json& op : model["ops"]) {
    const std::string n = op["name"].get<std::string>();
    const int layer = n.find('1') != std::string::npos ? 1 : 0;  // fwd1, bwd1, w1/update
    op["vgraph"] = layer;
    op["pipelineStage"] = layer;
  }
  Json wl = workload(model, 2, 4);
  if (!aof.is_null()) wl["session"]["accumulateOuterFragmentSettings"] = aof;
  TrainingRun r = TrainingRun::make("pod4", wl);
  const double update_ns = one_update_ns(r);
  return {r.results["pipeline"]["optimizer_time_ns"].get<double>() - sync_ns(r, 2), update_ns};
}

TEST_CASE("pipeline optimizer: Serial (PopART's default) runs the IPUs' updates one after another",
          "[pipeline]") {
  // IPU 0's update, then IPU 1's: 2 x update (then the sync of both IPUs).
  const auto [phase, update] = two_ipu_optimizer(Json());
  CHECK(phase == Approx(2 * update).margin(0.01));
}

/// The sum of the durations of the accumulate outer fragment's ops of virtual graph `vg` (all
/// graphs when vg < 0) in a run's after_loop.
double chain_ns(const Json& after_loop, int vg) {
  double sum = 0;
  for (const Json& op : after_loop["ops"])
    if (vg < 0 || op["vgraph"].get<int>() == vg) sum += op["duration_ns"].get<double>();
  return sum;
}

/// two_ipu_optimizer with the optimizer state off chip: the optimizer phase (without the sync)
/// and the outer fragment's ops.
std::pair<double, Json> two_ipu_optimizer_off_chip(const Json& aof) {
  Json model = phased_chain(2, {1 << 10}, kFlopsFwd, 2 * kFlopsFwd, true);
  for (Json& op : model["ops"]) {
    const std::string n = op["name"].get<std::string>();
    const int layer = n.find('1') != std::string::npos ? 1 : 0;
    op["vgraph"] = layer;
    op["pipelineStage"] = layer;
  }
  Json wl = workload(model, 2, 4);
  wl["session"]["accumulateOuterFragmentSettings"] = aof;
  wl["session"]["optimizerStateTensorLocationSettings"] = {{"location", {{"storage", "off_chip"}}}};
  TrainingRun r = TrainingRun::make("pod4", wl);
  return {r.results["pipeline"]["optimizer_time_ns"].get<double>() - sync_ns(r, 2),
          r.results["after_loop"]};
}

TEST_CASE(
    "pipeline optimizer: OverlapMemoryOptimized with the state off chip runs the IPUs together",
    "[pipeline]") {
  // Each IPU streams its optimizer state in, updates and streams it out (remote ops PopART's
  // parallelizer ties across virtual graphs): the two chains run side by side, so the phase is
  // one chain, half of the two chains' sum (the chains are the same).
  const auto [phase, ops] = two_ipu_optimizer_off_chip({{"schedule", "OverlapMemoryOptimized"}});
  CHECK(chain_ns(ops, 0) > 0);
  CHECK(chain_ns(ops, 0) == Approx(chain_ns(ops, 1)).epsilon(1e-9));
  CHECK(phase == Approx(chain_ns(ops, 0)).margin(0.01));
}

TEST_CASE("pipeline optimizer: with the optimizer state on chip an overlap schedule is serial",
          "[pipeline]") {
  // PopART's AccumulateOuterFragmentParallelizer drops every cluster without a remote op
  // (filterOpClusters) and ties only RemoteLoad / RemoteStore ops of different virtual graphs:
  // with nothing streamed from off chip, IPU 0's update and IPU 1's run one after another, as
  // under Serial: 2 x update.
  const auto [phase, update] = two_ipu_optimizer({{"schedule", "OverlapMemoryOptimized"}});
  CHECK(phase == Approx(2 * update).margin(0.01));
}

TEST_CASE("pipeline optimizer: an excluded virtual graph runs after the overlapping ones",
          "[pipeline]") {
  // State off chip: IPU 1 overlaps nothing else, IPU 0 is excluded and follows it: the phase is
  // both chains one after another.
  const auto [phase, ops] = two_ipu_optimizer_off_chip(
      {{"schedule", "overlap_cycle_optimized"}, {"excludedVirtualGraphs", {0}}});
  CHECK(phase == Approx(chain_ns(ops, -1)).margin(0.01));
  CHECK(phase == Approx(2 * chain_ns(ops, 0)).margin(0.01));
}

TEST_CASE("pipeline error: accumulateOuterFragmentSettings names the bad value", "[pipeline]") {
  Json wl = workload(toy_model(2, true), 2, 4);
  wl["session"]["accumulateOuterFragmentSettings"] = {{"excludedVirtualGraphs", {2}}};
  CHECK_THAT(pipeline_error(wl, 2),
             Catch::Contains("accumulateOuterFragmentSettings/excludedVirtualGraphs") &&
                 Catch::Contains("virtual graph ids from 0 to ipusPerReplica - 1 = 1, got 2"));
  wl["session"]["accumulateOuterFragmentSettings"] = {{"schedule", "parallel"}};
  CHECK_THAT(pipeline_error(wl, 2), Catch::Contains("accumulateOuterFragmentSettings/schedule") &&
                                        Catch::Contains("overlap_memory_optimized"));
}

TEST_CASE("pipeline optimizer: PopART all-reduces each weight's gradient with its own collective",
          "[pipeline]") {
  // phased_chain's two layers on one stage (N = 2), 2 replicas of one IPU on pod4, no RTS. Per
  // weight w<i> (1,024 FP16 elements, below minElementsForReplicatedTensorSharding): its own
  // all-reduce over the 2 replicas (one GCL call per ReplicatedAllReduceOp), then the two
  // updates (one_update_ns each), all on one IPU in a chain: the phase is a0 + a1 + 2u, then
  // the sync of the two replicas' IPUs. The two all-reduces are the same collective (same size,
  // group and links), so a0 == a1: each pays a collective's whole fixed cost (one merged all-reduce
  // of 2,048 elements would pay it once).
  Json wl = workload(phased_chain(2, {1 << 10}, kFlopsFwd, 2 * kFlopsFwd, true), 1, 2);
  wl["session"]["replicatedGraphCount"] = 2;
  TrainingRun r = TrainingRun::make("pod4", wl);
  std::vector<double> ar;
  for (const Json& op : r.results["after_loop"]["ops"]) {
    if (op["kind"] != "collective") continue;
    CHECK(op["op"] == "allreduce");
    CHECK(op["elements"] == 1024);
    ar.push_back(op["duration_ns"].get<double>());
  }
  REQUIRE(ar.size() == 2);
  CHECK(ar[0] == Approx(ar[1]).epsilon(1e-12));
  CHECK(ar[0] > 0);
  CHECK(r.results["pipeline"]["optimizer_time_ns"].get<double>() ==
        Approx(ar[0] + ar[1] + 2 * one_update_ns(r) + sync_ns(r, 2)).margin(0.01));
}
