#include "tools/calibration/fit_output.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "sim/errors.hpp"
#include "tools/calibration/param_space.hpp"
#include "tools/sweep/sweep_input.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

/// A JSON number that keeps integers integral (so integer parameters read back as ints).
Json number_json(double value, bool integer) {
  if (integer) return Json(static_cast<long long>(value));
  return Json(value);
}

std::string trim_right(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == ';' || s.back() == ',')) s.pop_back();
  return s;
}

}  // namespace

Json fitted_config(const FitResult& result) {
  Json doc = Json::object();
  for (const auto& p : result.params) {
    if (!p.determined) continue;
    doc[Json::json_pointer(p.param.path)] = number_json(p.value, p.param.integer);
  }
  return doc;
}

std::string fitted_description(const std::string& old_description,
                               const std::vector<std::string>& case_names, const std::string& date,
                               double value, const std::string& unit) {
  // Cut at the first remark that the value is assumed or was fitted, and at an opening
  // parenthesis or "to be" just before it ("ASSUMPTION (to be fitted by ...)").
  std::size_t cut = std::min(old_description.find("fitted by ipusim calibrate"),
                             old_description.find("ASSUMPTION"));
  if (cut != std::string::npos) {
    const std::string before = trim_right(old_description.substr(0, cut));
    for (const char* tail : {"(to be", "to be", "("}) {
      const std::string t(tail);
      if (before.size() >= t.size() && before.compare(before.size() - t.size(), t.size(), t) == 0) {
        cut = before.size() - t.size();
        break;
      }
    }
  }
  std::string head = trim_right(
      old_description.substr(0, cut == std::string::npos ? old_description.size() : cut));
  if (!head.empty()) head += " ";
  char value_text[32];
  std::snprintf(value_text, sizeof value_text, "%.6g", value);
  return head + "fitted by ipusim calibrate on " + join(case_names, ", ") + " (" + date +
         "): " + value_text + (unit.empty() ? "" : " " + unit) + ".";
}

Json fitted_meta(const FitResult& result, const std::string& date) {
  Json cases = Json::array();
  for (const auto& c : result.cases) {
    Json row = {{"name", c.spec.name},
                {"file", c.spec.file},
                {"measured", c.spec.measured_value},
                {"unit", c.spec.measured_unit}};
    row["simulated_start"] = c.before.ok ? Json(c.before.simulated) : Json();
    row["simulated_fitted"] = c.after.ok ? Json(c.after.simulated) : Json();
    cases.push_back(row);
  }
  Json params = Json::object();
  for (const auto& p : result.params) {
    Json row = {{"value", number_json(p.value, p.param.integer)},
                {"unit", p.param.unit},
                {"start", number_json(p.param.start, p.param.integer)},
                {"min", p.param.min},
                {"max", p.param.max},
                {"status", p.determined ? "fitted" : "undetermined"},
                {"sensitivity_start", p.sensitivity_start},
                {"rms_error_rise_fitted", p.rms_error_rise_fitted},
                {"cases", p.determined_by},
                {"setups", p.setups},
                {"date", date},
                {"previous_description", p.param.description}};
    // Relative change of each case per relative change of the parameter (at the start).
    Json per_case = Json::object();
    for (std::size_t i = 0; i < p.case_sensitivity.size() && i < result.cases.size(); ++i)
      per_case[result.cases[i].spec.name] = p.case_sensitivity[i];
    row["case_sensitivity"] = per_case;
    if (p.determined)
      row["description"] =
          fitted_description(p.param.description, p.determined_by, date, p.value, p.param.unit);
    params[p.param.path] = row;
  }
  return {{"generated_by", "ipusim calibrate"},
          {"date", date},
          {"algorithm", result.algorithm},
          {"stop_reason", result.stop_reason},
          {"evaluations", result.evaluations},
          {"objective_start", result.objective_start},
          {"objective_fitted", result.objective_fitted},
          {"cases", cases},
          {"parameters", params}};
}

std::string meta_path_for(const std::string& fitted_path) {
  fs::path p(fitted_path);
  return (p.parent_path() / (p.stem().string() + ".meta.json")).string();
}

std::string descriptions_text(const Json& meta, const std::string& file) {
  if (!meta.is_object() || !meta.contains("parameters") || !meta["parameters"].is_object()) {
    throw ConfigError(
        file +
        ": /parameters: expected the side-car of ipusim calibrate (*.meta.json) with a "
        "\"parameters\" object");
  }
  std::string out;
  for (auto it = meta["parameters"].begin(); it != meta["parameters"].end(); ++it) {
    const Json& row = it.value();
    if (!row.is_object() || row.value("status", "") != "fitted" || !row.contains("description"))
      continue;
    out += it.key() + "\n  " + Json(row["description"]).dump() + "\n";
  }
  return out;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &local);
  return buf;
}

}  // namespace ipusim::cli
