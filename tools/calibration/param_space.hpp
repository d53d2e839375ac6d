#pragma once
// The parameters `ipusim calibrate` may fit: registry paths whose description says
// ASSUMPTION (or that an earlier calibration fitted them), bounded by the registry's
// [min, max]. The optimiser works in a normalised space: u = ln(x / start) when the start
// value is > 0 (so a step of 0.1 is a 10 % change whatever the unit), else x itself.
#include <string>
#include <vector>

namespace ipusim::cli {

/// One parameter to fit.
struct FitParam {
  std::string path;  ///< JSON pointer, e.g. /machine/host_link/efficiency
  std::string unit;
  std::string description;  ///< the registry's description today
  double start = 0.0;       ///< the registry default (the fit starts here)
  double min = 0.0;
  double max = 0.0;
  bool integer = false;  ///< an integer parameter (values are rounded before they run)

  /// True when the optimiser works on ln(x / start).
  bool log_space() const { return start > 0; }
  /// Physical value of a normalised coordinate (clamped to [min, max], rounded if integer).
  double to_value(double u) const;
  /// Normalised coordinate of a physical value.
  double to_unit(double value) const;
  /// Bounds of the normalised coordinate.
  double unit_lower() const;
  double unit_upper() const;
  /// The `--set` text for a physical value ("/a/b=1.25").
  std::string set_text(double value) const;
};

/// Looks the comma-separated names up in the registry (register_all_params() first);
/// throws ConfigError naming a parameter that is unknown, not a number, has no finite range,
/// or is not an ASSUMPTION / fitted parameter.
std::vector<FitParam> resolve_fit_params(const std::string& comma_separated);

/// The parameters listed in an assumptions file (configs/calibration/assumptions.json:
/// {"description", "parameters": {PATH: {"start", "unit", "source"}}}), resolved as
/// resolve_fit_params() does, each starting from its "start" (the value fixed before any
/// fit). ConfigError naming the file and JSON path for unknown keys, a missing source or a
/// unit that differs from the registry's.
std::vector<FitParam> fit_params_from_assumptions(const std::string& file);

/// Splits "a,b,c" (empty items dropped).
std::vector<std::string> split_commas(const std::string& text);

/// A value as the shortest text that reads back to the same double (%.17g at most).
std::string exact_number(double value);

}  // namespace ipusim::cli
