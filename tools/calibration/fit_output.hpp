#pragma once
// What `ipusim calibrate` writes: the parameter file (the fitted values as nested config
// keys, so that a config can `"$include"` it after its system preset) and its side-car
// `<name>.meta.json` (per parameter: value, unit, start, range, status, sensitivity, the
// cases it was fitted on, the date and the registry description to paste), and the
// description text that `ipusim params` should show for a fitted parameter.
#include <string>
#include <vector>

#include "sim/json.hpp"
#include "tools/calibration/fit.hpp"

namespace ipusim::cli {

/// The config fragment with the fitted values of the determined parameters
/// ({"machine": {"host_link": {"efficiency": 0.9}}}).
Json fitted_config(const FitResult& result);

/// The side-car document (see the file comment); `date` as YYYY-MM-DD.
Json fitted_meta(const FitResult& result, const std::string& date);

/// The side-car path of a parameter file: x/fitted.json -> x/fitted.meta.json.
std::string meta_path_for(const std::string& fitted_path);

/// The registry description of a fitted parameter: the old description up to its
/// "ASSUMPTION" (or earlier "fitted by ipusim calibrate") remark, then
/// "fitted by ipusim calibrate on <cases> (<date>): <value> <unit>."
std::string fitted_description(const std::string& old_description,
                               const std::vector<std::string>& case_names, const std::string& date,
                               double value, const std::string& unit);

/// Lines "path\n  \"description\"" for every fitted parameter of a side-car document (the
/// text to paste into the registry); ConfigError if `meta` is not a side-car.
std::string descriptions_text(const Json& meta, const std::string& file);

/// Today's local date, YYYY-MM-DD.
std::string today();

}  // namespace ipusim::cli
