// `ipusim validate [CASES...]`: simulates every case (configs/validation/cases by default)
// and reports three sections — prediction errors (the headline), calibration fit quality,
// consistency checks — and, with --cross-validate, leave-one-out predictions of the
// calibration cases. Exit 1 when a case is outside its tolerance.
#include <boost/program_options.hpp>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>

#include "sim/errors.hpp"
#include "sim/output_file.hpp"
#include "tools/calibration/case_file.hpp"
#include "tools/calibration/case_runner.hpp"
#include "tools/calibration/fit.hpp"
#include "tools/calibration/param_space.hpp"
#include "tools/calibration/validate_sections.hpp"
#include "tools/cli/html_output.hpp"
#include "tools/common/cli_util.hpp"
#include "tools/common/subprocess.hpp"
#include "tools/regress/regress_junit.hpp"
#include "tools/sweep/sweep_input.hpp"
#include "tools/sweep/sweep_jobs.hpp"
#include "tools/sweep/sweep_progress.hpp"

namespace ipusim::cli {

namespace {

const char* kValidateHelp = R"HELP(
Without arguments, uses every *.json case file in configs/validation/cases/ (found in the
working directory, $IPUSIM_SOURCE_DIR or the source tree). A case file:
  {"name", "role": "calibration"|"prediction"|"consistency", "config" (relative to the
   case file), "set": ["k=v", ...], "report_path": "/pointer/in/report.json",
   "measured": {"value", "unit"}, "scale", "tolerance_pct", "source", "notes"}
Simulated value = report value x scale. Error = (simulated - measured) / |measured|; a
mean error is the geometric mean of (1 + |error|) minus 1. The headline is the mean over
PREDICTION cases only; calibration cases show the fit quality, consistency cases check
that datasheet values are reproduced. --cross-validate refits --params without each
calibration case in turn (as ipusim calibrate, except that a parameter the remaining cases of
one set-up move is fitted on them, and one no remaining case moves keeps its start) and
predicts it.
Exit code: 0 all within tolerance, 1 otherwise (or a case did not run), 2 bad input.
)HELP";

/// Leave-one-out: fit the parameters on the other calibration cases, predict this one.
std::vector<CrossValidationRow> cross_validate(const std::vector<CaseSpec>& cases,
                                               const std::vector<FitParam>& params,
                                               CaseRunner& runner, const FitOptions& options,
                                               bool verbose) {
  const std::vector<CaseSpec> calibration = cases_with_role(cases, CaseRole::Calibration);
  if (calibration.size() < 2) {
    throw ConfigError("--cross-validate: needs at least 2 calibration cases, found " +
                      std::to_string(calibration.size()));
  }
  std::vector<CrossValidationRow> rows;
  for (std::size_t i = 0; i < calibration.size(); ++i) {
    std::vector<CaseSpec> others;
    for (std::size_t j = 0; j < calibration.size(); ++j) {
      if (j != i) others.push_back(calibration[j]);
    }
    if (verbose)
      std::cerr << "cross-validation " << (i + 1) << "/" << calibration.size()
                << ": fitting without " << calibration[i].name << "\n";
    FitOptions fold = options;
    // Without the left-out case a parameter may rest on one set-up. The fold fits it there:
    // the left-out case never enters the fit, so its error is a prediction of a set-up the
    // parameter was not fitted to (what the two-set-up rule of the final fit exists for).
    // Holding it at its assumption instead would judge the assumption, not the model. A
    // parameter no remaining case moves stays at its start (configs/calibration/README.md).
    fold.underdetermined = Underdetermined::FitIfMoved;
    fold.probe_fitted = false;
    const FitResult fit = fit_parameters(others, params, runner, fold);
    std::vector<double> values;
    for (const auto& p : fit.params) values.push_back(p.value);
    CrossValidationRow row;
    row.spec = calibration[i];
    row.fitted = fit.params;
    row.predicted = runner.evaluate({calibration[i]}, param_sets(params, values))[0];
    row.error = relative_error_of(row.predicted, row.spec);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

int cmd_validate(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts("ipusim validate [CASES_DIR_OR_FILES ...] [options]");
  opts.add_options()("help", "show this help")(
      "cases", po::value<std::vector<std::string>>(),
      "case files or folders (default configs/validation/cases)")(
      "cross-validate", "leave-one-out cross-validation of the calibration cases (needs --params)")(
      "params", po::value<std::string>(),
      "parameters refitted by --cross-validate (comma-separated registry paths)")(
      "params-from", po::value<std::string>(),
      "parameters refitted by --cross-validate, each from its \"start\": an assumptions file "
      "(configs/calibration/assumptions.json)")("max-evals",
                                                po::value<unsigned>()->default_value(200),
                                                "objective evaluations per cross-validation fit")(
      "start-from", po::value<std::string>(),
      "cross-validation fits start from the 'start' values recorded in this calibrate *.meta.json "
      "(the assumptions "
      "before calibration), not from the current (fitted) defaults, so no fit starts at a point "
      "that saw the left-out case")("junit", po::value<std::string>(),
                                    "also write JUnit XML to this file")(
      "html", po::value<std::string>(),
      "also write this self-contained page (e.g. report.html): predicted against measured")(
      "json", "print the results as JSON instead of tables")(
      "jobs,j", po::value<unsigned>()->default_value(default_jobs()), "simulations at once")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override applied to every case (k=v)")(
      "work", po::value<std::string>(),
      "keep each case's run outputs in this folder (default: a temp folder)")("quiet,q",
                                                                              "no progress line");
  po::positional_options_description positional;
  positional.add("cases", -1);
  const auto vm = parse_options(opts, positional, args);
  if (vm.count("help")) {
    std::cout << opts << kValidateHelp;
    return 0;
  }
  if (vm.count("junit"))
    check_output_file_flag("--junit", vm["junit"].as<std::string>());  // before any case runs
  if (vm.count("html")) check_output_file_flag("--html", vm["html"].as<std::string>());
  std::vector<std::string> inputs =
      vm.count("cases") ? vm["cases"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (inputs.empty()) {
    const std::string dir = default_cases_dir();
    if (dir.empty())
      throw ConfigError("validate: no case files given and configs/validation/cases/ not found");
    inputs.push_back(dir);
  }
  const std::vector<CaseSpec> cases = load_cases(inputs);
  if (cases.empty()) {
    std::string names;
    for (const auto& in : inputs) names += (names.empty() ? "" : ", ") + in;
    throw ConfigError("validate " + names +
                      ": no cases found (expected *.json case files with a \"cases\" list)");
  }
  {
    // Every override (the case's "set" and --set) must suit an existing key before any case
    // runs: a bad --set is bad input (exit 2), not every case failing (exit 1).
    const std::vector<std::string> extra =
        vm.count("set") ? vm["set"].as<std::vector<std::string>>() : std::vector<std::string>{};
    for (const auto& c : cases) {
      if (c.config.empty()) continue;
      std::vector<std::string> sets = c.sets;
      sets.insert(sets.end(), extra.begin(), extra.end());
      check_config_overrides(c.config, sets, [&](std::size_t i) {
        return i < c.sets.size() ? c.where + ": /set/" + std::to_string(i)
                                 : c.where + " with --set";
      });
    }
  }
  std::vector<FitParam> params;
  if (vm.count("cross-validate")) {
    if (vm.count("params") == vm.count("params-from"))
      throw ConfigError(
          "--cross-validate: needs one of --params NAME,NAME... and --params-from FILE (the "
          "parameters to refit)");
    params = vm.count("params") ? resolve_fit_params(vm["params"].as<std::string>())
                                : fit_params_from_assumptions(vm["params-from"].as<std::string>());
    if (vm.count("start-from")) {
      const std::string file = vm["start-from"].as<std::string>();
      const Json meta = cli::read_json_file(file);
      for (FitParam& p : params) {
        const Json* start = meta.contains("parameters") && meta["parameters"].contains(p.path)
                                ? &meta["parameters"][p.path]
                                : nullptr;
        if (!start || !start->contains("start") || !(*start)["start"].is_number())
          throw ConfigError("--start-from " + file + ": no /parameters/" + p.path +
                            "/start number");
        p.start = (*start)["start"].get<double>();
      }
    }
  }

  std::unique_ptr<TempDir> temp;
  std::string work;
  if (vm.count("work")) {
    work = vm["work"].as<std::string>();
  } else {
    temp = std::make_unique<TempDir>("ipusim_validate_");
    work = temp->path();
  }
  const bool verbose = vm.count("quiet") == 0;
  check_jobs_option(vm["jobs"].as<unsigned>());  // before any case runs
  CaseRunner runner(
      work, vm["jobs"].as<unsigned>(),
      vm.count("set") ? vm["set"].as<std::vector<std::string>>() : std::vector<std::string>{}, "");
  std::vector<CaseOutcome> outcomes;
  {
    Progress progress(cases.size(), 0, verbose);
    runner.on_run([&](bool failed) { progress.finished(failed); });
    const std::vector<CaseValue> values = runner.evaluate(cases, {});
    progress.close();
    runner.on_run(nullptr);
    for (std::size_t i = 0; i < cases.size(); ++i)
      outcomes.push_back(judge_case(cases[i], values[i]));
  }
  std::vector<CrossValidationRow> cross;
  if (vm.count("cross-validate")) {
    FitOptions options;
    options.max_evals = vm["max-evals"].as<unsigned>();
    cross = cross_validate(cases, params, runner, options, verbose);
  }
  const std::vector<CrossValidationRow>* cross_ptr = vm.count("cross-validate") ? &cross : nullptr;
  if (vm.count("json")) {
    std::cout << validation_json(outcomes, cross_ptr).dump(2) << "\n";
  } else {
    std::cout << validation_text(outcomes, cross_ptr);
  }
  if (vm.count("junit")) {
    const std::string file = vm["junit"].as<std::string>();
    write_text_file_atomic(file, junit_xml("ipusim.validate", validation_junit(outcomes)));
  }
  if (vm.count("html")) {
    if (const int code = write_validation_html(vm["html"].as<std::string>(),
                                               validation_json(outcomes, cross_ptr),
                                               vm.count("json") > 0 || !verbose))
      return code;
  }
  for (const auto& o : outcomes) {
    if (!o.pass) return 1;
  }
  return 0;
}

}  // namespace ipusim::cli
