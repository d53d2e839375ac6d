#include "tools/calibration/validate_sections.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "tools/calibration/param_space.hpp"
#include "tools/sweep/sweep_table.hpp"
#include "tools/validate/validate_reference.hpp"

namespace ipusim::cli {

namespace {

std::string sig4(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "-" : (v > 0 ? "inf" : "-inf");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string pct(double error) {
  return std::isfinite(error) ? fixed(error * 100.0, 2) : sig4(error);
}

std::string verdict(const CaseOutcome& o) {
  if (!o.value.ok) return "ERROR: " + o.value.error;
  return o.pass ? "PASS" : "FAIL";
}

std::string case_table(const std::vector<CaseOutcome>& outcomes) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& o : outcomes) {
    rows.push_back({o.spec.name, sig4(o.spec.measured_value),
                    o.value.ok ? sig4(o.value.simulated) : "", o.spec.measured_unit, pct(o.error),
                    fixed(o.spec.tolerance_pct, 1), verdict(o)});
  }
  return format_table({"case", "measured", "simulated", "unit", "error %", "tol %", "result"},
                      rows);
}

std::size_t failures(const std::vector<CaseOutcome>& outcomes) {
  std::size_t n = 0;
  for (const auto& o : outcomes) n += o.pass ? 0 : 1;
  return n;
}

Json outcome_json(const CaseOutcome& o) {
  Json row = {{"name", o.spec.name},
              {"file", o.spec.file},
              {"role", to_string(o.spec.role)},
              {"measured", o.spec.measured_value},
              {"unit", o.spec.measured_unit},
              {"tolerance_pct", o.spec.tolerance_pct},
              {"source", o.spec.source},
              {"pass", o.pass}};
  row["simulated"] = o.value.ok ? Json(o.value.simulated) : Json();
  row["error"] = std::isfinite(o.error) ? Json(o.error) : Json();
  if (!o.value.ok) row["run_error"] = o.value.error;
  return row;
}

Json section_json(const std::vector<CaseOutcome>& outcomes) {
  Json cases = Json::array();
  for (const auto& o : outcomes) cases.push_back(outcome_json(o));
  const std::vector<double> errors = errors_of(outcomes);
  return {{"cases", cases},
          {"count", outcomes.size()},
          {"simulated", errors.size()},
          {"failed", failures(outcomes)},
          {"geomean_abs_error", mean_error(errors)}};
}

std::vector<double> cross_errors(const std::vector<CrossValidationRow>& rows) {
  std::vector<double> errors;
  for (const auto& r : rows) {
    if (std::isfinite(r.error)) errors.push_back(r.error);
  }
  return errors;
}

}  // namespace

CaseOutcome judge_case(const CaseSpec& spec, const CaseValue& value) {
  CaseOutcome o;
  o.spec = spec;
  o.value = value;
  o.error = relative_error_of(value, spec);
  o.pass = value.ok && std::fabs(o.error) * 100.0 <= spec.tolerance_pct;
  return o;
}

double mean_error(const std::vector<double>& errors) { return geometric_mean_error(errors); }

std::vector<double> errors_of(const std::vector<CaseOutcome>& outcomes) {
  std::vector<double> errors;
  for (const auto& o : outcomes) {
    if (o.value.ok) errors.push_back(o.error);
  }
  return errors;
}

std::vector<CaseOutcome> with_role(const std::vector<CaseOutcome>& outcomes, CaseRole role) {
  std::vector<CaseOutcome> out;
  for (const auto& o : outcomes) {
    if (o.spec.role == role) out.push_back(o);
  }
  return out;
}

std::string validation_text(const std::vector<CaseOutcome>& outcomes,
                            const std::vector<CrossValidationRow>* cross) {
  std::string out;
  const auto prediction = with_role(outcomes, CaseRole::Prediction);
  const auto calibration = with_role(outcomes, CaseRole::Calibration);
  const auto consistency = with_role(outcomes, CaseRole::Consistency);

  out += "== prediction (measurements the parameters were not fitted on)\n";
  if (prediction.empty()) {
    out += "no prediction cases: no prediction error to report\n";
  } else {
    out += case_table(prediction);
    out += "PREDICTION ERROR: geometric-mean |error| " +
           fixed(mean_error(errors_of(prediction)) * 100.0, 2) + " % over " +
           std::to_string(errors_of(prediction).size()) + " prediction cases; " +
           std::to_string(failures(prediction)) + " outside tolerance\n";
  }
  out +=
      "\n== calibration (measurements the parameters are fitted on: fit quality, not a "
      "prediction)\n";
  if (calibration.empty()) {
    out += "no calibration cases\n";
  } else {
    out += case_table(calibration);
    double sum = 0.0;
    for (const auto& o : calibration) {
      const double e = log_error(o.value, o.spec);
      sum += e * e;
    }
    out += "fit: geometric-mean |error| " + fixed(mean_error(errors_of(calibration)) * 100.0, 2) +
           " % over " + std::to_string(errors_of(calibration).size()) +
           " cases; sum ln(sim/measured)^2 = " + sig4(sum) + "; " +
           std::to_string(failures(calibration)) + " outside tolerance\n";
  }
  out +=
      "\n== consistency (datasheet values and formulas reproduced as configured; not "
      "measurements)\n";
  if (consistency.empty()) {
    out += "no consistency checks\n";
  } else {
    out += case_table(consistency);
    out += std::to_string(consistency.size() - failures(consistency)) + " of " +
           std::to_string(consistency.size()) + " checks pass (their geometric-mean error " +
           fixed(mean_error(errors_of(consistency)) * 100.0, 2) + " % is not a prediction error)\n";
  }
  if (cross) {
    out += "\n== cross-validation (each calibration case predicted by a fit without it)\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : *cross) {
      std::string fitted;
      for (const auto& p : r.fitted) {
        fitted += (fitted.empty() ? "" : ", ") + p.param.path + "=" + exact_number(p.value) +
                  (p.determined ? "" : " (undetermined)");
      }
      rows.push_back({r.spec.name, sig4(r.spec.measured_value),
                      r.predicted.ok ? sig4(r.predicted.simulated) : "ERROR", r.spec.measured_unit,
                      pct(r.error), fitted});
    }
    out += format_table(
        {"left-out case", "measured", "predicted", "unit", "error %", "fitted without it"}, rows);
    out += "CROSS-VALIDATION ERROR: geometric-mean |error| " +
           fixed(mean_error(cross_errors(*cross)) * 100.0, 2) + " % over " +
           std::to_string(cross_errors(*cross).size()) + " left-out cases\n";
  }
  std::size_t failed = failures(outcomes);
  out += "\n" + std::to_string(outcomes.size()) +
         " cases: " + std::to_string(outcomes.size() - failed) + " within tolerance, " +
         std::to_string(failed) + " not\n";
  out += "\nsources:\n";
  for (const auto& o : outcomes) out += "  " + o.spec.name + ": " + o.spec.source + "\n";
  return out;
}

Json validation_json(const std::vector<CaseOutcome>& outcomes,
                     const std::vector<CrossValidationRow>* cross) {
  Json doc = {{"prediction", section_json(with_role(outcomes, CaseRole::Prediction))},
              {"calibration", section_json(with_role(outcomes, CaseRole::Calibration))},
              {"consistency", section_json(with_role(outcomes, CaseRole::Consistency))},
              {"cases", outcomes.size()},
              {"failed", failures(outcomes)}};
  if (cross) {
    Json rows = Json::array();
    for (const auto& r : *cross) {
      Json params = Json::object();
      for (const auto& p : r.fitted)
        params[p.param.path] = {{"value", p.value}, {"determined", p.determined}};
      Json row = {{"name", r.spec.name}, {"measured", r.spec.measured_value}, {"fitted", params}};
      row["predicted"] = r.predicted.ok ? Json(r.predicted.simulated) : Json();
      row["error"] = std::isfinite(r.error) ? Json(r.error) : Json();
      rows.push_back(row);
    }
    doc["cross_validation"] = {{"cases", rows},
                               {"geomean_abs_error", mean_error(cross_errors(*cross))}};
  }
  return doc;
}

std::vector<JunitCase> validation_junit(const std::vector<CaseOutcome>& outcomes) {
  std::vector<JunitCase> out;
  for (const auto& o : outcomes) {
    JunitCase j;
    j.name = o.spec.name;
    j.classname = "ipusim.validate." + to_string(o.spec.role);
    if (!o.value.ok) {
      j.error = true;
      j.failure = "case did not run";
      j.details = o.value.error;
    } else if (!o.pass) {
      j.failure = "outside tolerance";
      j.details = "measured " + sig4(o.spec.measured_value) + " " + o.spec.measured_unit +
                  ", simulated " + sig4(o.value.simulated) + ", error " + pct(o.error) + " % > " +
                  fixed(o.spec.tolerance_pct, 1) + " %\nsource: " + o.spec.source;
    }
    out.push_back(j);
  }
  return out;
}

}  // namespace ipusim::cli
