#include "tools/cli/collective_scan.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "sim/errors.hpp"
#include "sim/json.hpp"
#include "tools/cli/html_output.hpp"
#include "tools/common/cli_util.hpp"
#include "tools/common/subprocess.hpp"
#include "tools/sweep/sweep_input.hpp"
#include "tools/sweep/sweep_jobs.hpp"
#include "tools/sweep/sweep_results.hpp"
#include "tools/sweep/sweep_table.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

/// Flags of a single collective that a scan sets itself, per size.
const char* const kScanOwned[] = {"--bytes", "--elements", "--size", "--json", "--trace"};

std::string human_bytes(std::uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  return fixed(v, v == std::floor(v) ? 0 : 2) + " " + units[u];
}

/// nccl-tests prints N/A where it checked nothing.
const char* const kNotChecked = "N/A";

/// One printed line of the scan, in nccl-tests' columns.
struct ScanRow {
  std::uint64_t size_bytes = 0;
  std::uint64_t count = 0;  ///< elements of `size_bytes`
  std::string type, redop, algorithm;
  int root = -1;  ///< nccl-tests: the root rank for broadcast, -1 for ops without one
  double time_us = 0, algbw = 0, busbw = 0;
  std::string wrong;  ///< wrong elements of the data check, or N/A without --data
};

std::vector<ScanRow> scan_rows(const Json& list) {
  std::vector<ScanRow> rows;
  for (const Json& r : list) {
    ScanRow row;
    row.size_bytes = r.value("size_bytes", std::uint64_t{0});
    row.type = r.value("dtype", "");
    row.count = row.size_bytes / (row.type == "float16" ? 2 : 4);
    const std::string op = r.value("op", "");
    const bool reduces = op == "allreduce" || op == "reduce_scatter";
    row.redop = reduces ? r.value("reduce", "") : "none";
    row.root = op == "broadcast" ? 0 : -1;
    row.algorithm = r.value("algorithm", "");
    row.time_us = r.value("time_ns", 0.0) / 1e3;
    row.algbw = r.value("algorithm_bandwidth_GBps", 0.0);
    row.busbw = r.value("bus_bandwidth_GBps", 0.0);
    row.wrong = r.contains("functional")
                    ? std::to_string(r["functional"].value("wrong_elements", std::uint64_t{0}))
                    : std::string(kNotChecked);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

bool is_collective_scan(const Args& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a == "--min-bytes" || a == "--max-bytes" || a.rfind("--min-bytes=", 0) == 0 ||
           a.rfind("--max-bytes=", 0) == 0;
  });
}

std::vector<std::uint64_t> scan_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes,
                                      double step_factor) {
  if (min_bytes > max_bytes) {
    throw ConfigError("--min-bytes: " + std::to_string(min_bytes) + " is above --max-bytes " +
                      std::to_string(max_bytes));
  }
  if (!(step_factor > 1.0))
    throw ConfigError("--step-factor: expected a factor above 1, got " + fixed(step_factor, 3));
  std::vector<std::uint64_t> sizes;
  // Multiply in floating point from the start (not size by size) so that rounding does
  // not accumulate: min * F^k, floored.
  for (int k = 0;; ++k) {
    const double size = std::floor(static_cast<double>(min_bytes) * std::pow(step_factor, k));
    if (size > static_cast<double>(max_bytes)) break;
    const auto bytes = static_cast<std::uint64_t>(size);
    if (sizes.empty() || bytes != sizes.back()) sizes.push_back(bytes);
    if (sizes.size() > 4096)
      throw ConfigError("--step-factor: more than 4096 sizes; use a larger factor");
  }
  return sizes;
}

namespace {

/// The scan's own flags (every other flag goes to each point's `collective`).
boost::program_options::options_description scan_options() {
  namespace po = boost::program_options;
  po::options_description opts(
      "size scan (nccl-tests -b/-e/-f): ipusim collective --min-bytes A --max-bytes B "
      "[--step-factor F] [options above]\n"
      "Prints nccl-tests' columns; #wrong comes from a data check per size when --data is given "
      "(nccl-tests -c),\n"
      "N/A otherwise; the in-place columns repeat the out-of-place timing (the model has no buffer "
      "aliasing)");
  opts.add_options()(
      "min-bytes", po::value<std::string>(),
      "smallest nccl-tests size (nccl-tests -b; e.g. 8, 1KiB): the output per replica for\n"
      "all_gather, the input for every other op")(
      "max-bytes", po::value<std::string>(),
      "largest nccl-tests size (nccl-tests -e; e.g. 256MiB)")(
      "step-factor", po::value<double>()->default_value(2.0),
      "multiply the size by this between points (nccl-tests -f)")(
      "csv", "print CSV instead of a table")("json", "print a JSON list of the results")(
      "jobs,j", po::value<unsigned>()->default_value(default_jobs()), "sizes simulated at once")(
      "html", "also write report.html (to --out): bandwidth and time against the size")(
      "out,o", po::value<std::string>(), "folder of report.html (default out/collective_scan)")(
      "quiet,q", "print nothing on success");
  return opts;
}

}  // namespace

std::string scan_help() {
  std::ostringstream out;
  out << scan_options();
  return out.str();
}

int cmd_collective_scan(const Args& args) {
  namespace po = boost::program_options;
  const po::options_description opts = scan_options();
  po::variables_map vm;
  std::vector<std::string> passthrough;
  try {
    const po::parsed_options parsed =
        po::command_line_parser(args).options(opts).allow_unregistered().run();
    po::store(parsed, vm);
    po::notify(vm);
    passthrough = po::collect_unrecognized(parsed.options, po::include_positional);
  } catch (const po::error& e) {
    throw ConfigError(std::string(e.what()) + " (see ipusim collective --help)");
  }
  if (!vm.count("min-bytes") || !vm.count("max-bytes")) {
    throw ConfigError(std::string(vm.count("min-bytes") ? "--max-bytes" : "--min-bytes") +
                      ": a size scan needs both --min-bytes and --max-bytes");
  }
  for (const std::string& a : passthrough) {
    for (const char* owned : kScanOwned) {
      if (a == owned || a.rfind(std::string(owned) + "=", 0) == 0) {
        throw ConfigError(std::string(owned) +
                          ": not with --min-bytes/--max-bytes (the scan sets the size per point)");
      }
    }
  }
  const std::vector<std::uint64_t> sizes =
      scan_sizes(parse_size_bytes(vm["min-bytes"].as<std::string>(), "--min-bytes"),
                 parse_size_bytes(vm["max-bytes"].as<std::string>(), "--max-bytes"),
                 vm["step-factor"].as<double>());

  TempDir temp("ipusim_scan_");
  const std::string exe = self_executable();
  std::vector<ProcessResult> results(sizes.size());
  run_processes(
      sizes.size(), vm["jobs"].as<unsigned>(),  // 0 and -1 are refused by run_processes (exit 2)
      [&](std::size_t i) {
        std::vector<std::string> argv = {exe, "collective"};
        argv.insert(argv.end(), passthrough.begin(), passthrough.end());
        argv.insert(argv.end(), {"--size", std::to_string(sizes[i]), "--json"});
        const fs::path base = fs::path(temp.path()) / std::to_string(i);
        return ProcessSpec{argv, base.string() + ".out", base.string() + ".err"};
      },
      [&](std::size_t i, const ProcessResult& r) { results[i] = r; });

  Json list = Json::array();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const fs::path base = fs::path(temp.path()) / std::to_string(i);
    if (!results[i].ok()) {
      // Every size runs the same flags: the first failure speaks for the scan. It names the
      // scan's size, since the user gave --min-bytes / --max-bytes, not the --size it ran as.
      std::string why = last_line_of(base.string() + ".err");
      const std::string prefix = "ipusim: error: ";
      if (why.rfind(prefix, 0) == 0) why = why.substr(prefix.size());
      std::cerr << prefix << "size scan (--min-bytes .. --max-bytes), at " << sizes[i]
                << " bytes, each size run as --size N: " << (why.empty() ? "failed" : why) << "\n";
      return results[i].exit_code == 2 ? 2 : 3;
    }
    Json r = read_json_file(base.string() + ".out");
    r["requested_size_bytes"] = sizes[i];
    // In-place: the same schedule and timing (the model has no buffer aliasing); no separate check.
    r["in_place"] = {{"time_ns", r["time_ns"]},
                     {"algorithm_bandwidth_GBps", r.value("algorithm_bandwidth_GBps", Json())},
                     {"bus_bandwidth_GBps", r.value("bus_bandwidth_GBps", Json())},
                     {"wrong_elements", Json()}};
    list.push_back(r);
  }
  if (vm.count("html")) {
    const std::string out_dir =
        vm.count("out") ? vm["out"].as<std::string>() : std::string("out/collective_scan");
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec) throw ConfigError("--out: cannot create " + out_dir + ": " + ec.message());
    if (const int rc = write_collective_scan_html(
            out_dir, list, vm.count("quiet") || vm.count("json") || vm.count("csv")))
      return rc;
  } else if (vm.count("out")) {
    throw ConfigError("--out: a size scan writes files only with --html");
  }
  if (vm.count("quiet")) return 0;
  if (vm.count("json")) {
    std::cout << list.dump(2) << "\n";
    return 0;
  }
  const std::vector<ScanRow> rows = scan_rows(list);
  if (vm.count("csv")) {
    std::cout << "size_bytes,count,type,redop,root,algorithm,time_us,algbw_GBps,busbw_GBps,wrong,"
                 "in_place_time_us,in_place_algbw_GBps,in_place_busbw_GBps,in_place_wrong\n";
    for (const ScanRow& row : rows) {
      const std::string timing = cell_text(Json(row.time_us)) + "," + cell_text(Json(row.algbw)) +
                                 "," + cell_text(Json(row.busbw));
      std::cout << row.size_bytes << "," << row.count << "," << row.type << "," << row.redop << ","
                << row.root << "," << csv_field(row.algorithm) << "," << timing << "," << row.wrong
                << "," << timing << "," << kNotChecked << "\n";
    }
    return 0;
  }
  std::vector<std::vector<std::string>> cells;
  for (const ScanRow& row : rows) {
    cells.push_back({std::to_string(row.size_bytes), human_bytes(row.size_bytes),
                     std::to_string(row.count), row.type, row.redop, std::to_string(row.root),
                     row.algorithm, fixed(row.time_us, 2), fixed(row.algbw, 2), fixed(row.busbw, 2),
                     row.wrong, fixed(row.time_us, 2), fixed(row.algbw, 2), fixed(row.busbw, 2),
                     kNotChecked});
  }
  std::cout << format_table(
      {"size (B)", "size", "count", "type", "redop", "root", "algorithm", "time (us)",
       "algbw (GB/s)", "busbw (GB/s)", "#wrong", "in-place time (us)", "algbw", "busbw", "#wrong"},
      cells);
  std::cout << "size, algbw, busbw: nccl-tests' conventions (all_gather: size = output per "
               "replica); in-place: the "
               "same schedule and time (the model has no buffer aliasing), not checked on data; "
               "#wrong N/A: no --data\n";
  return 0;
}

}  // namespace ipusim::cli
