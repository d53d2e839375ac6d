// `ipusim validate [REFERENCE.json ...]`: simulates published measurements and reports the
// relative error of each, and their geometric mean; fails when a case exceeds its tolerance.
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "sim/errors.hpp"
#include "tools/cli_util.hpp"
#include "tools/subprocess.hpp"
#include "tools/sweep_input.hpp"
#include "tools/sweep_jobs.hpp"
#include "tools/sweep_progress.hpp"
#include "tools/sweep_table.hpp"
#include "tools/validate_reference.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

const char* kValidateHelp = R"HELP(
Without arguments, uses every *.json file in configs/validation/ (found in the working
directory, $IPUSIM_SOURCE_DIR or the source tree). Simulated value = metric × scale.
Error = (simulated − measured) / |measured|; the summary gives the geometric mean of
(1 + |error|) minus 1. Exit code: 0 all within tolerance, 1 otherwise, 2 bad input.
)HELP";

/// The measurement files to use: the arguments, or configs/validation/*.json.
std::vector<std::string> reference_files(const std::vector<std::string>& given) {
  if (!given.empty()) return given;
  const std::string dir = locate_source_file("configs/validation");
  if (dir.empty()) throw ConfigError("validate: no reference files given and configs/validation/ not found");
  std::vector<std::string> files = reference_files_in(dir);
  if (files.empty()) throw ConfigError("validate: no *.json reference files in " + dir);
  return files;
}

/// A number with 4 significant digits, for measured and simulated values.
std::string sig4(double v) {
  if (!std::isfinite(v)) return fixed(v, 0);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

int cmd_validate(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts("ipusim validate [REFERENCE.json ...] [options]");
  opts.add_options()("help", "show this help")(
      "reference", po::value<std::vector<std::string>>(), "reference files (default configs/validation/*.json)")(
      "jobs,j", po::value<unsigned>()->default_value(default_jobs()), "simulations at once")(
      "set", po::value<std::vector<std::string>>()->composing(), "override applied to every case (k=v)")(
      "work", po::value<std::string>(), "keep each case's run outputs in this folder (default: a temp folder)")(
      "quiet,q", "no progress line");
  po::positional_options_description positional;
  positional.add("reference", -1);
  const auto vm = parse_options(opts, positional, args);
  if (vm.count("help")) {
    std::cout << opts << kValidateHelp;
    return 0;
  }
  const std::vector<std::string> extra_sets =
      vm.count("set") ? vm["set"].as<std::vector<std::string>>() : std::vector<std::string>{};
  std::vector<ValidationCase> cases;
  for (const auto& file : reference_files(vm.count("reference") ? vm["reference"].as<std::vector<std::string>>()
                                                                  : std::vector<std::string>{})) {
    for (auto& c : load_reference(file)) cases.push_back(std::move(c));
  }
  if (cases.empty()) throw ConfigError("validate: the reference files hold no cases");

  std::unique_ptr<TempDir> temp;
  std::string work;
  if (vm.count("work")) {
    work = vm["work"].as<std::string>();
  } else {
    temp = std::make_unique<TempDir>("ipusim_validate_");
    work = temp->path();
  }
  std::vector<RunJob> jobs;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::vector<std::string> sets = cases[i].sets;
    sets.insert(sets.end(), extra_sets.begin(), extra_sets.end());
    // The index keeps folders apart when two reference files reuse a case name.
    jobs.push_back({cases[i].config, sets, (fs::path(work) / (std::to_string(i) + "_" + safe_name(cases[i].name))).string()});
  }
  std::vector<RunOutcome> outcomes(cases.size());
  Progress progress(cases.size(), 0, vm.count("quiet") == 0);
  run_jobs(jobs, std::max(1u, vm["jobs"].as<unsigned>()), [&](std::size_t i, const RunOutcome& o) {
    outcomes[i] = o;
    progress.finished(!o.ok);
  });
  progress.close();

  std::vector<std::vector<std::string>> rows;
  std::vector<double> errors;
  std::size_t failed = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const ValidationCase& c = cases[i];
    std::vector<std::string> row = {c.name, sig4(c.value)};
    const Json* metric = outcomes[i].ok ? find_pointer(outcomes[i].report, c.metric) : nullptr;
    if (!outcomes[i].ok || !metric || !metric->is_number()) {
      ++failed;
      const std::string why = !outcomes[i].ok ? outcomes[i].error
                                              : (metric ? c.metric + " is not a number" : c.metric + " not in the report");
      row.insert(row.end(), {"", c.unit, "", fixed(c.tolerance_pct, 1), "ERROR: " + why});
      rows.push_back(row);
      continue;
    }
    const double simulated = metric->get<double>() * c.scale;
    const double error = relative_error(simulated, c.value);
    errors.push_back(error);
    const bool pass = std::fabs(error) * 100.0 <= c.tolerance_pct;
    if (!pass) ++failed;
    row.insert(row.end(), {sig4(simulated), c.unit, fixed(error * 100.0, 2), fixed(c.tolerance_pct, 1),
                           pass ? "PASS" : "FAIL"});
    rows.push_back(row);
  }
  std::cout << format_table({"case", "measured", "simulated", "unit", "error %", "tol %", "result"}, rows);
  std::cout << "\n" << cases.size() << " cases: " << (cases.size() - failed) << " within tolerance, " << failed
            << " not; geometric-mean error " << fixed(geometric_mean_error(errors) * 100.0, 2) << " % over "
            << errors.size() << " simulated cases\n";
  std::cout << "\ncases:\n";
  for (const auto& c : cases) {
    std::cout << "  " << c.name << ": " << c.quantity << (c.conditions.empty() ? "" : "; " + c.conditions) << "\n"
              << "    source: " << c.source << "\n";
  }
  return failed > 0 ? 1 : 0;
}

}  // namespace ipusim::cli
