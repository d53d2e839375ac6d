// `ipusim sweep SWEEP.json`: a grid (or zip) of runs of one base config, each point a child
// `ipusim run`, collected into results.csv / results.json (and plots with --plot).
#include <boost/program_options.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "sim/errors.hpp"
#include "tools/cli_util.hpp"
#include "tools/subprocess.hpp"
#include "tools/sweep_input.hpp"
#include "tools/sweep_pareto.hpp"
#include "tools/sweep_plot.hpp"
#include "tools/sweep_results.hpp"
#include "tools/sweep_runner.hpp"
#include "tools/sweep_spec.hpp"
#include "tools/sweep_table.hpp"

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
Exit code: 0 all points ok, 1 some point failed (or plotting failed), 2 bad sweep file.

sweep file: {"base": "CONFIG (relative to the sweep file)", "set": ["k=v", ...],
             "mode": "grid"|"zip", "axes": [{"path": "workload.bytes", "values": [...]}],
             "columns": {"name": "/json/pointer/in/report.json"}}
)HELP";

/// The memory column for the time-memory Pareto front: the first memory.* column whose
/// value differs between points (a constant one ranks nothing), else the first; "" if none.
std::string first_memory_column(const std::vector<std::string>& columns, const std::vector<Json>& rows) {
  std::string first;
  for (const auto& c : columns) {
    if (c.rfind("memory.", 0) != 0) continue;
    if (first.empty()) first = c;
    const Json* seen = nullptr;
    for (const auto& r : rows) {
      if (!r.contains(c) || !r[c].is_number()) continue;
      if (seen && *seen != r[c]) return c;
      seen = &r[c];
    }
  }
  return first;
}

/// Marks the rows on the time-memory Pareto front ("*"), by row position.
std::vector<bool> pareto_marks(const std::vector<Json>& rows, const std::string& memory_column) {
  std::vector<bool> marks(rows.size(), false);
  if (memory_column.empty()) return marks;
  std::vector<std::pair<double, double>> points;
  for (const auto& r : rows) {
    const bool usable = r.value("status", "") == "ok" && r.contains(memory_column) && r[memory_column].is_number() &&
                        r["time_ns"].is_number();
    points.emplace_back(usable ? r[memory_column].get<double>() : NAN, usable ? r["time_ns"].get<double>() : NAN);
  }
  for (std::size_t i : pareto_front(points)) marks[i] = true;
  return marks;
}

void print_summary(const SweepSpec& spec, const std::vector<std::string>& columns, const std::vector<Json>& rows) {
  const std::string memory = spec.memory_column.empty() ? first_memory_column(columns, rows) : spec.memory_column;
  const std::vector<bool> marks = pareto_marks(rows, memory);
  std::vector<std::string> headers = {"#"};
  for (const auto& a : spec.axes) headers.push_back(a.path);
  headers.insert(headers.end(), {"status", "time ns"});
  if (!memory.empty()) headers.insert(headers.end(), {memory, "pareto"});
  headers.push_back("error");
  std::vector<std::vector<std::string>> table;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& r = rows[i];
    std::vector<std::string> line = {cell_text(r["index"])};
    for (const auto& a : spec.axes) line.push_back(cell_text(r[a.path]));
    line.push_back(cell_text(r["status"]));
    line.push_back(r["time_ns"].is_number() ? fixed(r["time_ns"].get<double>(), 1) : "");
    if (!memory.empty()) {
      line.push_back(r.contains(memory) ? cell_text(r[memory]) : "");
      line.push_back(marks[i] ? "*" : "");
    }
    line.push_back(cell_text(r["error"]));
    table.push_back(line);
  }
  std::cout << format_table(headers, table);
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out) throw ConfigError("cannot write " + path.string());
}

}  // namespace

int cmd_sweep(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts("ipusim sweep SWEEP.json [options]");
  opts.add_options()("help", "show this help")(
      "sweep", po::value<std::string>(), "the sweep file")(
      "jobs,j", po::value<unsigned>()->default_value(default_jobs()), "simulations at once")(
      "out,o", po::value<std::string>(), "output folder (default out/sweep_<sweep file stem>)")(
      "resume", "skip points that already completed with the same inputs")(
      "plot", "also plot the results (tools/plot_sweep.py, PNG and SVG)")(
      "quiet,q", "no progress line");
  po::positional_options_description positional;
  positional.add("sweep", 1);
  const auto vm = parse_options(opts, positional, args);
  if (vm.count("help")) {
    std::cout << opts << kSweepHelp;
    return 0;
  }
  if (!vm.count("sweep")) throw ConfigError("sweep: missing the sweep file (see --help)");
  const std::string file = vm["sweep"].as<std::string>();
  const SweepSpec spec = load_sweep(file);
  const std::vector<SweepPoint> points = expand_points(spec);

  SweepRunOptions options;
  options.out_dir = vm.count("out") ? vm["out"].as<std::string>()
                                    : (fs::path("out") / ("sweep_" + fs::path(file).stem().string())).string();
  options.jobs = std::max(1u, vm["jobs"].as<unsigned>());
  options.resume = vm.count("resume") > 0;
  options.progress = vm.count("quiet") == 0;
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  if (ec) throw ConfigError("cannot create output folder " + options.out_dir + ": " + ec.message());

  const SweepRunResult result = run_sweep(spec, points, options);
  const std::vector<std::string> columns = collect_columns(spec, result.rows);
  const fs::path out(options.out_dir);
  write_text(out / "results.csv", to_csv(columns, result.rows));
  write_json_pretty((out / "results.json").string(), results_document(spec, columns, result.rows));

  print_summary(spec, columns, result.rows);
  std::cout << "\n" << points.size() << " points (" << result.ran << " run, " << result.reused << " reused), "
            << result.failures << " failed\nresults: " << (out / "results.csv").string() << ", "
            << (out / "results.json").string() << "\n";
  int code = result.failures > 0 ? 1 : 0;
  if (vm.count("plot")) {
    const std::string problem = plot_sweep_results(options.out_dir, spec.memory_column);
    if (problem.empty()) {
      std::cout << "plots: " << options.out_dir << "/*.png, *.svg\n";
    } else {
      std::cerr << "ipusim: warning: " << problem << "\n";
      code = 1;
    }
  }
  return code;
}

}  // namespace ipusim::cli
