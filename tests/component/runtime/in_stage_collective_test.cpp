// A collective inside a training stage (pass_pipeline.hpp StageCollective), worked by hand:
// distributed batch norm's all-reduce between replica pairs in the accumulation loop.
//
// Toy model, one IPU per replica, no pipelining (S = 1), N = 2 micro-batches: a forward op of
// F flops, a forward all-reduce of B = 8,192 float32 bytes over consecutive pairs (2 x 1,024
// per-channel sums), a backward op of 2F flops and a backward all-reduce of B. A
// cycle runs f, t_c, b, t_c one after another on the compute tiles, then every IPU syncs.
// The pairs are consecutive IPUs, so GCL's small-message rule plays the all-reduce directly
// (collectives/algorithms/auto_select.cpp: B <= 1,143,480 B on the ladder of a Pod4, where
// each pair lies): a reduce-scatter step (each sends its partner B/2) and an all-gather step (B/2
// back), each one BSP superstep of
//   internal barrier + sync + exchange fixed cost + external set-up + link latency
//   + (B/2) / partner-link bandwidth (a superstep across IPUs: both barriers, patent
//   US 10,579,585 B2 claim 1, and the external exchange's set-up),
// plus one on-tile reduction of B/2/4 float32 elements and the on-chip program around the two
// cross-replica copies (runtime/exec/collective_program.hpp: fragments of 1,024 float32, 32
// per tile at the 128-B minimum, dynamic slices; per phase 2 index ops, 2 slices / updates,
// 2 copies and a copy into / out of the sliceable tensor): t_c = 2 x step + reduce + program.
// The superstep's sync spans every IPU of the collective's groups, within the graph compile
// domain: on one Pod4 the 4 IPUs of the domain; on two Pod4 domains in one GCD (a Poplar
// program's external sync spans its GCD) a domain's sync plus a GW-Link round trip, although
// the data stays on the partner links; in one GCD per domain each domain syncs alone.
#include <cmath>

#include "tests/component/collectives/collective_fixture.hpp"
#include "tests/component/runtime/phased_chain.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

constexpr double kFlops = 2e9;
constexpr double kBytes = 8192;
constexpr int kMicroBatches = 2;

Json model() {
  auto collective = [](const std::string& name, const std::string& pass) {
    return Json{{"name", name},
                {"type", "collective"},
                {"pass", pass},
                {"forward_phase", 0},
                {"vgraph", 0},
                {"pipelineStage", 0},
                {"collective_op", "allreduce"},
                {"comm_group", "consecutive:2"},
                {"dtype", "float32"},
                {"collective_bytes", kBytes}};
  };
  Json ops = Json::array();
  ops.push_back({{"name", "bn/fwd"},
                 {"forward_phase", 0},
                 {"vgraph", 0},
                 {"pipelineStage", 0},
                 {"flops", kFlops}});
  ops.push_back(collective("bn/statistics_allreduce", "forward"));
  ops.push_back({{"name", "bn/bwd"},
                 {"pass", "backward"},
                 {"forward_phase", 0},
                 {"vgraph", 0},
                 {"pipelineStage", 0},
                 {"flops", 2 * kFlops}});
  ops.push_back(collective("bn/gradients_allreduce", "backward"));
  return {{"generator", "explicit"}, {"tensors", Json::array()}, {"ops", ops}};
}

/// Runs the toy model with `replicas` on two-domain or one-domain Pod4 set-ups.
TrainingRun run_case(unsigned num_ilds, unsigned num_gcds, unsigned replicas, Json& resolved) {
  register_sim_params();
  register_model_params();
  register_runtime_params();
  Json root = ConfigDoc::load_file(source_dir() + "/configs/systems/pod4.json").root();
  root["system"]["num_ilds"] = num_ilds;
  if (num_ilds > 1) root["system"]["gw_topology"] = "ring";
  root["system"]["num_gcds"] = num_gcds;
  root["workload"] = {{"kind", "training"},
                      {"model", model()},
                      {"session",
                       {{"replicatedGraphCount", replicas},
                        {"ipusPerReplica", 1},
                        {"accumulationFactor", kMicroBatches},
                        {"enablePipelining", true},
                        {"virtualGraphMode", "manual"}}}};
  ConfigDoc doc = ConfigDoc::from_json(root, "test:in_stage_collective");
  TrainingRun r;
  r.system = build_system(doc);
  r.workload = make_workload(*r.system, ConfigNode(doc, "").child("workload"));
  sc_core::sc_start();
  REQUIRE(r.workload->failure().empty());
  REQUIRE(r.workload->finished());
  r.results = r.workload->results();
  resolved = doc.resolved();
  return r;
}

/// Partner-link bandwidth in bytes per ns: the partner links of one IPU pair times their rate
/// and usable fraction.
double partner_Bpns(const Json& r) {
  const auto& l = r["ipu_link"];
  return l["partner_links"].get<double>() * l["bandwidth_GBps_per_link"].get<double>() *
         l["efficiency"].get<double>();
}

/// The all-reduce of B between a pair whose supersteps each sync for `sync_ns`.
double allreduce_ns(const Json& r, double sync_ns) {
  const double step = sync_ns + fixed_ns(r) + cross_ipu_ns(r) +
                      r["ipu_link"]["latency_ns"].get<double>() + (kBytes / 2) / partner_Bpns(r);
  return 2 * step + reduce_ns(r, kBytes / 2 / 4) +
         allreduce_program_ns(r, 1, kBytes / 2 / 4, kBytes / 4);
}

void check(const TrainingRun& run, const Json& r, double coll_sync_ns, double phase_sync_ns) {
  const double f = run.compute_ns(kFlops, run.system->chip().tiles);
  const double b = run.compute_ns(2 * kFlops, run.system->chip().tiles);
  const double tc = allreduce_ns(r, coll_sync_ns);
  const Json& pipe = run.results["pipeline"];
  REQUIRE(pipe["cycles"] == kMicroBatches);
  const auto cycles = pipe["cycle_time_ns"].get<std::vector<double>>();
  REQUIRE(cycles.size() == static_cast<std::size_t>(kMicroBatches));
  // Within a picosecond of rounding per superstep and op.
  for (double c : cycles) CHECK(c == Approx(f + b + 2 * tc + phase_sync_ns).margin(0.01));
  CHECK(pipe["in_stage_collectives"]["ops"] == 2 * kMicroBatches);
  CHECK(pipe["in_stage_collectives"]["time_ns"].get<double>() ==
        Approx(2 * kMicroBatches * tc).margin(0.01));
  // The per-micro-batch figures are the compute alone, the collectives excluded.
  CHECK(pipe["stages"][0]["forward_ns_per_micro_batch"].get<double>() == Approx(f).margin(0.01));
  CHECK(pipe["stages"][0]["backward_ns_per_micro_batch"].get<double>() == Approx(b).margin(0.01));
}

}  // namespace

TEST_CASE("in-stage all-reduce between replica pairs on one Pod4, by hand", "[pipeline][bn]") {
  Json r;
  const TrainingRun run = run_case(1, 1, 4, r);
  // 4 IPUs, 1 domain: 15 ns per hop x 2 hops x 2 at 1.325 GHz = 80 cycles per sync.
  check(run, r, external_sync_ns(r, 4), external_sync_ns(r, 4));
}

TEST_CASE("in-stage all-reduce in one GCD over two Pod4 domains syncs across the GW-Links",
          "[pipeline][bn]") {
  Json r;
  const TrainingRun run = run_case(2, 1, 8, r);
  // The pairs' data stays on partner links; each superstep's sync is the GCD's: 80 + 5,300
  // cycles (2 us GW-Link latency each way) = 4,060.38 ns instead of 60.38 ns.
  check(run, r, cross_domain_sync_ns(r), cross_domain_sync_ns(r));
}

TEST_CASE("in-stage all-reduce with one GCD per domain syncs each domain alone", "[pipeline][bn]") {
  Json r;
  const TrainingRun run = run_case(2, 2, 8, r);
  // The cycle's closing sync still spans every IPU of the program (the executor's phase sync).
  check(run, r, external_sync_ns(r, 4), cross_domain_sync_ns(r));
  // The sync stats say so too, also for the all-reduces replayed from the executor's cache:
  // 4 all-reduces x 2 supersteps, each synced by the 2 GCDs on their own = 16 domain syncs of
  // 80 cycles; only the executor's phase syncs cross the GW-Links (80 + 5,300 cycles each).
  Json stats = Json::object();
  run.system->sync_controller().collect_stats(stats);
  CHECK(stats["external"]["syncs"] == 2 * kMicroBatches * 2 * 2);
  CHECK(stats["external"]["cycles"] == 2 * kMicroBatches * 2 * 2 * 80);
  REQUIRE(stats.contains("gw_link"));
  CHECK(stats["gw_link"]["cycles"].get<std::uint64_t>() ==
        stats["gw_link"]["syncs"].get<std::uint64_t>() * 5380);
}
