#include "tools/validate/validate_reference.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "sim/errors.hpp"
#include "tools/sweep/sweep_input.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

ValidationCase parse_case(const Json& value, const std::string& file, const std::string& pointer) {
  StrictObject o(value, file, pointer);
  o.allow_only({"name", "quantity", "conditions", "value", "unit", "source", "config", "set",
                "metric", "scale", "tolerance_pct", "notes"});
  ValidationCase c;
  c.file = file;
  c.name = o.string("name");
  c.quantity = o.string("quantity");
  c.conditions = o.string_or("conditions", "");
  c.value = o.number("value");
  c.unit = o.string("unit");
  c.source = o.string("source");
  c.config = (fs::path(file).parent_path() / o.string("config")).lexically_normal().string();
  c.sets = o.string_list("set");
  c.metric = o.string("metric");
  check_json_pointer(c.metric, file + ": " + o.pointer_of("metric"));
  c.scale = o.number_or("scale", 1.0);
  c.tolerance_pct = o.number("tolerance_pct");
  if (c.tolerance_pct < 0) o.fail("tolerance_pct", "expected a value >= 0");
  o.string_or("notes", "");
  return c;
}

}  // namespace

std::vector<ValidationCase> parse_reference(const Json& doc, const std::string& file) {
  StrictObject top(doc, file, "");
  top.allow_only({"description", "cases"});
  top.string_or("description", "");
  const Json& cases = top.required("cases");
  if (!cases.is_array()) top.fail("cases", "expected a list of cases, got " + describe_json(cases));
  std::vector<ValidationCase> out;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    ValidationCase c = parse_case(cases[i], file, "/cases/" + std::to_string(i));
    for (std::size_t j = 0; j < out.size(); ++j) {
      if (out[j].name == c.name) {
        top.fail("cases/" + std::to_string(i) + "/name",
                 "the name \"" + c.name + "\" is already used by /cases/" + std::to_string(j));
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<ValidationCase> load_reference(const std::string& path) {
  std::vector<ValidationCase> cases = parse_reference(read_json_file(path), path);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!fs::is_regular_file(cases[i].config)) {
      throw ConfigError(path + ": /cases/" + std::to_string(i) + "/config: config file " +
                        cases[i].config + " does not exist");
    }
  }
  return cases;
}

std::vector<std::string> reference_files_in(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

double relative_error(double simulated, double measured) {
  if (simulated == measured) return 0.0;
  if (measured == 0.0) {
    return simulated > 0 ? std::numeric_limits<double>::infinity()
                         : -std::numeric_limits<double>::infinity();
  }
  return (simulated - measured) / std::fabs(measured);
}

double geometric_mean_error(const std::vector<double>& errors) {
  if (errors.empty()) return 0.0;
  double sum = 0.0;
  for (double e : errors) sum += std::log1p(std::fabs(e));
  return std::expm1(sum / static_cast<double>(errors.size()));
}

}  // namespace ipusim::cli
