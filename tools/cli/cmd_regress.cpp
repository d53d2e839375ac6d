// `ipusim regress BASELINE_DIR`: runs every golden-timing case in a folder and compares the
// reported values with the expected ones (exactly by default: the simulator is deterministic).
#include <boost/program_options.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "sim/errors.hpp"
#include "sim/output_file.hpp"
#include "tools/common/cli_util.hpp"
#include "tools/common/subprocess.hpp"
#include "tools/regress/regress_case.hpp"
#include "tools/regress/regress_compare.hpp"
#include "tools/regress/regress_junit.hpp"
#include "tools/sweep/sweep_input.hpp"
#include "tools/sweep/sweep_jobs.hpp"
#include "tools/sweep/sweep_progress.hpp"
#include "tools/sweep/sweep_results.hpp"
#include "tools/sweep/sweep_table.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

const char* kRegressHelp = R"HELP(
Each *.json file in BASELINE_DIR is a case:
  {"config": "CONFIG (relative to the case file)", "set": ["k=v", ...],
   "fields": {"time_ns": "/simulated/time_ns", ...},      (optional)
   "system": "pod64",           (optional: run the config's workload on this preset or file)
   "max_slowdown_pct": 5,       (optional: one-sided tolerance of times, see below)
   "expected": {"time_ns": 123.0, "algorithm": "ring"}}
Default fields: time_ns, and algorithm (/workload/algorithm) when the report has it.
Times (fields named *_ns) with max_slowdown_pct (the case's, else --max-slowdown-pct) are
judged one-sidedly: any speed-up passes, a slowdown beyond the limit fails; other fields use
--tolerance-pct (both ways; 0 = exact).
--update prints only what it rewrote (field: old -> new), no verdicts.
Exit code: 0 all match, 1 a value moved beyond the tolerance, differs, or a case failed
to run (with --update: 1 only if a case failed to run), 2 bad input.
)HELP";

/// Everything known about one case after its run.
struct CaseResult {
  RunOutcome outcome;
  std::vector<FieldCheck> checks;
  Json got = Json::object();  ///< the values found, in field order (for --update)
  bool pass() const {
    if (!outcome.ok) return false;
    for (const auto& c : checks) {
      if (!c.pass) return false;
    }
    return true;
  }
};

CaseResult evaluate(const RegressCase& c, const RunOutcome& outcome, double tolerance_pct,
                    double max_slowdown_pct) {
  CaseResult r;
  r.outcome = outcome;
  if (!outcome.ok) return r;
  for (const auto& field : fields_for(c, outcome.report)) {
    const Json* got = find_pointer(outcome.report, field.pointer);
    const Json got_value = got ? *got : Json();
    if (got) r.got[field.name] = *got;
    const Json expected = c.expected.contains(field.name) ? c.expected[field.name] : Json();
    const double slowdown = c.max_slowdown_pct >= 0 ? c.max_slowdown_pct : max_slowdown_pct;
    r.checks.push_back(compare_field(field.name, expected, got_value, tolerance_pct,
                                     is_time_field(field.name) ? slowdown : -1.0));
  }
  return r;
}

std::string verdict(const FieldCheck& check) {
  if (check.pass) return "PASS";
  return check.note.empty() ? "FAIL" : "FAIL (" + check.note + ")";
}

void print_table(const std::vector<RegressCase>& cases, const std::vector<CaseResult>& results) {
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!results[i].outcome.ok) {
      rows.push_back({cases[i].name, "-", "", "", "", "ERROR: " + results[i].outcome.error});
      continue;
    }
    for (const auto& check : results[i].checks) {
      rows.push_back({cases[i].name, check.field, cell_text(check.expected), cell_text(check.got),
                      format_delta(check.delta_pct), verdict(check)});
    }
  }
  std::cout << format_table({"case", "field", "expected", "got", "delta", "result"}, rows);
}

std::vector<JunitCase> junit_cases(const std::vector<RegressCase>& cases,
                                   const std::vector<CaseResult>& results) {
  std::vector<JunitCase> out;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    JunitCase j;
    j.name = cases[i].name;
    j.classname = "ipusim.regress";
    j.time_s = results[i].outcome.wall_s;
    if (!results[i].outcome.ok) {
      j.error = true;
      j.failure = "case did not run";
      j.details = results[i].outcome.error;
    } else if (!results[i].pass()) {
      j.failure = "values changed";
      for (const auto& check : results[i].checks) {
        if (check.pass) continue;
        j.details += check.field + ": expected " + cell_text(check.expected) + ", got " +
                     cell_text(check.got) + " (" + format_delta(check.delta_pct) + ")" +
                     (check.note.empty() ? "" : " " + check.note) + "\n";
      }
    }
    out.push_back(j);
  }
  return out;
}

/// The --json document: the tolerance, and per case its verdict ("pass", "changed",
/// "error"), the error, and every compared field with expected, got and delta.
Json regress_json(const std::vector<RegressCase>& cases, const std::vector<CaseResult>& results,
                  double tolerance) {
  Json list = Json::array();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CaseResult& r = results[i];
    Json fields = Json::array();
    for (const auto& c : r.checks) {
      fields.push_back({{"field", c.field},
                        {"expected", c.expected},
                        {"got", c.got},
                        {"delta_pct", std::isfinite(c.delta_pct) ? Json(c.delta_pct) : Json()},
                        {"pass", c.pass}});
    }
    list.push_back({{"case", cases[i].name},
                    {"file", cases[i].file},
                    {"result", !r.outcome.ok ? "error" : (r.pass() ? "pass" : "changed")},
                    {"error", r.outcome.error},
                    {"fields", fields}});
  }
  return Json{{"tolerance_pct", tolerance}, {"cases", list}};
}

/// --update's summary line of one rewritten case: every field that changed, old -> new.
std::string update_line(const RegressCase& c, const CaseResult& r) {
  std::string line = "updated " + c.file + ":";
  for (const auto& check : r.checks) {
    if (check.expected == check.got) continue;
    line += " " + check.field + " " + cell_text(check.expected) + " -> " + cell_text(check.got);
    if (std::isfinite(check.delta_pct)) line += " (" + format_delta(check.delta_pct) + ")";
    line += ";";
  }
  if (line.back() == ';') line.pop_back();
  return line;
}

void write_text(const std::string& path, const std::string& text) {
  write_text_file_atomic(path, text);
}

}  // namespace

int cmd_regress(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts("ipusim regress BASELINE_DIR [options]");
  opts.add_options()("help", "show this help")("baseline", po::value<std::string>(),
                                               "folder of *.json cases")(
      "update", "print the differences, then rewrite each case's \"expected\" with the new values")(
      "tolerance-pct", po::value<double>()->default_value(0.0),
      "allowed relative change of numbers, in %")(
      "max-slowdown-pct", po::value<double>(),
      "one-sided tolerance of times (*_ns) for cases without their own: a speed-up passes, a "
      "slowdown beyond it fails")("junit", po::value<std::string>(),
                                  "also write JUnit XML to this file")(
      "jobs,j", po::value<unsigned>()->default_value(default_jobs()), "simulations at once")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override applied to every case (k=v)")(
      "work", po::value<std::string>(),
      "keep each case's run outputs in this folder (default: a temp folder)")(
      "json", "print the results as JSON (one object per case) instead of the table")(
      "quiet,q", "no progress line");
  po::positional_options_description positional;
  positional.add("baseline", 1);
  const auto vm = parse_options(opts, positional, args);
  if (vm.count("help")) {
    std::cout << opts << kRegressHelp;
    return 0;
  }
  if (!vm.count("baseline")) throw ConfigError("regress: missing the baseline folder (see --help)");
  const double tolerance = vm["tolerance-pct"].as<double>();
  if (!(tolerance >= 0) ||
      !std::isfinite(tolerance)) {  // NaN compares false: no change would ever fail
    throw ConfigError("--tolerance-pct " + std::to_string(tolerance) +
                      ": expected a finite value >= 0");
  }
  double max_slowdown = -1;
  if (vm.count("max-slowdown-pct")) {
    max_slowdown = vm["max-slowdown-pct"].as<double>();
    if (!(max_slowdown >= 0) || !std::isfinite(max_slowdown)) {
      throw ConfigError("--max-slowdown-pct " + std::to_string(max_slowdown) +
                        ": expected a finite value >= 0");
    }
  }
  const std::vector<std::string> extra_sets =
      vm.count("set") ? vm["set"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (vm.count("junit"))
    check_output_file_flag("--junit", vm["junit"].as<std::string>());  // before any case runs

  std::vector<RegressCase> cases;
  for (const auto& file : find_case_files(resolve_input_path(vm["baseline"].as<std::string>()))) {
    cases.push_back(load_case(file));
    RegressCase& c = cases.back();
    if (!c.system.empty()) c.system = resolve_system_config(c.system, c.file + ": /system");
  }

  std::unique_ptr<TempDir> temp;
  std::string work;
  if (vm.count("work")) {
    work = vm["work"].as<std::string>();
    fs::create_directories(work);
  } else {
    temp = std::make_unique<TempDir>("ipusim_regress_");
    work = temp->path();
  }
  // Every override must name an existing key before any case runs: a typo in --set or a
  // case's "set" is bad input (exit 2), not N failed runs.
  std::vector<RunJob> jobs;
  for (const auto& c : cases) {
    std::vector<std::string> sets = c.sets;
    sets.insert(sets.end(), extra_sets.begin(), extra_sets.end());
    const std::string config = case_config_path(c, work);
    check_config_overrides(config, sets, [&](std::size_t i) {
      return i < c.sets.size() ? c.file + ": /set/" + std::to_string(i) : c.file + " with --set";
    });
    jobs.push_back({config, sets, (fs::path(work) / safe_name(c.name)).string()});
  }
  std::vector<CaseResult> results(cases.size());
  const bool json = vm.count("json") > 0;
  Progress progress(cases.size(), 0, vm.count("quiet") == 0 && !json);
  run_jobs(jobs, vm["jobs"].as<unsigned>(), [&](std::size_t i, const RunOutcome& outcome) {
    results[i] = evaluate(cases[i], outcome, tolerance, max_slowdown);
    progress.finished(!results[i].pass());
  });
  progress.close();

  const bool update = vm.count("update") > 0;
  if (!json && !update) print_table(cases, results);
  std::size_t passed = 0, failed = 0, broken = 0;
  for (const auto& r : results) {
    if (!r.outcome.ok)
      ++broken;
    else if (r.pass())
      ++passed;
    else
      ++failed;
  }
  if (json) {
    std::cout << regress_json(cases, results, tolerance).dump(2) << "\n";
  } else if (!update) {
    std::cout << "\n"
              << cases.size() << " cases: " << passed << " passed, " << failed << " changed, "
              << broken << " did not run (tolerance " << tolerance << " %"
              << (max_slowdown >= 0 ? ", times: at most " + fixed(max_slowdown, 3) + " % slower"
                                    : std::string())
              << ")\n";
  }
  if (vm.count("junit"))
    write_text(vm["junit"].as<std::string>(),
               junit_xml("ipusim.regress", junit_cases(cases, results)));

  if (update) {
    // Quiet: no verdicts, only what was rewritten and why a case could not be.
    std::size_t updated = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      if (!results[i].outcome.ok) {
        if (!json)
          std::cout << "not updated " << cases[i].file << ": " << results[i].outcome.error << "\n";
        continue;
      }
      if (!write_expected(cases[i], results[i].got)) continue;
      ++updated;
      if (!json) std::cout << update_line(cases[i], results[i]) << "\n";
    }
    if (!json) {
      std::cout << cases.size() << " cases: " << updated << " updated, "
                << (cases.size() - updated - broken) << " unchanged, " << broken
                << " did not run\n";
    }
    return broken > 0 ? 1 : 0;
  }
  return (failed > 0 || broken > 0) ? 1 : 0;
}

}  // namespace ipusim::cli
