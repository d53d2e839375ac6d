#pragma once
// Validation and calibration case files: one JSON file per measured figure,
//   {"name", "role": "calibration"|"prediction"|"consistency", "config" (relative to the
//    case file), "set": ["k=v", ...], "report_path": "/pointer/in/report.json",
//    "measured": {"value", "unit"}, "scale", "tolerance_pct", "source", "notes"}
// The simulated value is the report value times `scale`. Unknown keys, a missing source and
// an unknown role are errors naming the file and the key (ConfigError, exit 2).
#include <string>
#include <vector>

#include "sim/json.hpp"

namespace ipusim::cli {

/// What a case is for: fitted on (calibration), judged by (prediction), or a check that a
/// datasheet value or formula is reproduced as configured (consistency).
enum class CaseRole { Calibration, Prediction, Consistency };

/// The role's name as written in case files.
std::string to_string(CaseRole role);

/// One measured figure and how to simulate it.
struct CaseSpec {
  std::string file;  ///< the case file (or the legacy reference file) it came from
  std::string name;
  CaseRole role = CaseRole::Consistency;
  std::string config;  ///< resolved against the case file's folder
  std::vector<std::string> sets;
  std::string report_path;  ///< JSON pointer into report.json
  double measured_value = 0.0;
  std::string measured_unit;
  double scale = 1.0;
  double tolerance_pct = 0.0;
  std::string source;
  std::string notes;
  std::string where;  ///< "file" or "file: /cases/3" (prefix for error messages)
};

/// Parses one case document strictly; `file` names it in errors and anchors the config.
CaseSpec parse_case_file(const Json& doc, const std::string& file);

/// Reads a case file (or a legacy reference document {"cases": [...]}, whose cases become
/// consistency checks) and checks that each config exists.
std::vector<CaseSpec> load_case_file(const std::string& path);

/// The cases of the given files and folders (a folder: its *.json files, sorted by name);
/// duplicate names are errors.
std::vector<CaseSpec> load_cases(const std::vector<std::string>& files_or_dirs);

/// The default case folder: configs/validation/cases in the source tree ("" if absent).
std::string default_cases_dir();

/// The cases with the given role, in order.
std::vector<CaseSpec> cases_with_role(const std::vector<CaseSpec>& cases, CaseRole role);

}  // namespace ipusim::cli
