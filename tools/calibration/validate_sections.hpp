#pragma once
// The three sections of `ipusim validate`: prediction cases (each error and their
// geometric mean, the headline), calibration cases (fit quality) and consistency checks
// (pass/fail); plus leave-one-out cross-validation rows, as tables, JSON and JUnit.
#include <string>
#include <vector>

#include "sim/json.hpp"
#include "tools/calibration/case_file.hpp"
#include "tools/calibration/case_runner.hpp"
#include "tools/calibration/fit.hpp"
#include "tools/regress/regress_junit.hpp"

namespace ipusim::cli {

/// One case judged against its tolerance.
struct CaseOutcome {
  CaseSpec spec;
  CaseValue value;
  double error = 0.0;  ///< (simulated − measured) / |measured|; NaN when it did not run
  bool pass = false;   ///< ran and |error| <= tolerance
};

/// Judges a simulated value against the case.
CaseOutcome judge_case(const CaseSpec& spec, const CaseValue& value);

/// One left-out calibration case: the parameters fitted without it and its prediction.
struct CrossValidationRow {
  CaseSpec spec;
  std::vector<FittedParam> fitted;
  CaseValue predicted;
  double error = 0.0;  ///< NaN when the prediction did not run
};

/// Geometric mean of (1 + |error|), minus 1, over the outcomes that ran (0 for none).
double mean_error(const std::vector<double>& errors);

/// The errors of the outcomes that ran.
std::vector<double> errors_of(const std::vector<CaseOutcome>& outcomes);

/// The outcomes with the given role.
std::vector<CaseOutcome> with_role(const std::vector<CaseOutcome>& outcomes, CaseRole role);

/// The text report: the three sections (empty ones say so) and the cross-validation.
std::string validation_text(const std::vector<CaseOutcome>& outcomes,
                            const std::vector<CrossValidationRow>* cross);

/// The same as a JSON document ({"prediction": {"cases", "count", "geomean_abs_error"}, ...}).
Json validation_json(const std::vector<CaseOutcome>& outcomes,
                     const std::vector<CrossValidationRow>* cross);

/// One JUnit test case per validation case (classname ipusim.validate.<role>).
std::vector<JunitCase> validation_junit(const std::vector<CaseOutcome>& outcomes);

}  // namespace ipusim::cli
