// `ipusim calibrate CASES... --params A,B`: fits ASSUMPTION parameters to the calibration
// cases (see tools/calibration/fit.hpp) and writes a parameter file configs can $include.
#include <boost/program_options.hpp>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>

#include "sim/errors.hpp"
#include "tools/calibration/case_file.hpp"
#include "tools/calibration/case_runner.hpp"
#include "tools/calibration/fit.hpp"
#include "tools/calibration/fit_output.hpp"
#include "tools/calibration/param_space.hpp"
#include "tools/common/cli_util.hpp"
#include "tools/common/subprocess.hpp"
#include "tools/sweep/sweep_input.hpp"
#include "tools/sweep/sweep_jobs.hpp"
#include "tools/sweep/sweep_progress.hpp"
#include "tools/sweep/sweep_table.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

const char* kCalibrateHelp = R"HELP(
Fits the --params (registry paths whose description says ASSUMPTION or "fitted by ipusim
calibrate") within their registry [min, max] to the cases with role "calibration" (other
roles are ignored), minimising sum over cases of ln(simulated x scale / measured)^2.
NLopt LN_BOBYQA (LN_COBYLA if BOBYQA refuses), in ln(value / start) per parameter (the
value itself when the start is 0), starting from the registry defaults; deterministic.
Per parameter and case, calibrate reports the case's sensitivity (relative change of
the case's value per relative change of the parameter, +-10 % central difference at
the start) and the cases whose |sensitivity| reaches --min-case-sensitivity. A
parameter that cases of fewer than two different set-ups (config + set) move is refused
(exit 2, naming it and the case): no figure may have a knob of its own.
--params-from FILE takes the parameter list and each start value from an assumptions
file (configs/calibration/assumptions.json: values fixed before any fit, with sources).
Every point runs each case as a child `ipusim run ... --set PARAM=VALUE`; results are
cached in OUT.cache.jsonl, which --resume reuses after an interruption.
Writes OUT (nested config keys: "$include" it after the system preset) and
OUT.meta.json (per parameter: value, unit, cases, date, description for the registry).
--print-descriptions META prints the registry description of each fitted parameter.
Exit code: 0 fitted, 2 bad input (unknown or non-ASSUMPTION parameter, a parameter fewer
than two set-ups determine, bad case file).
)HELP";

std::string sig4(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string error_pct(const CaseValue& v, const CaseSpec& c) {
  const double e = relative_error_of(v, c);
  return std::isfinite(e) ? fixed(e * 100.0, 2) : (v.ok ? "inf" : "ERROR");
}

void print_cases(const FitResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : r.cases) {
    rows.push_back({c.spec.name, sig4(c.spec.measured_value), c.spec.measured_unit,
                    c.before.ok ? sig4(c.before.simulated) : "ERROR", error_pct(c.before, c.spec),
                    c.after.ok ? sig4(c.after.simulated) : "ERROR", error_pct(c.after, c.spec)});
  }
  std::cout << format_table(
      {"case", "measured", "unit", "start", "start err %", "fitted", "fitted err %"}, rows);
}

/// The result as one JSON document (for --json): the meta side-car plus each case before/after.
Json result_json(const FitResult& r, const Json& meta, const std::string& out) {
  Json cases = Json::array();
  for (const auto& c : r.cases) {
    Json j = {
        {"name", c.spec.name}, {"measured", c.spec.measured_value}, {"unit", c.spec.measured_unit}};
    j["start"] = c.before.ok ? Json(c.before.simulated) : Json(nullptr);
    j["fitted"] = c.after.ok ? Json(c.after.simulated) : Json(nullptr);
    cases.push_back(j);
  }
  return {{"cases", cases},
          {"parameters", meta.value("parameters", Json::object())},
          {"objective_start", r.objective_start},
          {"objective_fitted", r.objective_fitted},
          {"algorithm", r.algorithm},
          {"evaluations", r.evaluations},
          {"stop_reason", r.stop_reason},
          {"out", out}};
}

void print_params(const FitResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : r.params) {
    rows.push_back({p.param.path, p.param.unit, exact_number(p.param.start), exact_number(p.value),
                    "[" + exact_number(p.param.min) + ", " + exact_number(p.param.max) + "]",
                    sig4(p.sensitivity_start), sig4(p.rms_error_rise_fitted),
                    p.determined ? "fitted" : "UNDETERMINED"});
  }
  std::cout << format_table(
      {"parameter", "unit", "start", "fitted", "range", "sens. start", "rms rise fitted", "status"},
      rows);
}

/// Per parameter: its set-up count, then each case that moves it with its sensitivity.
void print_case_sensitivity(const FitResult& r, const FitOptions& options) {
  for (const auto& p : r.params) {
    std::cout << "  " << p.param.path << " (" << p.setups << " set-ups):";
    bool any = false;
    for (std::size_t i = 0; i < p.case_sensitivity.size() && i < r.cases.size(); ++i) {
      if (std::fabs(p.case_sensitivity[i]) < options.min_case_sensitivity) continue;
      std::cout << (any ? ", " : " ") << r.cases[i].spec.name << " " << sig4(p.case_sensitivity[i]);
      any = true;
    }
    std::cout << (any ? "\n" : " no case\n");
  }
}

}  // namespace

int cmd_calibrate(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts("ipusim calibrate CASES... --params NAME,NAME... [options]");
  opts.add_options()("help", "show this help")("cases", po::value<std::vector<std::string>>(),
                                               "case files or folders of case files")(
      "params", po::value<std::string>(),
      "comma-separated registry paths to fit (e.g. /ipu_link/latency_ns)")(
      "params-from", po::value<std::string>(),
      "fit the parameters of this assumptions file, each from its \"start\" "
      "(configs/calibration/assumptions.json)")(
      "out,o", po::value<std::string>()->default_value("out/calibration/fitted.json"),
      "the parameter file to write")("jobs,j", po::value<unsigned>()->default_value(default_jobs()),
                                     "simulations at once")(
      "max-evals", po::value<unsigned>()->default_value(200), "objective evaluations at most")(
      "min-sensitivity", po::value<double>()->default_value(1e-6),
      "relative objective change for a +-10 % move below which a parameter is undetermined")(
      "min-case-sensitivity", po::value<double>()->default_value(0.01),
      "|relative change of a case / relative change of a parameter| from which the case "
      "determines the parameter")(
      "resume", "reuse the evaluations cached in OUT.cache.jsonl by an earlier (interrupted) run")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override applied to every case (k=v)")(
      "work", po::value<std::string>(),
      "keep the run outputs in this folder (default: a temp folder)")(
      "print-descriptions", po::value<std::string>(),
      "print the registry descriptions from a *.meta.json and exit")("quiet,q", "no progress line")(
      "json",
      "print the result as JSON on stdout (cases before/after, parameters, objective) instead of "
      "tables");
  po::positional_options_description positional;
  positional.add("cases", -1);
  const auto vm = parse_options(opts, positional, args);
  if (vm.count("help")) {
    std::cout << opts << kCalibrateHelp;
    return 0;
  }
  if (vm.count("print-descriptions")) {
    std::string file = vm["print-descriptions"].as<std::string>();
    if (file.size() < 10 || file.substr(file.size() - 10) != ".meta.json")
      file = meta_path_for(file);
    std::cout << descriptions_text(read_json_file(file), file);
    return 0;
  }
  if (!vm.count("cases")) throw ConfigError("calibrate: missing the case files (see --help)");
  if (vm.count("params") == vm.count("params-from"))
    throw ConfigError(
        "calibrate: expected exactly one of --params NAME,NAME... and --params-from FILE (see "
        "--help)");
  const std::vector<FitParam> params =
      vm.count("params") ? resolve_fit_params(vm["params"].as<std::string>())
                         : fit_params_from_assumptions(vm["params-from"].as<std::string>());
  const std::vector<CaseSpec> all = load_cases(vm["cases"].as<std::vector<std::string>>());
  const std::vector<CaseSpec> cases = cases_with_role(all, CaseRole::Calibration);
  if (cases.empty())
    throw ConfigError("calibrate: none of the given cases has role \"calibration\"");
  const bool json = vm.count("json") > 0;
  if (cases.size() < all.size() && !json) {
    std::cout << "using the " << cases.size() << " calibration cases of " << all.size()
              << " (others ignored)\n";
  }
  FitOptions options;
  options.max_evals = vm["max-evals"].as<unsigned>();
  if (options.max_evals == 0) throw ConfigError("--max-evals: expected a value >= 1");
  options.min_sensitivity = vm["min-sensitivity"].as<double>();
  if (!(options.min_sensitivity >= 0))
    throw ConfigError("--min-sensitivity: expected a value >= 0");
  options.min_case_sensitivity = vm["min-case-sensitivity"].as<double>();
  if (!(options.min_case_sensitivity > 0))
    throw ConfigError("--min-case-sensitivity: expected a value > 0");

  const std::string out = vm["out"].as<std::string>();
  std::error_code ec;
  if (fs::path(out).has_parent_path()) fs::create_directories(fs::path(out).parent_path(), ec);
  if (ec) throw ConfigError("--out: cannot create the folder of " + out + ": " + ec.message());
  const std::string cache = out + ".cache.jsonl";
  if (!vm.count("resume")) fs::remove(cache, ec);

  std::unique_ptr<TempDir> temp;
  std::string work;
  if (vm.count("work")) {
    work = vm["work"].as<std::string>();
  } else {
    temp = std::make_unique<TempDir>("ipusim_calibrate_");
    work = temp->path();
  }
  check_jobs_option(
      vm["jobs"].as<unsigned>());  // -j 0 is bad input (exit 2), as in sweep and validate
  CaseRunner runner(
      work, vm["jobs"].as<unsigned>(),
      vm.count("set") ? vm["set"].as<std::vector<std::string>>() : std::vector<std::string>{},
      cache);
  if (vm.count("resume") && !json)
    std::cout << "resuming: " << runner.resumed_entries() << " cached evaluations in " << cache
              << "\n";
  // An upper bound of the runs (start, sensitivities before and after, the optimiser).
  Progress progress((options.max_evals + 1 + 4 * params.size()) * cases.size(), 0,
                    vm.count("quiet") == 0 && !json);
  runner.on_run([&](bool failed) { progress.finished(failed); });
  const FitResult result = fit_parameters(cases, params, runner, options);
  progress.close();

  const std::string date = today();
  const Json meta = fitted_meta(result, date);
  write_json_pretty(out, fitted_config(result));
  write_json_pretty(meta_path_for(out), meta);

  if (json) {
    std::cout << result_json(result, meta, out).dump(2) << "\n";
  } else {
    std::cout << "\ncases (" << cases.size() << " calibration):\n";
    print_cases(result);
    std::cout << "\nparameters (sens. start: relative objective change for a +-10 % move at the "
                 "start; rms rise fitted: the rise of the cases' RMS log error for the same move "
                 "at the fitted value):\n";
    print_params(result);
    std::cout << "\nwhich cases determine each parameter (relative change of the case per "
                 "relative change of the parameter, at the start):\n";
    print_case_sensitivity(result, options);
    std::cout << "\nobjective sum ln(sim/measured)^2: " << sig4(result.objective_start)
              << " at the start, " << sig4(result.objective_fitted) << " fitted; "
              << result.algorithm << ", " << result.evaluations << " evaluations, "
              << result.stop_reason << "; " << runner.runs() << " simulations, "
              << runner.cache_hits() << " cached\n";
  }
  if (runner.failed_runs() > 0) {
    std::cerr << "ipusim: warning: " << runner.failed_runs()
              << " simulations failed during the fit and were charged as huge errors; the first: "
              << runner.first_failure() << "\n";
  }
  for (const auto& p : result.params) {
    if (!p.determined) {
      std::cerr << "ipusim: warning: " << p.param.path
                << " is not determined by these cases (sensitivity " << sig4(p.sensitivity_start)
                << " < " << options.min_sensitivity << "): left at its start value "
                << exact_number(p.value) << "\n";
    }
  }
  if (json) return 0;
  std::cout << "\nwrote " << out << " (\"$include\" it after the system preset) and "
            << meta_path_for(out) << "\n";
  const std::string descriptions = descriptions_text(meta, meta_path_for(out));
  if (!descriptions.empty())
    std::cout << "\nregistry descriptions for the fitted parameters:\n" << descriptions;
  return 0;
}

}  // namespace ipusim::cli
