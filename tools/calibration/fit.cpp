#include "tools/calibration/fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <nlopt.hpp>
#include <set>

#include "sim/errors.hpp"
#include "tools/validate/validate_reference.hpp"

namespace ipusim::cli {

namespace {

/// ln-error charged for a case that failed to run or gave a value <= 0 (e^30 off).
constexpr double kFailedLogError = 30.0;

/// Data handed to NLopt's C-style callback.
struct Problem {
  std::function<double(const std::vector<double>&)> objective;
  std::exception_ptr error;  ///< an exception of the objective, rethrown after optimize()
  nlopt::opt* opt = nullptr;
  double best = std::numeric_limits<double>::infinity();
  std::vector<double> best_u;
  unsigned evaluations = 0;
};

double nlopt_objective(const std::vector<double>& u,
                       std::vector<double>& /*gradient: derivative-free*/, void* data) {
  auto* p = static_cast<Problem*>(data);
  if (p->error) return p->best;
  try {
    const double j = p->objective(u);
    ++p->evaluations;
    if (j < p->best) {
      p->best = j;
      p->best_u = u;
    }
    return j;
  } catch (...) {
    p->error = std::current_exception();
    p->opt->force_stop();
    return p->best;
  }
}

std::string result_text(nlopt::result r) {
  switch (r) {
    case nlopt::SUCCESS:
      return "success";
    case nlopt::STOPVAL_REACHED:
      return "objective below the stop value";
    case nlopt::FTOL_REACHED:
      return "objective tolerance reached";
    case nlopt::XTOL_REACHED:
      return "parameter tolerance reached";
    case nlopt::MAXEVAL_REACHED:
      return "maximum evaluations reached (--max-evals)";
    case nlopt::MAXTIME_REACHED:
      return "time limit reached";
    default:
      return "stopped (" + std::to_string(static_cast<int>(r)) + ")";
  }
}

/// Runs one NLopt algorithm; throws std::invalid_argument when the algorithm refuses the problem.
nlopt::result run_optimiser(nlopt::algorithm algorithm, Problem& problem, std::vector<double>& u,
                            const std::vector<double>& lower, const std::vector<double>& upper,
                            const std::vector<double>& steps, unsigned max_evals) {
  nlopt::opt opt(algorithm, static_cast<unsigned>(u.size()));
  problem.opt = &opt;
  opt.set_lower_bounds(lower);
  opt.set_upper_bounds(upper);
  opt.set_initial_step(steps);
  opt.set_min_objective(nlopt_objective, &problem);
  opt.set_xtol_abs(1e-7);
  opt.set_ftol_abs(1e-16);
  opt.set_stopval(1e-14);  // a perfect fit: every case within ~1e-7 (log)
  opt.set_maxeval(static_cast<int>(max_evals));
  double j = 0.0;
  nlopt::result r;
  try {
    r = opt.optimize(u, j);
  } catch (const nlopt::roundoff_limited&) {
    r = nlopt::ROUNDOFF_LIMITED;
  } catch (const nlopt::forced_stop&) {
    r = nlopt::FORCED_STOP;
  }
  problem.opt = nullptr;
  if (problem.error) std::rethrow_exception(problem.error);
  return r;
}

}  // namespace

double log_error(const CaseValue& value, const CaseSpec& spec) {
  if (!value.ok || !(value.simulated > 0) || !(spec.measured_value > 0)) return kFailedLogError;
  return std::log(value.simulated / spec.measured_value);
}

double log_error_objective(const std::vector<CaseValue>& values,
                           const std::vector<CaseSpec>& cases) {
  double sum = 0.0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const double e = log_error(values[i], cases[i]);
    sum += e * e;
  }
  return sum;
}

double relative_sensitivity(double objective, double objective_up, double objective_down) {
  const double change =
      std::max(std::fabs(objective_up - objective), std::fabs(objective_down - objective));
  return change / std::max(objective, 1e-300);
}

double rms_error_rise(double objective, double objective_up, double objective_down,
                      std::size_t case_count) {
  const double n = static_cast<double>(std::max<std::size_t>(case_count, 1));
  return std::sqrt(std::max(objective_up, objective_down) / n) - std::sqrt(objective / n);
}

double relative_error_of(const CaseValue& value, const CaseSpec& spec) {
  if (!value.ok) return std::numeric_limits<double>::quiet_NaN();
  return relative_error(value.simulated, spec.measured_value);
}

std::vector<std::string> param_sets(const std::vector<FitParam>& params,
                                    const std::vector<double>& values) {
  std::vector<std::string> sets;
  for (std::size_t i = 0; i < params.size(); ++i) sets.push_back(params[i].set_text(values[i]));
  return sets;
}

double case_elasticity(const CaseValue& at, const CaseValue& down, const CaseValue& up, double x,
                       double x_down, double x_up) {
  if (!at.ok || !down.ok || !up.ok || !(at.simulated > 0) || x_up == x_down) return 0.0;
  const double relative_x = (x_up - x_down) / (x != 0 ? std::fabs(x) : 1.0);
  return ((up.simulated - down.simulated) / at.simulated) / relative_x;
}

std::string setup_key(const CaseSpec& spec) {
  std::string key = spec.config;
  for (const auto& s : spec.sets) key += " | " + s;
  return key;
}

namespace {

/// "a, b and c".
std::string and_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : (i + 1 == items.size() ? " and " : ", ")) + items[i];
  return out;
}

/// Why a parameter is refused: the cases that move it, all of one set-up (or none).
std::string refusal_text(const FittedParam& f, const FitOptions& options) {
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%g", options.min_case_sensitivity);
  std::string why = f.determined_by.empty()
                        ? "no calibration case moves it"
                        : "only one set-up moves it: case " + and_list(f.determined_by);
  return "calibrate: " + f.param.path + ": " + why +
         " (|relative change of the case / relative change of the parameter| >= " + threshold +
         "); a fitted parameter needs calibration cases of at least two different set-ups. "
         "Fix it (with its source) in the registry and leave it out of --params, or add a "
         "measurement of another set-up that depends on it";
}

}  // namespace

FitResult fit_parameters(const std::vector<CaseSpec>& cases, const std::vector<FitParam>& params,
                         CaseRunner& runner, const FitOptions& options) {
  return fit_parameters(
      cases, params,
      [&runner](const std::vector<CaseSpec>& c, const std::vector<std::string>& sets) {
        return runner.evaluate(c, sets);
      },
      options);
}

FitResult fit_parameters(const std::vector<CaseSpec>& cases, const std::vector<FitParam>& params,
                         const CaseEvaluator& evaluate, const FitOptions& options) {
  for (const auto& c : cases) {
    if (c.role != CaseRole::Calibration) {
      throw ConfigError(c.where +
                        ": /role: calibrate fits on calibration cases only, this one is " +
                        to_string(c.role));
    }
  }
  if (cases.empty()) throw ConfigError("calibrate: no calibration cases to fit on");
  FitResult result;
  std::vector<double> start;
  for (const auto& p : params) start.push_back(p.to_value(p.to_unit(p.start)));
  const auto values_at = [&](const std::vector<double>& values) {
    return evaluate(cases, param_sets(params, values));
  };
  const auto objective_at = [&](const std::vector<double>& values) {
    return log_error_objective(values_at(values), cases);
  };

  // The start point: every case must run there.
  const std::vector<CaseValue> before = values_at(start);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!before[i].ok) {
      throw ConfigError(cases[i].where +
                        ": /config: the case does not run at the start point: " + before[i].error);
    }
  }
  result.objective_start = log_error_objective(before, cases);

  // The ±step probe of parameter k around `values`: the points and each case's value there.
  struct Probe {
    double x_down = 0.0, x_up = 0.0;
    std::vector<CaseValue> down, up;
  };
  const auto probe_at = [&](const std::vector<double>& values, std::size_t k) {
    const FitParam& p = params[k];
    const double delta = options.step_fraction * (values[k] != 0 ? std::fabs(values[k]) : 1.0);
    std::vector<double> up = values, down = values;
    up[k] = std::min(p.max, values[k] + delta);
    down[k] = std::max(p.min, values[k] - delta);
    if (p.integer) {
      up[k] = std::round(up[k]);
      down[k] = std::round(down[k]);
    }
    return Probe{down[k], up[k], values_at(down), values_at(up)};
  };
  const auto objective_sensitivity = [&](const Probe& probe, double j) {
    return relative_sensitivity(j, log_error_objective(probe.up, cases),
                                log_error_objective(probe.down, cases));
  };

  // Per-case sensitivity at the start decides which parameters the cases determine: cases of
  // at least two different set-ups must move it, so no figure has a knob of its own.
  std::vector<std::size_t> free;  // indices of the determined parameters
  std::vector<std::string> refused;
  for (std::size_t k = 0; k < params.size(); ++k) {
    FittedParam f;
    f.param = params[k];
    f.value = start[k];
    const Probe probe = probe_at(start, k);
    f.sensitivity_start = objective_sensitivity(probe, result.objective_start);
    std::set<std::string> setups;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const double e = case_elasticity(before[i], probe.down[i], probe.up[i], start[k],
                                       probe.x_down, probe.x_up);
      f.case_sensitivity.push_back(e);
      if (std::fabs(e) >= options.min_case_sensitivity) {
        f.determined_by.push_back(cases[i].name);
        setups.insert(setup_key(cases[i]));
      }
    }
    f.setups = setups.size();
    // The final fit needs two set-ups so that a leave-one-out fold still has one to fit the
    // parameter on; inside a fold that one is enough.
    const std::size_t needed = options.underdetermined == Underdetermined::Refuse ? 2 : 1;
    f.determined = f.setups >= needed && f.sensitivity_start >= options.min_sensitivity;
    if (f.setups < 2 && options.underdetermined == Underdetermined::Refuse)
      refused.push_back(refusal_text(f, options));
    if (f.determined) free.push_back(k);
    result.params.push_back(f);
  }
  if (!refused.empty()) {
    std::string text;
    for (const auto& r : refused) text += (text.empty() ? "" : "\n") + r;
    throw ConfigError(text);
  }

  std::vector<double> fitted = start;
  result.algorithm = "none";
  result.stop_reason = free.empty() ? "no parameter is determined by the cases" : "";
  if (!free.empty()) {
    std::vector<double> u, lower, upper, steps;
    for (std::size_t k : free) {
      const FitParam& p = params[k];
      u.push_back(p.to_unit(start[k]));
      lower.push_back(p.unit_lower());
      upper.push_back(p.unit_upper());
      const double step = p.log_space()
                              ? options.step_fraction
                              : options.step_fraction * std::max(1.0, std::fabs(start[k]));
      steps.push_back(std::min(step, 0.45 * (upper.back() - lower.back())));
    }
    Problem problem;
    problem.objective = [&](const std::vector<double>& x) {
      std::vector<double> values = start;
      for (std::size_t i = 0; i < free.size(); ++i)
        values[free[i]] = params[free[i]].to_value(x[i]);
      return objective_at(values);
    };
    problem.best = result.objective_start;
    problem.best_u = u;
    std::vector<double> x = u;
    nlopt::result r;
    try {
      r = run_optimiser(nlopt::LN_BOBYQA, problem, x, lower, upper, steps, options.max_evals);
      result.algorithm = "LN_BOBYQA";
    } catch (const std::invalid_argument&) {
      x = u;
      r = run_optimiser(nlopt::LN_COBYLA, problem, x, lower, upper, steps, options.max_evals);
      result.algorithm = "LN_COBYLA";
    }
    result.stop_reason = result_text(r);
    result.evaluations = problem.evaluations;
    for (std::size_t i = 0; i < free.size(); ++i)
      fitted[free[i]] = params[free[i]].to_value(problem.best_u[i]);
  }

  const std::vector<CaseValue> after = values_at(fitted);
  result.objective_fitted = log_error_objective(after, cases);
  for (std::size_t k = 0; k < params.size(); ++k) {
    result.params[k].value = fitted[k];
    if (options.probe_fitted) {
      const Probe probe = probe_at(fitted, k);
      result.params[k].rms_error_rise_fitted =
          rms_error_rise(result.objective_fitted, log_error_objective(probe.up, cases),
                         log_error_objective(probe.down, cases), cases.size());
    }
  }
  for (std::size_t i = 0; i < cases.size(); ++i)
    result.cases.push_back({cases[i], before[i], after[i]});
  return result;
}

}  // namespace ipusim::cli
