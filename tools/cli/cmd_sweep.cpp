// `ipusim sweep SWEEP.json`: a grid (or zip) of runs of one base config, each point a child
// `ipusim run`, collected into results.csv / results.json (and plots with --plot).
#include <algorithm>
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "sim/errors.hpp"
#include "sim/output_file.hpp"
#include "tools/cli/html_output.hpp"
#include "tools/common/cli_util.hpp"
#include "tools/common/subprocess.hpp"
#include "tools/sweep/sweep_input.hpp"
#include "tools/sweep/sweep_jobs.hpp"
#include "tools/sweep/sweep_lock.hpp"
#include "tools/sweep/sweep_plot.hpp"
#include "tools/sweep/sweep_results.hpp"
#include "tools/sweep/sweep_runner.hpp"
#include "tools/sweep/sweep_shard.hpp"
#include "tools/sweep/sweep_slurm.hpp"
#include "tools/sweep/sweep_spec.hpp"
#include "tools/sweep/sweep_summary.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

const char* kSweepHelp = R"HELP(
Runs every point of a sweep as its own `ipusim run` in DIR/points/NNNN/ and writes
DIR/results.csv and DIR/results.json (one row per point, in point order). A point that
fails is recorded with status "failed" and its error; the others still run.
--resume reuses a point when its done.json records success for the same base config
path and overrides; it does not notice edits inside the config files themselves (delete
DIR/points/ after changing them).
Exit code: 0 all points ok, 1 some point failed (or plotting failed), 2 bad sweep file
(or another sweep is writing to DIR), 3 a result file could not be written (full disk).
One sweep at a time per DIR: a local sweep holds DIR/.sweep.lock (flock) alone, and any
other sweep, --shard or --collect into DIR is refused while it runs (shards and --collect
share the lock with one another). A killed sweep holds nothing: --resume goes on.

Every axis path and "set" override is checked against the base config before anything
runs: a key that does not exist is bad input (exit 2) naming the axis.

Beyond one machine (the output folder must be shared by every node):
  --shard i/N     run only points i, i+N, i+2N, ... (0 <= i < N) into DIR/points/ and
                  write no results table; N shards partition the points exactly, so N
                  machines (GNU parallel, any scheduler) can each run one
  --collect       run nothing: merge what finished into DIR/results.csv/.json and list
                  the points that are missing or failed (exit 0 only if all are ok)
  --slurm         write DIR/slurm/sweep.sbatch, an sbatch job array whose task t runs
                  --shard t/K --resume, and submit it; --slurm-script-only only writes it
A point is finished when DIR/points/NNNN/done.json exists (written last, atomically):
  {"index", "config", "set", "status": "ok"|"failed", "error", "exit_code"}
beside the point's report.json, resolved_config.json, stdout.txt and stderr.txt.

sweep file: {"base": "CONFIG (relative to the sweep file)", "set": ["k=v", ...],
             "mode": "grid"|"zip", "axes": [{"path": "workload.bytes", "values": [...]}],
             "columns": {"name": "/json/pointer/in/report.json"}}
"axes": [] is a sweep of one point: the base config with its "set" overrides.
)HELP";

/// Default cap on the array size: Slurm's default MaxArraySize is 1001 (ids 0..1000).
constexpr std::size_t kDefaultMaxArraySize = 1000;

/// Checks every override of the sweep against the base config before anything runs: the
/// fixed "set" list, then each axis with its first value (key existence does not depend
/// on the value). A bad key is a ConfigError naming the sweep file and the axis.
void check_overrides(const SweepSpec& spec) {
  std::vector<std::string> sets = spec.sets;
  for (const auto& axis : spec.axes) sets.push_back(override_for(axis.path, axis.values.front()));
  check_config_overrides(spec.base, sets, [&](std::size_t i) {
    return spec.file + (i < spec.sets.size()
                            ? ": /set/" + std::to_string(i)
                            : ": /axes/" + std::to_string(i - spec.sets.size()) + "/path");
  });
}

void print_summary(const SweepSpec& spec, const std::vector<std::string>& columns,
                   const std::vector<Json>& rows) {
  const std::string memory =
      spec.memory_column.empty() ? summary_memory_column(columns, rows) : spec.memory_column;
  std::cout << sweep_summary_table(spec, columns, rows, memory);
}

void write_text(const fs::path& path, const std::string& text) {
  write_text_file_atomic(path.string(), text);
}

/// --require-fit: a point whose model does not fit in memory (report memory.fits = 0) is
/// a failure, not a result to compare; returns the indices of the rows it marked.
std::vector<std::size_t> fail_not_fitting(std::vector<Json>& rows) {
  std::vector<std::size_t> marked;
  for (Json& row : rows) {
    if (row.value("status", "") != "ok" || !row.contains("memory.fits") || row["memory.fits"] != 0)
      continue;
    row["status"] = "failed";
    row["error"] = "the model does not fit in memory (memory.fits = 0; --require-fit)";
    marked.push_back(row["index"].get<std::size_t>());
  }
  return marked;
}

/// Writes results.csv / results.json for `rows` (and report.html with `html`), prints the
/// summary (unless quiet), or the results document (with --json). Returns 0 or the exit code
/// of a failed page write.
int write_results(const SweepSpec& spec, const std::string& out_dir, const std::vector<Json>& rows,
                  bool quiet, bool json, bool html) {
  const std::vector<std::string> columns = collect_columns(spec, rows);
  const fs::path out(out_dir);
  write_text(out / "results.csv", to_csv(columns, rows));
  const Json doc = results_document(spec, columns, rows);
  write_json_pretty((out / "results.json").string(), doc);
  if (json) {
    std::cout << doc.dump(2) << "\n";
  } else if (!quiet) {
    print_summary(spec, columns, rows);
    std::cout << "\n";
  }
  if (!html) return 0;
  const std::string memory =
      spec.memory_column.empty() ? summary_memory_column(columns, rows) : spec.memory_column;
  return write_sweep_html(out_dir, doc, memory, quiet || json);
}

/// --slurm / --slurm-script-only: writes the job-array script and (unless script only)
/// submits it.
int sweep_on_slurm(const boost::program_options::variables_map& vm, const std::string& file,
                   const std::string& out_dir, std::size_t point_count, unsigned jobs) {
  SlurmScriptOptions o;
  o.exe = self_executable();
  o.sweep_file = fs::absolute(file).lexically_normal().string();
  o.out_dir = fs::absolute(out_dir).lexically_normal().string();
  o.job_name = "ipusim-" + safe_name(fs::path(file).stem().string());
  const std::size_t requested = vm.count("array-size") ? vm["array-size"].as<std::size_t>() : 0;
  if (vm.count("array-size") && requested == 0)
    throw ConfigError("--array-size: expected at least 1, got 0");
  o.array_size = effective_array_size(
      requested == 0 ? std::min(point_count, kDefaultMaxArraySize) : requested, point_count);
  o.jobs_per_task = jobs;
  if (vm.count("partition")) {
    o.partition = vm["partition"].as<std::string>();
    check_slurm_partition(o.partition);
  }
  if (vm.count("time")) {
    o.time_limit = vm["time"].as<std::string>();
    check_slurm_time(o.time_limit);
  }
  const fs::path logs = fs::path(o.out_dir) / "slurm";
  std::error_code ec;
  fs::create_directories(logs, ec);
  if (ec) throw ConfigError("cannot create " + logs.string() + ": " + ec.message());
  const std::string script = (logs / "sweep.sbatch").string();
  write_text(script, slurm_script(o));
  fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add, ec);
  const std::string collect = "ipusim sweep " + shell_quote(o.sweep_file) + " --out " +
                              shell_quote(o.out_dir) + " --collect";
  const bool json = vm.count("json") > 0;
  if (vm.count("slurm-script-only")) {
    if (json) {
      std::cout
          << Json{{"script", script}, {"array_size", o.array_size}, {"points", point_count}}.dump(2)
          << "\n";
    } else {
      std::cout << "wrote " << script << " (" << o.array_size << " array tasks for " << point_count
                << " points)\nsubmit: sbatch " << shell_quote(script) << "\nthen:   " << collect
                << "\n";
    }
    return 0;
  }
  const std::string id = submit_slurm_script(script, logs.string());
  if (json) {
    std::cout << Json{{"script", script},
                      {"array_size", o.array_size},
                      {"points", point_count},
                      {"job_id", id}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << "submitted job array " << id << " (" << o.array_size << " tasks, " << point_count
              << " points) from " << script << "\nwhen it ends: " << collect << "\n";
  }
  return 0;
}

}  // namespace

int cmd_sweep(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts("ipusim sweep SWEEP.json [options]");
  opts.add_options()("help", "show this help")("sweep", po::value<std::string>(), "the sweep file")(
      "jobs,j", po::value<unsigned>()->default_value(default_jobs()),
      "simulations at once (per shard / array task)")(
      "out,o", po::value<std::string>(), "output folder (default out/sweep_<sweep file stem>)")(
      "resume", "skip points that already completed with the same inputs")(
      "plot", "also plot the results (tools/plot_sweep.py, PNG and SVG)")(
      "json", "print the results document (results.json) to stdout instead of the table")(
      "quiet,q", "no progress line and no table (the counts line and errors only)")(
      "shard", po::value<std::string>(),
      "i/N: run only the i-th of N disjoint subsets of the points")(
      "collect", "run nothing; merge the finished points and report missing / failed ones")(
      "slurm", "write an sbatch job-array script running the shards and submit it")(
      "slurm-script-only", "write the sbatch script but do not submit it")(
      "array-size", po::value<std::size_t>(),
      "Slurm array tasks K (default: one per point, at most 1000)")(
      "partition", po::value<std::string>(), "Slurm partition (default: the cluster's)")(
      "time", po::value<std::string>(), "Slurm time limit per task, e.g. 30, 1:00:00, 2-00:00:00")(
      "require-fit", "count points whose model does not fit in memory (memory.fits = 0) as failed")(
      "html",
      "also write DIR/report.html: the points as an interactive Pareto scatter (offline page)");
  po::positional_options_description positional;
  positional.add("sweep", 1);
  const auto vm = parse_options(opts, positional, args);
  if (vm.count("help")) {
    std::cout << opts << kSweepHelp;
    return 0;
  }
  if (!vm.count("sweep")) throw ConfigError("sweep: missing the sweep file (see --help)");
  const bool slurm = vm.count("slurm") || vm.count("slurm-script-only");
  const int modes =
      (slurm ? 1 : 0) + static_cast<int>(vm.count("shard")) + static_cast<int>(vm.count("collect"));
  if (modes > 1) throw ConfigError("--slurm, --shard and --collect exclude one another (pick one)");
  for (const char* flag : {"array-size", "partition", "time"}) {
    if (vm.count(flag) && !slurm)
      throw ConfigError(std::string("--") + flag + " only applies with --slurm");
  }
  const std::string file = resolve_input_path(vm["sweep"].as<std::string>());
  const SweepSpec spec = load_sweep(file);
  const std::vector<SweepPoint> points = expand_points(spec);
  const bool collect = vm.count("collect") > 0;
  // Collecting runs nothing, so a stale axis only shows up as missing points; everything
  // else must not start simulations that can only fail.
  if (!collect) check_overrides(spec);

  SweepRunOptions options;
  options.out_dir = vm.count("out")
                        ? vm["out"].as<std::string>()
                        : (fs::path("out") / ("sweep_" + fs::path(file).stem().string())).string();
  options.jobs = vm["jobs"].as<unsigned>();  // 0 is refused by run_processes (exit 2 naming --jobs)
  options.resume = vm.count("resume") > 0;
  const bool quiet = vm.count("quiet") > 0;
  const bool json = vm.count("json") > 0;
  options.progress = !quiet && !json;
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  if (ec) throw ConfigError("cannot create output folder " + options.out_dir + ": " + ec.message());
  const fs::path out(options.out_dir);

  if (slurm) return sweep_on_slurm(vm, file, options.out_dir, points.size(), options.jobs);
  // One writer per folder: a local sweep excludes every other sweep; the shards of one
  // job array share the folder, and --collect may merge while they run (sweep_lock.hpp).
  const SweepLock lock(options.out_dir, vm.count("shard") > 0 || collect);

  if (vm.count("shard")) {
    const Shard shard = parse_shard(vm["shard"].as<std::string>());
    const ShardRunResult r = run_shard(spec, points, shard, options.out_dir, options.jobs,
                                       options.resume, options.progress);
    const std::size_t mine = shard_point_indices(points.size(), shard).size();
    if (json) {
      std::cout << Json{{"shard", std::to_string(shard.index) + "/" + std::to_string(shard.count)},
                        {"points", mine},
                        {"ran", r.ran},
                        {"reused", r.reused},
                        {"failed", r.failures}}
                       .dump(2)
                << "\n";
    } else {
      std::cout << "shard " << shard.index << "/" << shard.count << ": " << mine << " of "
                << points.size() << " points (" << r.ran << " run, " << r.reused << " reused), "
                << r.failures << " failed\nmerge with: ipusim sweep " << file << " --out "
                << options.out_dir << " --collect\n";
    }
    return r.failures > 0 ? 1 : 0;
  }

  if (collect) {
    CollectResult c = collect_points(spec, points, options.out_dir);
    if (vm.count("require-fit")) {
      for (std::size_t i : fail_not_fitting(c.rows)) c.failed.push_back(i);
      std::sort(c.failed.begin(), c.failed.end());
    }
    if (const int code =
            write_results(spec, options.out_dir, c.rows, quiet, json, vm.count("html") > 0))
      return code;
    if (!json) {
      std::cout << points.size()
                << " points: " << (points.size() - c.missing.size() - c.failed.size()) << " ok, "
                << c.failed.size() << " failed, " << c.missing.size()
                << " missing\nresults: " << (out / "results.csv").string() << ", "
                << (out / "results.json").string() << "\n";
    }
    if (!c.missing.empty())
      std::cerr << "ipusim: missing points: " << index_ranges(c.missing) << "\n";
    if (!c.failed.empty()) std::cerr << "ipusim: failed points: " << index_ranges(c.failed) << "\n";
    if (!c.missing.empty()) {
      std::cerr << "ipusim: run them with: ipusim sweep " << file << " --out " << options.out_dir
                << " --resume (or resubmit the Slurm script)\n";
    }
    return c.missing.empty() && c.failed.empty() ? 0 : 1;
  }

  SweepRunResult result = run_sweep(spec, points, options);
  if (vm.count("require-fit")) result.failures += fail_not_fitting(result.rows).size();
  if (const int code =
          write_results(spec, options.out_dir, result.rows, quiet, json, vm.count("html") > 0))
    return code;
  if (!json) {
    std::cout << points.size() << " points (" << result.ran << " run, " << result.reused
              << " reused), " << result.failures
              << " failed\nresults: " << (out / "results.csv").string() << ", "
              << (out / "results.json").string() << "\n";
  }
  if (result.interrupted_signal) {  // Ctrl-C / SIGTERM: finished points are in the results, the
                                    // rest pending
    std::cerr << "ipusim: sweep stopped by signal " << result.interrupted_signal << ": "
              << result.pending << " points pending; continue with: ipusim sweep " << file
              << " --out " << options.out_dir << " --resume\n";
    return 128 + result.interrupted_signal;
  }
  int code = result.failures > 0 ? 1 : 0;
  if (vm.count("plot")) {
    const std::string problem = plot_sweep_results(options.out_dir, spec.memory_column);
    if (problem.empty()) {
      if (!json && !quiet) std::cout << "plots: " << options.out_dir << "/*.png, *.svg\n";
    } else {
      std::cerr << "ipusim: warning: " << problem << "\n";
      code = 1;
    }
  }
  return code;
}

}  // namespace ipusim::cli
