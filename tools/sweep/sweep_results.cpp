#include "tools/sweep/sweep_results.hpp"

#include <algorithm>

#include "tools/sweep/sweep_input.hpp"

namespace ipusim::cli {

namespace {

const char* const kGroups[] = {"breakdown_ns", "utilisation", "memory"};
/// Throughput figures of training reports (report.json /workload/...), as columns workload.*.
const char* const kRates[] = {"samples_per_s", "tokens_per_s", "sequences_per_s"};

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

void add_unique(std::vector<std::string>& list, const std::string& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

/// True if a swept axis writes the config path `dotted` (either spelling).
bool is_axis(const SweepSpec& spec, const std::string& dotted) {
  std::string slashed = "/" + dotted;
  std::replace(slashed.begin(), slashed.end(), '.', '/');
  return std::any_of(spec.axes.begin(), spec.axes.end(),
                     [&](const SweepAxis& a) { return a.path == dotted || a.path == slashed; });
}

}  // namespace

std::string algorithm_column(const SweepSpec& spec) {
  return is_axis(spec, "workload.algorithm") ? "workload.algorithm_used" : "workload.algorithm";
}

void flatten_numeric(const Json& value, const std::string& prefix, Json& out) {
  if (value.is_number()) {
    out[prefix] = value;
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it)
      flatten_numeric(it.value(), prefix + "." + it.key(), out);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      flatten_numeric(value[i], prefix + "." + std::to_string(i), out);
  }
}

Json make_row(const SweepSpec& spec, const SweepPoint& point, const std::string& status,
              const std::string& error, const Json& report) {
  Json row = Json::object();
  row["index"] = point.index;
  for (std::size_t a = 0; a < spec.axes.size(); ++a) row[spec.axes[a].path] = point.values[a];
  row["status"] = status;
  row["error"] = error;
  const Json* time = report.is_object() ? find_pointer(report, "/simulated/time_ns") : nullptr;
  row["time_ns"] = time ? *time : Json();
  if (report.is_object()) {
    for (const char* group : kGroups) {
      if (report.contains(group)) flatten_numeric(report[group], group, row);
    }
    if (const Json* algorithm = find_pointer(report, "/workload/algorithm"))
      row[algorithm_column(spec)] = *algorithm;
    for (const char* rate : kRates) {
      const Json* v = find_pointer(report, std::string("/workload/") + rate);
      if (v && v->is_number()) row[std::string("workload.") + rate] = *v;
    }
  }
  for (const auto& [name, pointer] : spec.columns) {
    const Json* v = report.is_object() ? find_pointer(report, pointer) : nullptr;
    row[name] = v ? *v : Json();
  }
  return row;
}

std::vector<std::string> collect_columns(const SweepSpec& spec, const std::vector<Json>& rows) {
  std::vector<std::string> columns = {"index"};
  for (const auto& axis : spec.axes) columns.push_back(axis.path);
  for (const char* fixed : {"status", "error", "time_ns"}) columns.push_back(fixed);
  for (const char* group : kGroups) {
    const std::string prefix = std::string(group) + ".";
    for (const auto& row : rows) {
      for (auto it = row.begin(); it != row.end(); ++it) {
        if (starts_with(it.key(), prefix)) add_unique(columns, it.key());
      }
    }
  }
  const std::string algorithm = algorithm_column(spec);
  const bool any_algorithm =
      std::any_of(rows.begin(), rows.end(), [&](const Json& r) { return r.contains(algorithm); });
  if (any_algorithm) add_unique(columns, algorithm);
  for (const char* rate : kRates) {
    const std::string name = std::string("workload.") + rate;
    if (std::any_of(rows.begin(), rows.end(), [&](const Json& r) { return r.contains(name); }))
      add_unique(columns, name);
  }
  for (const auto& column : spec.columns) add_unique(columns, column.first);
  return columns;
}

std::string csv_field(const std::string& text) {
  const bool needs_quotes = text.find_first_of(",\"\r\n") != std::string::npos ||
                            (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!needs_quotes) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string cell_text(const Json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

std::string to_csv(const std::vector<std::string>& columns, const std::vector<Json>& rows) {
  std::string out;
  for (std::size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + csv_field(columns[c]);
  out += "\n";
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const Json cell = row.contains(columns[c]) ? row[columns[c]] : Json();
      out += (c ? "," : "") + csv_field(cell_text(cell));
    }
    out += "\n";
  }
  return out;
}

Json results_document(const SweepSpec& spec, const std::vector<std::string>& columns,
                      const std::vector<Json>& rows) {
  Json axes = Json::array();
  for (const auto& axis : spec.axes) axes.push_back({{"path", axis.path}, {"values", axis.values}});
  Json full_rows = Json::array();
  for (const auto& row : rows) {
    Json r = Json::object();
    for (const auto& c : columns) r[c] = row.contains(c) ? row[c] : Json();
    full_rows.push_back(std::move(r));
  }
  return Json{{"format_version", 1}, {"sweep", spec.file}, {"base", spec.base},
              {"set", spec.sets},    {"mode", spec.mode},  {"axes", axes},
              {"columns", columns},  {"rows", full_rows}};
}

}  // namespace ipusim::cli
