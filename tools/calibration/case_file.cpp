#include "tools/calibration/case_file.hpp"

#include <filesystem>
#include <map>

#include "sim/errors.hpp"
#include "tools/common/subprocess.hpp"
#include "tools/sweep/sweep_input.hpp"
#include "tools/validate/validate_reference.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

std::string to_string(CaseRole role) {
  switch (role) {
    case CaseRole::Calibration:
      return "calibration";
    case CaseRole::Prediction:
      return "prediction";
    case CaseRole::Consistency:
      return "consistency";
  }
  return "consistency";
}

namespace {

CaseRole parse_role(const StrictObject& o) {
  const std::string role = o.string("role");
  if (role == "calibration") return CaseRole::Calibration;
  if (role == "prediction") return CaseRole::Prediction;
  if (role == "consistency") return CaseRole::Consistency;
  o.fail("role",
         "expected \"calibration\", \"prediction\" or \"consistency\", got \"" + role + "\"");
}

/// A case of a legacy reference document ({"cases": [...]}, the former published.json):
/// datasheet and formula echoes, so consistency checks.
CaseSpec from_legacy(const ValidationCase& v, std::size_t index) {
  CaseSpec c;
  c.file = v.file;
  c.where = v.file + ": /cases/" + std::to_string(index);
  c.name = v.name;
  c.role = CaseRole::Consistency;
  c.config = v.config;
  c.sets = v.sets;
  c.report_path = v.metric;
  c.measured_value = v.value;
  c.measured_unit = v.unit;
  c.scale = v.scale;
  c.tolerance_pct = v.tolerance_pct;
  c.source = v.source;
  c.notes = v.quantity + (v.conditions.empty() ? "" : "; " + v.conditions);
  return c;
}

}  // namespace

CaseSpec parse_case_file(const Json& doc, const std::string& file) {
  StrictObject o(doc, file, "");
  o.allow_only({"name", "role", "config", "set", "report_path", "measured", "scale",
                "tolerance_pct", "source", "notes"});
  CaseSpec c;
  c.file = file;
  c.where = file;
  c.name = o.string("name");
  if (c.name.empty()) o.fail("name", "expected a non-empty name");
  c.role = parse_role(o);
  const std::string config = o.string("config");
  c.config = fs::path(config).is_absolute()
                 ? config
                 : (fs::path(file).parent_path() / config).lexically_normal().string();
  c.sets = o.string_list("set");
  c.report_path = o.string("report_path");
  check_json_pointer(c.report_path, file + ": " + o.pointer_of("report_path"));
  if (c.report_path.empty())
    o.fail("report_path",
           "expected a JSON pointer into report.json such as \"/simulated/time_ns\"");
  StrictObject measured(o.required("measured"), file, o.pointer_of("measured"));
  measured.allow_only({"value", "unit"});
  c.measured_value = measured.number("value");
  c.measured_unit = measured.string("unit");
  c.scale = o.number_or("scale", 1.0);
  if (!(c.scale > 0)) o.fail("scale", "expected a number > 0");
  c.tolerance_pct = o.number("tolerance_pct");
  if (c.tolerance_pct < 0) o.fail("tolerance_pct", "expected a value >= 0");
  c.source = o.string("source");
  if (c.source.empty())
    o.fail("source", "expected the document, table and page the value comes from");
  c.notes = o.string_or("notes", "");
  if (c.role != CaseRole::Consistency && !(c.measured_value > 0)) {
    measured.fail("value", "expected a measured value > 0 (" + to_string(c.role) +
                               " cases compare on a log scale)");
  }
  return c;
}

std::vector<CaseSpec> load_case_file(const std::string& path) {
  const Json doc = read_json_file(path);
  std::vector<CaseSpec> out;
  if (doc.is_object() && doc.contains("cases")) {
    const std::vector<ValidationCase> legacy = parse_reference(doc, path);
    for (std::size_t i = 0; i < legacy.size(); ++i) out.push_back(from_legacy(legacy[i], i));
  } else {
    out.push_back(parse_case_file(doc, path));
  }
  for (const auto& c : out) {
    if (!fs::is_regular_file(c.config)) {
      throw ConfigError(c.where + ": /config: config file " + c.config + " does not exist");
    }
  }
  return out;
}

std::vector<CaseSpec> load_cases(const std::vector<std::string>& files_or_dirs) {
  std::vector<CaseSpec> out;
  std::map<std::string, std::string> seen;  // name -> where
  for (const auto& item : files_or_dirs) {
    std::vector<std::string> files;
    if (fs::is_directory(item)) {
      files = reference_files_in(item);
      if (files.empty()) throw ConfigError(item + ": no *.json case files in this folder");
    } else {
      files.push_back(item);
    }
    for (const auto& f : files) {
      for (auto& c : load_case_file(f)) {
        auto [it, fresh] = seen.emplace(c.name, c.where);
        if (!fresh)
          throw ConfigError(c.where + ": /name: the name \"" + c.name + "\" is already used by " +
                            it->second);
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

std::string default_cases_dir() { return locate_source_file("configs/validation/cases"); }

std::vector<CaseSpec> cases_with_role(const std::vector<CaseSpec>& cases, CaseRole role) {
  std::vector<CaseSpec> out;
  for (const auto& c : cases) {
    if (c.role == role) out.push_back(c);
  }
  return out;
}

}  // namespace ipusim::cli
