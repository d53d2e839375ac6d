#pragma once
// Published measurements that `ipusim validate` reproduces. A reference file is
//   {"description": "...", "cases": [{"name", "quantity", "conditions", "value", "unit",
//     "source", "config" (relative to the file), "set": [...], "metric": "/pointer/in/report",
//     "scale": 1.0, "tolerance_pct"}]}
// The simulated value is the metric times scale (e.g. ns × GHz = cycles).
#include <string>
#include <vector>

#include "sim/json.hpp"

namespace ipusim::cli {

/// One published value and how to simulate it.
struct ValidationCase {
  std::string file;
  std::string name;
  std::string quantity;
  std::string conditions;
  double value = 0.0;  ///< the published value, in `unit`
  std::string unit;
  std::string source;
  std::string config;  ///< resolved against the reference file's folder
  std::vector<std::string> sets;
  std::string metric;  ///< JSON pointer into report.json
  double scale = 1.0;
  double tolerance_pct = 0.0;
};

/// Parses a reference document strictly; `file` names it in errors and anchors configs.
std::vector<ValidationCase> parse_reference(const Json& doc, const std::string& file);

/// Reads and parses a reference file (and checks that every config exists).
std::vector<ValidationCase> load_reference(const std::string& path);

/// The *.json files directly in `dir`, sorted by name.
std::vector<std::string> reference_files_in(const std::string& dir);

/// (simulated − measured) / |measured|; 0 if both are 0, ±inf if only measured is 0.
double relative_error(double simulated, double measured);

/// Geometric mean of (1 + |error|), minus 1: a mean error that a single exact match does
/// not collapse to zero (as a plain geometric mean of |error| would). 0 for no errors.
double geometric_mean_error(const std::vector<double>& errors);

}  // namespace ipusim::cli
