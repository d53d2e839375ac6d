#include "tools/regress/regress_case.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "sim/config.hpp"
#include "sim/errors.hpp"
#include "tools/sweep/sweep_input.hpp"
#include "tools/sweep/sweep_jobs.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

const RegressField kTimeField{"time_ns", "/simulated/time_ns"};
const RegressField kAlgorithmField{"algorithm", "/workload/algorithm"};

}  // namespace

RegressCase parse_case(const Json& doc, const std::string& file) {
  StrictObject top(doc, file, "");
  top.allow_only(
      {"config", "set", "fields", "expected", "description", "system", "max_slowdown_pct"});
  top.string_or("description", "");
  RegressCase c;
  c.file = file;
  c.name = fs::path(file).stem().string();
  c.config = (fs::path(file).parent_path() / top.string("config")).lexically_normal().string();
  c.sets = top.string_list("set");
  if (top.has("system")) {
    const std::string system = top.string("system");
    // A bare name is a preset (configs/systems/NAME.json); a path is relative to the case file.
    const bool bare = system.find('/') == std::string::npos && fs::path(system).extension().empty();
    const std::string path =
        bare ? system : (fs::path(file).parent_path() / system).lexically_normal().string();
    c.system = path;  // a preset name is resolved by the command (resolve_system_config)
  }
  if (top.has("max_slowdown_pct")) {
    const Json& v = top.required("max_slowdown_pct");
    if (!v.is_number() || !(v.get<double>() >= 0) || !std::isfinite(v.get<double>())) {
      top.fail("max_slowdown_pct",
               "expected a finite number of percent >= 0, got " + describe_json(v));
    }
    c.max_slowdown_pct = v.get<double>();
  }
  if (top.has("fields")) {
    StrictObject fields(top.required("fields"), file, "/fields");
    for (auto it = fields.json().begin(); it != fields.json().end(); ++it) {
      if (!it.value().is_string())
        fields.fail(it.key(),
                    "expected a JSON pointer into report.json, got " + describe_json(it.value()));
      const std::string pointer = it.value().get<std::string>();
      check_json_pointer(pointer, file + ": " + fields.pointer_of(it.key()));
      c.fields.push_back({it.key(), pointer});
    }
    if (c.fields.empty()) top.fail("fields", "expected at least one field");
  }
  if (top.has("expected")) {
    StrictObject expected(top.required("expected"), file, "/expected");
    c.expected = expected.json();
    // Every expected value must belong to a field, or it would silently never be checked.
    for (auto it = c.expected.begin(); it != c.expected.end(); ++it) {
      std::vector<std::string> names;
      for (const auto& f :
           c.fields.empty() ? std::vector<RegressField>{kTimeField, kAlgorithmField} : c.fields)
        names.push_back(f.name);
      if (std::find(names.begin(), names.end(), it.key()) == names.end()) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        expected.fail(it.key(), "no field named '" + it.key() + "' (fields: " + list + ")");
      }
      // A value that can never equal a report value would make the case fail for ever (or,
      // with a tolerance, be compared as text): the timing must be a number, the algorithm a name.
      const Json& v = it.value();
      if (it.key() == kTimeField.name && !v.is_number()) {
        expected.fail(it.key(), "expected a number of nanoseconds, got " + describe_json(v));
      } else if (it.key() == kAlgorithmField.name && !v.is_string()) {
        expected.fail(it.key(), "expected an algorithm name (a string), got " + describe_json(v));
      } else if (!v.is_number() && !v.is_string() && !v.is_boolean()) {
        expected.fail(it.key(), "expected a number, string or boolean (a report value), got " +
                                    describe_json(v));
      }
    }
  }
  return c;
}

RegressCase load_case(const std::string& path) {
  RegressCase c = parse_case(read_json_file(path), path);
  if (!fs::is_regular_file(c.config))
    throw ConfigError(path + ": /config: config file " + c.config + " does not exist");
  return c;
}

std::vector<std::string> find_case_files(const std::string& dir) {
  if (!fs::is_directory(dir)) throw ConfigError(dir + ": not a folder of regression cases");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw ConfigError(dir + ": no *.json regression cases");
  return files;
}

bool is_time_field(const std::string& name) {
  return name.size() >= 3 && name.compare(name.size() - 3, 3, "_ns") == 0;
}

std::string case_config_path(const RegressCase& c, const std::string& work_dir) {
  if (c.system.empty()) return c.config;
  const Json system = ConfigDoc::load_file(c.system).root();
  const Json config = ConfigDoc::load_file(c.config).root();
  Json wrapper = Json::object();
  wrapper["$include"] = Json::array({fs::absolute(c.system).lexically_normal().string()});
  for (auto it = config.begin(); it != config.end(); ++it) {
    if (it.key() != "$include" && !system.contains(it.key())) wrapper[it.key()] = it.value();
  }
  const std::string path = (fs::path(work_dir) / (safe_name(c.name) + ".config.json")).string();
  write_json_pretty(path, wrapper);
  return path;
}

std::vector<RegressField> fields_for(const RegressCase& c, const Json& report) {
  if (!c.fields.empty()) return c.fields;
  std::vector<RegressField> fields = {kTimeField};
  if (find_pointer(report, kAlgorithmField.pointer) || c.expected.contains(kAlgorithmField.name)) {
    fields.push_back(kAlgorithmField);
  }
  return fields;
}

bool write_expected(const RegressCase& c, const Json& expected) {
  Json doc = read_json_file(c.file);
  if (doc.contains("expected") && doc["expected"] == expected) return false;
  doc["expected"] = expected;  // ordered_json keeps the key where it was
  write_json_pretty(c.file, doc);
  return true;
}

}  // namespace ipusim::cli
