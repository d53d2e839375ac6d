#pragma once
// The calibrate routine: fits parameters to calibration cases by minimising the sum over
// cases of ln(simulated / measured)^2 with NLopt (LN_BOBYQA, LN_COBYLA if BOBYQA refuses),
// in each parameter's normalised space, from the registry defaults, deterministically.
// A parameter is determined only when cases of at least two different set-ups move it
// (per-case sensitivity: relative change of the case's value per relative change of the
// parameter); calibrate refuses any other. A leave-one-out fold fits a parameter on whatever
// remaining cases move it (one set-up is enough there: the left-out case, which the final fit's
// second set-up guarantees, is predicted, not fitted) and holds one that none moves at its start.
#include <functional>
#include <string>
#include <vector>

#include "tools/calibration/case_file.hpp"
#include "tools/calibration/case_runner.hpp"
#include "tools/calibration/param_space.hpp"

namespace ipusim::cli {

/// What to do with a parameter fewer than two set-ups move.
enum class Underdetermined {
  Refuse,  ///< ConfigError naming the parameter and the one case (calibrate: exit 2)
  /// Leave-one-out folds: fit it when a remaining case moves it (one set-up suffices: the fold
  /// judges the fit by the case it left out, not by the cases it fitted), hold it at its start
  /// when none does.
  FitIfMoved
};

/// How to fit.
struct FitOptions {
  unsigned max_evals = 200;       ///< objective evaluations (each simulates every case)
  double min_sensitivity = 1e-6;  ///< below this relative objective change: undetermined
  /// A case moves a parameter when |d ln(case) / d ln(parameter)| reaches this (0.01: a
  /// 10 % parameter change moves the case by 0.1 %).
  double min_case_sensitivity = 0.01;
  double step_fraction = 0.1;  ///< the ±move of the sensitivity probe (10 %)
  Underdetermined underdetermined = Underdetermined::Refuse;
  /// Probe the sensitivities again at the fitted point (for the report; leave-one-out folds,
  /// which only predict the left-out case, skip it).
  bool probe_fitted = true;
};

/// Evaluates cases at a parameter point (`--set` texts applied last): CaseRunner::evaluate,
/// or an analytic model in unit tests.
using CaseEvaluator = std::function<std::vector<CaseValue>(const std::vector<CaseSpec>&,
                                                           const std::vector<std::string>&)>;

/// One parameter after the fit.
struct FittedParam {
  FitParam param;
  double value = 0.0;  ///< fitted value (the start value when undetermined)
  bool determined = true;
  double sensitivity_start = 0.0;  ///< relative objective change for ±10 % at the start
  /// At the fitted point: how much the calibration cases' RMS log error (about a relative error)
  /// rises when the parameter moves ±10 % (the worse side). A relative objective change, as at
  /// the start, means nothing there once the fit is nearly exact (the objective is ~0).
  double rms_error_rise_fitted = 0.0;
  /// Per calibration case (in the order of FitResult::cases): relative change of the case's
  /// value per relative change of the parameter at the start point (central difference).
  std::vector<double> case_sensitivity;
  /// The cases whose |case_sensitivity| reaches FitOptions::min_case_sensitivity.
  std::vector<std::string> determined_by;
  std::size_t setups = 0;  ///< distinct set-ups (config + sets) among determined_by
};

/// One case before and after.
struct CaseFit {
  CaseSpec spec;
  CaseValue before;
  CaseValue after;
};

/// Everything the fit found.
struct FitResult {
  std::vector<FittedParam> params;
  std::vector<CaseFit> cases;
  double objective_start = 0.0;
  double objective_fitted = 0.0;
  unsigned evaluations = 0;  ///< objective evaluations by the optimiser
  std::string algorithm;     ///< "LN_BOBYQA", "LN_COBYLA" or "none" (nothing to fit)
  std::string stop_reason;
};

/// ln(simulated / measured); a failed or non-positive simulation counts as a large error.
double log_error(const CaseValue& value, const CaseSpec& spec);

/// Sum of squared log-errors over the cases.
double log_error_objective(const std::vector<CaseValue>& values,
                           const std::vector<CaseSpec>& cases);

/// Relative objective change when a parameter moves by ±fraction: max |J± − J| / J
/// (J floored at 1e-300 so that a perfect fit stays finite).
double relative_sensitivity(double objective, double objective_up, double objective_down);

/// The rise of the RMS log error over `case_count` cases from `objective` (a sum of squared log
/// errors) to the worse of `objective_up` and `objective_down`; negative when both are better
/// (the point is not a minimum along this parameter).
double rms_error_rise(double objective, double objective_up, double objective_down,
                      std::size_t case_count);

/// The `--set` overrides for a parameter vector.
std::vector<std::string> param_sets(const std::vector<FitParam>& params,
                                    const std::vector<double>& values);

/// Fits `params` to `cases` (all of which must be calibration cases). Throws ConfigError
/// when a case does not run at the start point, and (Underdetermined::Refuse) when fewer
/// than two set-ups move a parameter, naming it and the case that does.
FitResult fit_parameters(const std::vector<CaseSpec>& cases, const std::vector<FitParam>& params,
                         const CaseEvaluator& evaluate, const FitOptions& options);

/// The same through a CaseRunner.
FitResult fit_parameters(const std::vector<CaseSpec>& cases, const std::vector<FitParam>& params,
                         CaseRunner& runner, const FitOptions& options);

/// Relative change of a case's value per relative change of the parameter, by central
/// difference: ((up − down) / at) / ((x_up − x_down) / |x|) (|x| taken as 1 when x is 0);
/// 0 when a value did not run or `at` is not positive.
double case_elasticity(const CaseValue& at, const CaseValue& down, const CaseValue& up, double x,
                       double x_down, double x_up);

/// A set-up's identity: its config and overrides (two report paths of one run are one set-up).
std::string setup_key(const CaseSpec& spec);

/// (simulated − measured) / |measured| of a case value; NaN when the case did not run.
double relative_error_of(const CaseValue& value, const CaseSpec& spec);

}  // namespace ipusim::cli
