#pragma once
// Golden-timing case files of `ipusim regress`. A baseline folder holds *.json cases:
//   {"config": "<relative to the case file>", "set": ["k=v", ...],
//    "fields": {"time_ns": "/simulated/time_ns", ...},   (optional)
//    "system": "pod64",                                    (optional: preset name or file)
//    "max_slowdown_pct": 5,                                (optional: one-sided tolerance)
//    "expected": {"time_ns": 123.0, "algorithm": "ring"}}
// Without "fields", a case compares time_ns (/simulated/time_ns) and, when the report has
// it, algorithm (/workload/algorithm). "system" runs the config's workload on that system
// instead of the config's own: every top-level section the system file defines comes from it.
// "max_slowdown_pct" judges the time fields (names ending in _ns) one-sidedly: any speed-up
// passes, a slowdown beyond it fails.
#include <string>
#include <utility>
#include <vector>

#include "sim/json.hpp"

namespace ipusim::cli {

/// A compared quantity: its name in "expected" and where it is in report.json.
struct RegressField {
  std::string name;
  std::string pointer;
};

/// One parsed case file.
struct RegressCase {
  std::string file;    ///< path of the case file
  std::string name;    ///< the file's stem
  std::string config;  ///< the config, resolved against the case file's folder
  std::vector<std::string> sets;
  std::vector<RegressField> fields;  ///< explicit fields (empty = the defaults)
  Json expected = Json::object();
  /// The system the case runs on ("" = the config's own): a preset name, or a path resolved
  /// against the case file's folder; the command turns a name into the preset's file.
  std::string system;
  double max_slowdown_pct = -1;  ///< one-sided tolerance of time fields (< 0: none)
};

/// True for fields judged by max_slowdown_pct: times, named "..._ns".
bool is_time_field(const std::string& name);

/// The config a case runs: `c.config` itself, or, with a system, a file written into
/// `work_dir` that includes the system file and adds every top-level section of the config
/// that the system file does not define. Returns its path.
std::string case_config_path(const RegressCase& c, const std::string& work_dir);

/// Parses a case document strictly; `file` names it in errors and anchors `config`.
RegressCase parse_case(const Json& doc, const std::string& file);

/// Reads and parses a case file.
RegressCase load_case(const std::string& path);

/// The *.json files directly in `dir`, sorted by name; ConfigError if there are none.
std::vector<std::string> find_case_files(const std::string& dir);

/// The fields to compare for this case given its report (explicit or defaults).
std::vector<RegressField> fields_for(const RegressCase& c, const Json& report);

/// Rewrites the case file with `expected` in place of the old values, keeping every other
/// key and the key order; returns false if the file already said exactly that.
bool write_expected(const RegressCase& c, const Json& expected);

}  // namespace ipusim::cli
