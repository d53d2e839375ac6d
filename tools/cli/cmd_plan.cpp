// `ipusim plan CONFIG`: searches the configurations a PopART user chooses from for a
// training config, prunes them with analytic estimates, simulates the survivors with the
// sweep machinery and reports the Pareto front, the top K and the best configuration.
#include <boost/program_options.hpp>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <map>

#include "sim/config.hpp"
#include "sim/errors.hpp"
#include "sim/output_file.hpp"
#include "tools/cli/html_output.hpp"
#include "tools/common/cli_util.hpp"
#include "tools/common/subprocess.hpp"
#include "tools/plan/plan_estimate.hpp"
#include "tools/plan/plan_result.hpp"
#include "tools/plan/plan_space.hpp"
#include "tools/sweep/sweep_input.hpp"
#include "tools/sweep/sweep_jobs.hpp"
#include "tools/sweep/sweep_lock.hpp"
#include "tools/sweep/sweep_progress.hpp"
#include "tools/sweep/sweep_runner.hpp"
#include "tools/sweep/sweep_slurm.hpp"
#include "tools/sweep/sweep_spec.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

const char* kPlanHelp = R"HELP(
Enumerates the space below for CONFIG (a training config), prunes with analytic estimates,
simulates the survivors (each an `ipusim run` in DIR/points/NNNN/, as `ipusim sweep` does)
and prints the Pareto front (samples/s against SRAM per tile and streaming memory), the top
K by --objective, and the best configuration, written as DIR/best_config.json (runnable:
`ipusim run DIR/best_config.json`). DIR/plan.json holds every configuration (schema:
tools/plan/README.md). The config as given is simulated too, as the baseline.

Pruning, before any simulation (counted by reason):
  global_batch    the global batch is not replicas x micro_batch x accumulationFactor
  sharding_domain RTS over orthogonal:K (PopART's collectives and its streaming-memory
                  inserter disagree on the shard; the simulator refuses it)
  pipeline_depth  accumulationFactor < 2 x pipeline stages - 1 (PopART refuses it)
  memory          a lower bound of the busiest tile's SRAM (resident weights, optimizer
                  state and accumulators over all tiles, plus the code reserve) is above
                  the tile's SRAM: the simulator could not fit it either
  memory_simulated  a survivor whose SRAM, by the simulator's own memory accounting
                  (run before any timing: workload.memory.on_overflow = error), does not
                  fit: it stops there, so no timing is simulated for a configuration that
                  cannot fit (not with --exhaustive)
  time_bound      the survivors are simulated in waves, highest samples/s upper bound
                  (global batch / a lower bound of the step time: the busiest IPU's
                  GEMMs and vector ops at the compute model's cycle counts) first; the
                  plan stops when the next bound x (1 + --margin) is below the K-th best
                  fitting simulation (K = --top): no configuration left could enter the
                  top K, so the best is never dropped (only with --objective throughput;
                  not with --exhaustive)
Objectives: throughput (most samples/s that fit), memory (least SRAM per tile that fits),
balanced (the Pareto configuration nearest to the best samples/s at no SRAM, in units of
the best samples/s and of the tile's SRAM).
--resume reuses every simulation that finished (DIR/points/*/done.json), so an interrupted
plan continues where it stopped and prints the same result. --slurm writes (and submits)
DIR/slurm/sweep.sbatch running the simulations as a job array; when it ends, the same plan
command with --resume collects them.
Exit code: 0 done, 1 some simulation failed, 2 bad input (unknown keys, an impossible
global batch, no configuration left to simulate), 3 a result could not be written.
)HELP";

/// The dotted config path as a JSON pointer.
std::string pointer_of(const std::string& dotted) {
  std::string p = "/" + dotted;
  for (char& ch : p)
    if (ch == '.') ch = '/';
  return p;
}

/// The base config with a candidate's values written in (a runnable config).
Json apply_values(Json base, const std::vector<std::string>& paths,
                  const std::vector<Json>& values) {
  for (std::size_t i = 0; i < paths.size(); ++i)
    base[Json::json_pointer(pointer_of(paths[i]))] = values[i];
  return base;
}

/// Estimated fields of an entry.
Json estimate_json(const PlanEstimate& e) {
  return Json{{"sram_bytes_per_tile_lower_bound", e.sram_bytes_per_tile_lower_bound},
              {"time_per_step_ns_lower_bound", e.step_time_ns_lower_bound},
              {"samples_per_s_upper_bound", e.samples_per_s_upper_bound},
              {"samples_per_s", e.samples_per_s},
              {"time_per_step_ns", e.step_time_ns}};
}

/// The samples/s upper bound of an estimated entry (infinite where there is no bound).
double upper_bound(const Json& entry) {
  const double b = entry["estimate"]["samples_per_s_upper_bound"].get<double>();
  return b > 0 ? b : std::numeric_limits<double>::infinity();
}

struct Pruning {
  std::vector<Json> entries;                   ///< one per enumerated configuration
  std::vector<std::size_t> survivors;          ///< entry indices to simulate
  std::map<std::string, std::size_t> reasons;  ///< pruned count per reason
};

/// Estimates every candidate and prunes the invalid ones and (unless `exhaustive`) those
/// whose SRAM lower bound is above the tile's SRAM; the survivors are ordered by samples/s
/// upper bound, highest first (ties by estimated samples/s, then index).
Pruning prune(const std::vector<PlanCandidate>& candidates, const ModelFacts& facts,
              bool exhaustive) {
  Pruning p;
  for (const char* r : {"global_batch", "sharding_domain", "pipeline_depth", "memory",
                        "memory_simulated", "time_bound"})
    p.reasons[r] = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const PlanCandidate& c = candidates[i];
    Json e = {{"index", i},          {"config", candidate_json(c)},
              {"status", "pruned"},  {"pruned_reason", Json()},
              {"pruned_detail", ""}, {"estimate", Json()}};
    if (!c.invalid.empty()) {
      e["pruned_reason"] = c.invalid;
      e["pruned_detail"] = c.invalid_detail;
    } else {
      const PlanEstimate estimate = estimate_candidate(c, facts);
      e["estimate"] = estimate_json(estimate);
      const double lb = estimate.sram_bytes_per_tile_lower_bound;
      if (!exhaustive && lb > static_cast<double>(facts.sram_per_tile_bytes)) {
        e["pruned_reason"] = "memory";
        e["pruned_detail"] = "at least " + std::to_string(static_cast<long long>(lb)) +
                             " B on the busiest tile, more than its " +
                             std::to_string(facts.sram_per_tile_bytes) + " B of SRAM";
      }
    }
    if (e["pruned_reason"].is_null()) {
      e["status"] = "pending";
      p.survivors.push_back(i);
    } else {
      ++p.reasons[e["pruned_reason"].get<std::string>()];
    }
    p.entries.push_back(std::move(e));
  }
  auto estimated = [&](std::size_t i) {
    return p.entries[i]["estimate"]["samples_per_s"].get<double>();
  };
  std::stable_sort(p.survivors.begin(), p.survivors.end(), [&](std::size_t a, std::size_t b) {
    const double ua = upper_bound(p.entries[a]), ub = upper_bound(p.entries[b]);
    return ua != ub ? ua > ub : estimated(a) > estimated(b);
  });
  return p;
}

/// Simulates the survivors (sweep points 1..n, highest samples/s bound first; point 0 is
/// the baseline) in waves, and stops when the next bound x (1 + margin) is below the
/// `top_k`-th best fitting simulation: every later survivor's bound is lower still, so none
/// of them could enter the top K (not with `all`: the memory and balanced objectives,
/// --exhaustive). Returns the rows (null for points not run), or the interrupting signal.
struct WaveResult {
  std::vector<Json> rows;
  std::size_t run_points = 0;  ///< points 0..run_points-1 were simulated
  double threshold = 0;        ///< the top_k-th best fitting samples/s when the plan stopped
  int interrupted_signal = 0;
  std::size_t pending = 0;
};

WaveResult run_waves(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                     const std::vector<Json>& entries, const std::vector<std::size_t>& survivors,
                     SweepRunOptions run, double margin, std::size_t top_k, bool all) {
  WaveResult w;
  w.rows.assign(points.size(), Json());
  run.point_count = points.size();
  const std::size_t wave = std::max<std::size_t>(8, 4 * static_cast<std::size_t>(run.jobs));
  std::vector<double> fitting;  // simulated samples/s of the fitting survivors, best first
  // One progress line over every survivor (its ETA an upper bound: the time bound may stop
  // the plan early) instead of one line per wave.
  Progress progress(points.size(), 0, run.progress);
  run.progress = false;
  std::size_t next = 0;
  while (next < points.size()) {
    if (!all && next > 0 && fitting.size() >= top_k) {
      w.threshold = fitting[top_k - 1];
      if (upper_bound(entries[survivors[next - 1]]) * (1 + margin) < w.threshold) break;
    }
    const std::size_t end = std::min(points.size(), next + wave + (next == 0 ? 1 : 0));
    const std::vector<SweepPoint> part(points.begin() + static_cast<std::ptrdiff_t>(next),
                                       points.begin() + static_cast<std::ptrdiff_t>(end));
    SweepRunResult r = run_sweep(spec, part, run);
    for (std::size_t k = next; k < end; ++k) {
      w.rows[k] = r.rows[k];
      if (w.rows[k].value("status", "") != "pending")
        progress.finished(w.rows[k].value("status", "") == "failed");
      if (k == 0 || w.rows[k].value("status", "") != "ok") continue;
      if (w.rows[k].value("memory.fits", 0.0) != 0)
        fitting.push_back(w.rows[k].value("workload.samples_per_s", 0.0));
    }
    std::sort(fitting.begin(), fitting.end(), std::greater<double>());
    next = end;
    if (r.interrupted_signal) {
      w.interrupted_signal = r.interrupted_signal;
      w.pending = r.pending;
      break;
    }
  }
  progress.close();
  w.run_points = next;
  return w;
}

/// The key that makes a training run stop after its memory accounting when it does not fit.
constexpr const char* kOnOverflowPath = "workload.memory.on_overflow";

/// True if `row` is a survivor stopped by kOnOverflowPath: it does not fit in SRAM by the
/// simulator's own accounting, and no timing was simulated.
bool stopped_on_overflow(const Json& row) {
  return row.value("status", "") == "failed" &&
         row.value("error", "").find("/workload/memory/on_overflow") != std::string::npos;
}

/// The sweep file of the survivors (zip over every override path; the last point is the
/// config as given, the baseline) written to DIR/plan_sweep.json, and loaded back as the
/// sweep machinery (and a Slurm task) reads it.
SweepSpec write_plan_sweep(const fs::path& out, const Json& base, const ModelFacts& facts,
                           const std::vector<PlanCandidate>& candidates,
                           const std::vector<std::size_t>& survivors, bool memory_first) {
  const std::vector<std::string> paths = override_paths(facts);
  Json axes = Json::array();
  for (std::size_t a = 0; a < paths.size(); ++a)
    axes.push_back(Json{{"path", paths[a]}, {"values", Json::array()}});
  for (std::size_t a = 0; a < paths.size(); ++a)
    axes[a]["values"].push_back(*find_pointer(base, pointer_of(paths[a])));
  for (std::size_t i : survivors) {
    const std::vector<Json> values = override_values(candidates[i], facts);
    for (std::size_t a = 0; a < paths.size(); ++a) axes[a]["values"].push_back(values[a]);
  }
  if (memory_first) {
    // A survivor that the simulator's own memory accounting (run before any timing) finds
    // too large stops there (exit 2), so no timing is simulated for a configuration that
    // cannot fit; the config as given keeps its own setting and is always timed.
    const Json* own = find_pointer(base, pointer_of(kOnOverflowPath));
    Json values = Json::array({own ? *own : Json("warn")});
    for (std::size_t k = 0; k < survivors.size(); ++k) values.push_back("error");
    axes.push_back(Json{{"path", kOnOverflowPath}, {"values", values}});
  }
  const Json sweep = {
      {"description",
       "generated by ipusim plan: the config as given, then the survivors, best estimate first"},
      {"base", "plan_base.json"},
      {"mode", "zip"},
      {"axes", axes},
      {"columns", {{"step_time_ns", "/workload/step_time_ns"}}}};
  write_json_pretty((out / "plan_base.json").string(), base);
  write_json_pretty((out / "plan_sweep.json").string(), sweep);
  return load_sweep((out / "plan_sweep.json").string());
}

/// The keys where `best` differs from the config as given, "path: base -> best" each.
std::vector<std::string> differences(const Json& base, const Json& best,
                                     const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& path : paths) {
    const Json* a = find_pointer(base, pointer_of(path));
    const Json* b = find_pointer(best, pointer_of(path));
    if (a && b && *a != *b) out.push_back(path + ": " + a->dump() + " -> " + b->dump());
  }
  return out;
}

}  // namespace

int cmd_plan(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts(
      "ipusim plan CONFIG [--system S] [--global-batch N] [--objective throughput|memory|balanced] "
      "[--top K] [--jobs N | --slurm] [--out DIR] [--json] [--html] [--resume]");
  opts.add_options()("help", "show this help")("config", po::value<std::string>(),
                                               "training config")(
      "system", po::value<std::string>(),
      "plan for this system (a preset name or a system config)")(
      "global-batch", po::value<std::int64_t>(),
      "samples per weight update (default: the config's)")(
      "objective", po::value<std::string>()->default_value("throughput"),
      "throughput|memory|balanced")("top", po::value<std::size_t>()->default_value(10),
                                    "configurations to list")(
      "space", po::value<std::string>(),
      "space file (JSON): replaces the default of each axis it names")(
      "margin", po::value<double>()->default_value(0.0),
      "time pruning slack: stop when the next samples/s upper bound x (1 + margin) is below the "
      "K-th best fitting simulation")(
      "jobs,j", po::value<unsigned>()->default_value(default_jobs()), "simulations at once")(
      "out,o", po::value<std::string>(), "output folder (default out/plan_<config stem>)")(
      "resume", "reuse the simulations that already finished in DIR")(
      "exhaustive",
      "no memory or time pruning: simulate every valid configuration (to check the plan)")(
      "html",
      "also write DIR/report.html: the simulated configurations as an interactive Pareto "
      "scatter (offline page)")(
      "json", "print plan.json's summary (counts, best, top, Pareto) instead of the tables")(
      "quiet,q", "no progress line")("slurm",
                                     "run the simulations as a Slurm job array (then --resume)")(
      "slurm-script-only", "write the sbatch script but do not submit it")(
      "partition", po::value<std::string>(), "Slurm partition")("time", po::value<std::string>(),
                                                                "Slurm time limit per task");
  po::positional_options_description positional;
  positional.add("config", 1);
  const auto vm = parse_options(opts, positional, args);
  if (vm.count("help")) {
    std::cout << opts << kPlanHelp << kPlanSpaceHelp;
    return 0;
  }
  if (!vm.count("config")) throw ConfigError("plan: missing the config file (see --help)");
  const std::string config = resolve_input_path(vm["config"].as<std::string>());
  const PlanObjective objective = parse_objective(vm["objective"].as<std::string>());
  const double margin = vm["margin"].as<double>();
  if (!(margin >= 0 && margin <= 10))
    throw ConfigError("--margin: expected a number in [0, 10], got " + std::to_string(margin));
  const std::size_t top_k = vm["top"].as<std::size_t>();
  if (top_k == 0) throw ConfigError("--top: expected at least 1, got 0");
  const bool slurm = vm.count("slurm") || vm.count("slurm-script-only");
  for (const char* flag : {"partition", "time"})
    if (vm.count(flag) && !slurm)
      throw ConfigError(std::string("--") + flag + " only applies with --slurm");

  register_all_params();
  ConfigDoc doc = ConfigDoc::load_file(config);
  if (vm.count("system")) {
    const ConfigDoc system =
        ConfigDoc::load_file(resolve_system_config(vm["system"].as<std::string>()));
    doc.take_sections(system, system_sections(), {"sim"});
  }
  // Every candidate, and the config as given, is written with explicit TensorLocationSettings,
  // which the rts_domain shorthand cannot be mixed with (the run refuses the pair).
  const Json::json_pointer rts_domain("/workload/session/rts_domain");
  if (doc.root().contains(rts_domain) && doc.root()[rts_domain] != "unset")
    throw ConfigError(config +
                      ": /workload/session/rts_domain: plan searches the weight, "
                      "optimizer-state and accumulator TensorLocationSettings itself: write the "
                      "config's sharding as those settings' replicatedTensorSharding and "
                      "shardingDomain instead of rts_domain " +
                      doc.root()[rts_domain].dump());
  const ModelFacts facts = read_model_facts(doc.root(), config);
  const PlanSpace space = vm.count("space")
                              ? load_space(resolve_input_path(vm["space"].as<std::string>()), facts)
                              : default_space(facts);
  const std::int64_t global_batch =
      vm.count("global-batch") ? vm["global-batch"].as<std::int64_t>() : facts.base_global_batch;
  if (global_batch < 1)
    throw ConfigError("--global-batch: expected at least 1, got " + std::to_string(global_batch));

  const std::vector<PlanCandidate> candidates = enumerate_space(space, facts, global_batch);
  if (candidates.empty())
    throw ConfigError((vm.count("space") ? vm["space"].as<std::string>() : config) +
                      ": the space has no configuration for " + std::to_string(facts.total_ipus) +
                      " IPUs (check ipus_per_replica and execution)");
  const bool exhaustive = vm.count("exhaustive") > 0;
  Pruning pruning = prune(candidates, facts, exhaustive);
  if (pruning.reasons["global_batch"] == candidates.size())
    throw ConfigError("--global-batch " + std::to_string(global_batch) +
                      ": impossible: no replicas x micro_batch of the space divides it");
  if (pruning.survivors.empty()) {
    std::string why;
    for (const auto& [reason, n] : pruning.reasons)
      if (n) why += (why.empty() ? "" : ", ") + reason + " " + std::to_string(n);
    throw ConfigError(config + ": no configuration survives pruning (" + why +
                      "): widen the space (--space), the system (--system) or the global batch");
  }

  const std::string out_dir =
      vm.count("out") ? vm["out"].as<std::string>()
                      : (fs::path("out") / ("plan_" + fs::path(config).stem().string())).string();
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw ConfigError("--out: cannot create " + out_dir + ": " + ec.message());
  const fs::path out(out_dir);
  const Json base = materialise_base(doc.root(), facts);
  const SweepSpec spec =
      write_plan_sweep(out, base, facts, candidates, pruning.survivors, !exhaustive);
  const std::vector<SweepPoint> points = expand_points(spec);
  check_config_overrides(spec.base, points.front().sets,
                         [&](std::size_t) { return config + ": plan override"; });
  const bool json = vm.count("json") > 0, quiet = vm.count("quiet") > 0;

  if (slurm) {
    SlurmScriptOptions o;
    o.exe = self_executable();
    o.sweep_file = fs::absolute(out / "plan_sweep.json").lexically_normal().string();
    o.out_dir = fs::absolute(out).lexically_normal().string();
    o.job_name = "ipusim-plan-" + safe_name(fs::path(config).stem().string());
    o.array_size = effective_array_size(std::min<std::size_t>(points.size(), 1000), points.size());
    o.jobs_per_task = vm["jobs"].as<unsigned>();
    if (vm.count("partition"))
      check_slurm_partition(o.partition = vm["partition"].as<std::string>());
    if (vm.count("time")) check_slurm_time(o.time_limit = vm["time"].as<std::string>());
    fs::create_directories(out / "slurm", ec);
    const std::string script = (out / "slurm" / "sweep.sbatch").string();
    write_text_file_atomic(script, slurm_script(o));
    std::cout << candidates.size() << " configurations enumerated, "
              << candidates.size() - pruning.survivors.size() << " pruned before simulation (";
    bool first_reason = true;
    for (const auto& [reason, n] : pruning.reasons) {
      std::cout << (first_reason ? "" : ", ") << reason << " " << n;
      first_reason = false;
    }
    std::cout << "; time_bound applies only to local runs)\n";
    std::cout << "wrote " << script << " (" << o.array_size << " array tasks, " << points.size()
              << " simulations)\n";
    if (!vm.count("slurm-script-only"))
      std::cout << "submitted job array " << submit_slurm_script(script, (out / "slurm").string())
                << "\n";
    std::cout << "then: ipusim plan " << shell_quote(config) << " --out " << shell_quote(o.out_dir)
              << " --resume (with the same options)\n";
    return 0;
  }

  const SweepLock lock(out_dir, false);
  SweepRunOptions run;
  run.out_dir = out_dir;
  run.jobs = vm["jobs"].as<unsigned>();
  run.resume = vm.count("resume") > 0;
  run.progress = !quiet && !json;
  const WaveResult result = run_waves(spec, points, pruning.entries, pruning.survivors, run, margin,
                                      top_k, exhaustive || objective != PlanObjective::Throughput);

  std::vector<Json>& entries = pruning.entries;
  std::size_t failed = 0, simulated = 0;
  for (std::size_t k = 0; k < pruning.survivors.size(); ++k) {
    Json& e = entries[pruning.survivors[k]];
    if (k + 1 >= result.run_points) {
      e["status"] = "pruned";
      e["pruned_reason"] = "time_bound";
      e["pruned_detail"] =
          "at most " + std::to_string(e["estimate"]["samples_per_s_upper_bound"].get<double>()) +
          " samples/s (x (1 + margin)), below the " + std::to_string(top_k) +
          "-th best fitting simulation, " + std::to_string(result.threshold) + " samples/s";
      ++pruning.reasons["time_bound"];
      continue;
    }
    if (stopped_on_overflow(result.rows[k + 1])) {
      e["status"] = "pruned";
      e["pruned_reason"] = "memory_simulated";
      e["pruned_detail"] = "the simulator's memory accounting, before any timing: " +
                           result.rows[k + 1].value("error", "");
      ++pruning.reasons["memory_simulated"];
      continue;
    }
    fill_measured(e, result.rows[k + 1]);
    e["point"] = k + 1;
    ++simulated;
    if (e["status"] == "failed") ++failed;
  }
  for (Json& e : entries)
    if (e["status"] == "pruned") {
      for (const char* key : {"samples_per_s", "time_per_step_ns", "sram_bytes_per_tile",
                              "streaming_memory_bytes", "fits", "point"})
        e[key] = Json();
      e["error"] = "";
    }
  Json baseline = {{"config", "the config as given"}};
  fill_measured(baseline, result.rows.front());
  const std::vector<std::size_t> front = mark_pareto(entries);
  const std::vector<std::size_t> ranked =
      rank_entries(entries, objective, static_cast<double>(facts.sram_per_tile_bytes));
  std::size_t fit = 0;
  for (const Json& e : entries) fit += e["fits"] == true ? 1 : 0;
  const std::vector<std::size_t> top(ranked.begin(),
                                     ranked.begin() + std::min(top_k, ranked.size()));

  Json doc_out = {{"format_version", 2},
                  {"config", config},
                  {"system", base.value("system", Json::object()).value("name", "")},
                  {"global_batch", global_batch},
                  {"objective", vm["objective"].as<std::string>()},
                  {"margin", margin},
                  {"exhaustive", exhaustive},
                  {"space", space_to_json(space)},
                  {"counts",
                   {{"enumerated", candidates.size()},
                    {"pruned", pruning.reasons},
                    {"pruned_total", candidates.size() - simulated},
                    {"simulated", simulated},
                    {"failed", failed},
                    {"fit", fit},
                    {"pareto", front.size()}}},
                  {"baseline", baseline},
                  {"best", ranked.empty() ? Json() : Json(ranked.front())},
                  {"top", top},
                  {"pareto", front},
                  {"best_config", ranked.empty() ? Json() : Json("best_config.json")},
                  {"configurations", entries}};
  std::vector<std::string> diffs;
  if (!ranked.empty()) {
    const std::vector<std::string> paths = override_paths(facts);
    Json best = apply_values(base, paths, override_values(candidates[ranked.front()], facts));
    best["name"] = base.value("name", std::string("plan")) + "_plan_best";
    write_json_pretty((out / "best_config.json").string(), best);
    diffs = differences(base, best, paths);
    doc_out["best_differs_from_config"] = diffs;
  }
  if (result.interrupted_signal) {
    std::cerr << "ipusim: plan stopped by signal " << result.interrupted_signal << ": "
              << result.pending << " simulations pending; continue with --resume\n";
    return 128 + result.interrupted_signal;
  }
  write_json_pretty((out / "plan.json").string(), doc_out);
  if (vm.count("html")) {
    if (const int rc = write_plan_html(out.string(), doc_out, json)) return rc;
  }

  if (json) {
    Json summary = doc_out;
    summary.erase("configurations");
    summary["top_configurations"] = Json::array();
    for (std::size_t i : top) summary["top_configurations"].push_back(entries[i]);
    std::cout << summary.dump(2) << "\n";
  } else {
    std::cout << "plan: " << config << " on " << doc_out["system"].get<std::string>() << " ("
              << facts.total_ipus << " IPUs), global batch " << global_batch << ", objective "
              << vm["objective"].as<std::string>() << "\n";
    std::cout << "  " << candidates.size() << " configurations enumerated, "
              << doc_out["counts"]["pruned_total"] << " pruned (";
    bool first = true;
    for (const auto& [reason, n] : pruning.reasons) {
      std::cout << (first ? "" : ", ") << reason << " " << n;
      first = false;
    }
    std::cout << "), " << simulated << " simulated (" << failed << " failed, " << fit << " fit)\n";
    if (baseline["status"] == "ok")
      std::cout << "  the config as given: " << baseline["samples_per_s"].get<double>()
                << " samples/s, " << baseline["sram_bytes_per_tile"] << " B/tile, fits "
                << baseline["fits"] << "\n";
    std::cout << "\nPareto front (" << front.size()
              << ", fitting: samples/s vs SRAM per tile vs streaming memory):\n"
              << plan_table(entries, front) << "\ntop " << top.size() << " by "
              << vm["objective"].as<std::string>() << ":\n"
              << plan_table(entries, top) << "\n";
    if (ranked.empty()) {
      std::cout << "no simulated configuration fits\n";
    } else {
      std::cout << "best: #" << ranked.front() << ", "
                << entries[ranked.front()]["samples_per_s"].get<double>() << " samples/s";
      if (baseline["status"] == "ok")
        std::cout << " ("
                  << entries[ranked.front()]["samples_per_s"].get<double>() /
                         baseline["samples_per_s"].get<double>()
                  << " x the config as given)";
      std::cout << "; differs from the config in:\n";
      for (const std::string& d : diffs) std::cout << "  " << d << "\n";
      if (diffs.empty()) std::cout << "  nothing\n";
      std::cout << "wrote " << (out / "best_config.json").string() << " (ipusim run "
                << (out / "best_config.json").string() << ")\n";
    }
    std::cout << "wrote " << (out / "plan.json").string() << "\n";
  }
  return failed > 0 ? 1 : 0;
}

}  // namespace ipusim::cli
