#pragma once
// The calibrate routine: fits parameters to calibration cases by minimising the sum over
// cases of ln(simulated / measured)^2 with NLopt (LN_BOBYQA, LN_COBYLA if BOBYQA refuses),
// in each parameter's normalised space, from the registry defaults, deterministically.
// Parameters the cases cannot determine (the objective does not move when they move by
// ±10 %) are reported and left at their start value.
#include <string>
#include <vector>

#include "tools/calibration/case_file.hpp"
#include "tools/calibration/case_runner.hpp"
#include "tools/calibration/param_space.hpp"

namespace ipusim::cli {

/// How to fit.
struct FitOptions {
  unsigned max_evals = 200;       ///< objective evaluations (each simulates every case)
  double min_sensitivity = 1e-6;  ///< below this relative objective change: undetermined
  double step_fraction = 0.1;     ///< the ±move of the sensitivity probe (10 %)
};

/// One parameter after the fit.
struct FittedParam {
  FitParam param;
  double value = 0.0;  ///< fitted value (the start value when undetermined)
  bool determined = true;
  double sensitivity_start = 0.0;   ///< relative objective change for ±10 % at the start
  double sensitivity_fitted = 0.0;  ///< the same at the fitted point
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

/// The `--set` overrides for a parameter vector.
std::vector<std::string> param_sets(const std::vector<FitParam>& params,
                                    const std::vector<double>& values);

/// Fits `params` to `cases` (all of which must be calibration cases). Throws ConfigError
/// when a case does not run at the start point.
FitResult fit_parameters(const std::vector<CaseSpec>& cases, const std::vector<FitParam>& params,
                         CaseRunner& runner, const FitOptions& options);

/// (simulated − measured) / |measured| of a case value; NaN when the case did not run.
double relative_error_of(const CaseValue& value, const CaseSpec& spec);

}  // namespace ipusim::cli
