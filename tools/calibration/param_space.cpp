#include "tools/calibration/param_space.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim/errors.hpp"
#include "sim/params.hpp"
#include "tools/common/cli_util.hpp"
#include "tools/sweep/sweep_input.hpp"

namespace ipusim::cli {

namespace {

/// The smallest positive value the log space reaches, relative to the start: parameters
/// whose minimum is 0 (latencies) can still shrink a millionfold.
constexpr double kLogFloorRatio = 1e-6;
/// The largest factor above the start the log space reaches (ranges such as [0, 1e12]).
constexpr double kLogCeilingRatio = 1e6;

}  // namespace

double FitParam::to_value(double u) const {
  double x = log_space() ? start * std::exp(u) : u;
  x = std::clamp(x, min, max);
  if (integer) x = std::round(x);
  return x;
}

double FitParam::to_unit(double value) const {
  if (!log_space()) return value;
  return std::log(std::max(value, start * kLogFloorRatio) / start);
}

double FitParam::unit_lower() const {
  if (!log_space()) return min;
  return std::log(std::max(min, start * kLogFloorRatio) / start);
}

double FitParam::unit_upper() const {
  if (!log_space()) return max;
  return std::log(std::min(max, start * kLogCeilingRatio) / start);
}

std::string FitParam::set_text(double value) const {
  return path + "=" +
         (integer ? std::to_string(static_cast<long long>(std::llround(value)))
                  : exact_number(value));
}

std::string exact_number(double value) {
  char buf[64];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(begin, end - begin);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
    begin = end + 1;
  }
  return out;
}

std::vector<FitParam> resolve_fit_params(const std::string& comma_separated) {
  register_all_params();
  const std::vector<std::string> names = split_commas(comma_separated);
  if (names.empty())
    throw ConfigError(
        "--params: expected one or more parameter paths such as /ipu_link/latency_ns");
  std::vector<FitParam> out;
  for (std::string name : names) {
    if (name[0] != '/') {
      std::replace(name.begin(), name.end(), '.', '/');
      name = "/" + name;
    }
    for (const auto& p : out) {
      if (p.path == name) throw ConfigError("--params: " + name + " is listed twice");
    }
    const ParamSpec* spec = ParamRegistry::instance().find(name);
    if (!spec) throw ConfigError("--params: " + name + " is not a parameter (see ipusim params)");
    if (spec->type != ParamType::Double && spec->type != ParamType::Int) {
      throw ConfigError("--params: " + name + " is a " + to_string(spec->type) +
                        " parameter; only numbers can be fitted");
    }
    const bool fittable = spec->description.find("ASSUMPTION") != std::string::npos ||
                          spec->description.find("fitted by ipusim calibrate") != std::string::npos;
    if (!fittable) {
      throw ConfigError("--params: " + name +
                        " is not an assumption (its description names a source): only parameters "
                        "whose description "
                        "contains \"ASSUMPTION\" or \"fitted by ipusim calibrate\" may be fitted");
    }
    if (!spec->min || !spec->max || !spec->default_value.is_number()) {
      throw ConfigError("--params: " + name +
                        " has no numeric default and [min, max] range in the registry");
    }
    FitParam p;
    p.path = name;
    p.unit = spec->unit;
    p.description = spec->description;
    p.start = spec->default_value.get<double>();
    p.min = *spec->min;
    p.max = *spec->max;
    p.integer = spec->type == ParamType::Int;
    out.push_back(p);
  }
  return out;
}

std::vector<FitParam> fit_params_from_assumptions(const std::string& file) {
  const Json doc = read_json_file(file);
  StrictObject top(doc, file, "");
  top.allow_only({"description", "parameters"});
  StrictObject listed(top.required("parameters"), file, "/parameters");
  std::string names;
  for (auto it = doc["parameters"].begin(); it != doc["parameters"].end(); ++it)
    names += (names.empty() ? "" : ",") + it.key();
  if (names.empty()) top.fail("parameters", "expected at least one parameter");
  std::vector<FitParam> params = resolve_fit_params(names);
  for (FitParam& p : params) {
    std::string escaped;  // the path as one JSON-pointer token ('/' is "~1")
    for (char ch : p.path) escaped += ch == '/' ? std::string("~1") : std::string(1, ch);
    StrictObject entry(doc["parameters"][p.path], file, "/parameters/" + escaped);
    entry.allow_only({"start", "unit", "source"});
    if (entry.string("source").empty())
      entry.fail("source", "expected where the value comes from or the reasoning behind it");
    const std::string unit = entry.string("unit");
    if (unit != p.unit)
      entry.fail("unit", "expected \"" + p.unit + "\" (the registry's unit), got \"" + unit + "\"");
    const double start = entry.number("start");
    if (!(start >= p.min && start <= p.max)) {
      entry.fail("start", "expected a value in the registry range [" + exact_number(p.min) + ", " +
                              exact_number(p.max) + "]");
    }
    p.start = start;
  }
  return params;
}

}  // namespace ipusim::cli
