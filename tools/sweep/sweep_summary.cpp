#include "tools/sweep/sweep_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "tools/sweep/sweep_pareto.hpp"
#include "tools/sweep/sweep_results.hpp"
#include "tools/sweep/sweep_table.hpp"

namespace ipusim::cli {

namespace {

struct Unit {
  const char* name;
  double scale;
};

/// `value` in the largest of `units` (largest first) it reaches, 3 significant digits; a
/// value that rounds up to 1000 of a unit moves to the next one ("1 us", not "1e+03 ns").
std::string in_units(double value, const Unit* units, std::size_t count) {
  if (std::isnan(value) || std::isinf(value)) return fixed(value, 0);
  std::size_t u = count - 1;
  for (std::size_t i = 0; i < count; ++i) {
    if (std::fabs(value) >= units[i].scale) {
      u = i;
      break;
    }
  }
  if (u > 0 && std::fabs(value) / units[u].scale >= 999.5) --u;
  char text[64];
  std::snprintf(text, sizeof text, "%.3g %s", value / units[u].scale, units[u].name);
  return text;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// The columns that make two results the same: everything but the point's index, its axis
/// values and its error text.
std::vector<std::string> result_columns(const SweepSpec& spec,
                                        const std::vector<std::string>& columns) {
  std::vector<std::string> out;
  for (const auto& c : columns) {
    const bool axis = std::any_of(spec.axes.begin(), spec.axes.end(),
                                  [&](const SweepAxis& a) { return a.path == c; });
    if (!axis && c != "index" && c != "error") out.push_back(c);
  }
  return out;
}

/// Rows grouped by identical results (successful rows only; a failed row stays alone), in
/// order of their first row.
std::vector<std::vector<std::size_t>> identical_groups(const std::vector<std::string>& compared,
                                                       const std::vector<Json>& rows) {
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    bool placed = false;
    if (rows[i].value("status", "") == "ok") {
      for (auto& g : groups) {
        const Json& first = rows[g.front()];
        if (first.value("status", "") != "ok") continue;
        const bool same = std::all_of(compared.begin(), compared.end(), [&](const std::string& c) {
          return first.value(c, Json()) == rows[i].value(c, Json());
        });
        if (same) {
          g.push_back(i);
          placed = true;
          break;
        }
      }
    }
    if (!placed) groups.push_back({i});
  }
  return groups;
}

/// Marks the rows on the time-memory Pareto front, by row position.
std::vector<bool> pareto_marks(const std::vector<Json>& rows, const std::string& memory_column) {
  std::vector<bool> marks(rows.size(), false);
  if (memory_column.empty()) return marks;
  std::vector<std::pair<double, double>> points;
  for (const auto& r : rows) {
    const bool usable = r.value("status", "") == "ok" && r.contains(memory_column) &&
                        r[memory_column].is_number() && r.contains("time_ns") &&
                        r["time_ns"].is_number();
    points.emplace_back(usable ? r[memory_column].get<double>() : NAN,
                        usable ? r["time_ns"].get<double>() : NAN);
  }
  for (std::size_t i : pareto_front(points)) marks[i] = true;
  return marks;
}

bool any_number(const std::vector<Json>& rows, const std::string& column) {
  return std::any_of(rows.begin(), rows.end(),
                     [&](const Json& r) { return r.contains(column) && r[column].is_number(); });
}

std::string rate_cell(const Json& row, const std::string& column) {
  if (!row.contains(column) || !row[column].is_number()) return "";
  const double v = row[column].get<double>();
  return v >= 100 ? fixed(v, 0) : fixed(v, 1);
}

}  // namespace

std::string human_time_ns(double ns) {
  static const Unit kUnits[] = {{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1}};
  return in_units(ns, kUnits, 4);
}

std::string human_bytes(double bytes) {
  static const Unit kUnits[] = {{"TiB", 1099511627776.0},
                                {"GiB", 1073741824.0},
                                {"MiB", 1048576.0},
                                {"KiB", 1024.0},
                                {"B", 1}};
  return in_units(bytes, kUnits, 5);
}

std::string human_cell(const std::string& column, const Json& value) {
  if (value.is_number()) {
    if (ends_with(column, "bytes")) return human_bytes(value.get<double>());
    if (ends_with(column, "_ns")) return human_time_ns(value.get<double>());
  }
  return cell_text(value);
}

std::string summary_memory_column(const std::vector<std::string>& columns,
                                  const std::vector<Json>& rows) {
  std::string first;
  for (const auto& c : columns) {
    if (c.rfind("memory.", 0) != 0 || c == "memory.fits") continue;
    if (first.empty()) first = c;
    const Json* seen = nullptr;
    for (const auto& r : rows) {
      if (!r.contains(c) || !r[c].is_number()) continue;
      if (seen && *seen != r[c]) return c;
      seen = &r[c];
    }
  }
  return first;
}

std::string sweep_summary_table(const SweepSpec& spec, const std::vector<std::string>& columns,
                                const std::vector<Json>& rows, const std::string& memory_column) {
  const std::vector<bool> marks = pareto_marks(rows, memory_column);
  const bool fits = any_number(rows, "memory.fits");
  const bool samples = any_number(rows, "workload.samples_per_s");
  const bool tokens = any_number(rows, "workload.tokens_per_s");
  std::vector<std::string> headers = {"#"};
  for (const auto& a : spec.axes) headers.push_back(a.path);
  headers.push_back("status");
  if (fits) headers.push_back("fits");
  headers.push_back("time");
  if (samples) headers.push_back("samples/s");
  if (tokens) headers.push_back("tokens/s");
  if (!memory_column.empty()) headers.insert(headers.end(), {memory_column, "pareto"});
  headers.push_back("error");

  const auto groups = identical_groups(result_columns(spec, columns), rows);
  std::vector<std::vector<std::string>> table;
  bool merged = false;
  for (const auto& g : groups) {
    const Json& r = rows[g.front()];
    merged = merged || g.size() > 1;
    std::string index;
    bool on_front = false;
    for (std::size_t i : g) {
      index += (index.empty() ? "" : ", ") + cell_text(rows[i].value("index", Json()));
      on_front = on_front || marks[i];
    }
    std::vector<std::string> line = {index};
    for (const auto& a : spec.axes) {
      std::vector<std::string> values;
      for (std::size_t i : g) {
        const std::string v = human_cell(a.path, rows[i].value(a.path, Json()));
        if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
      }
      std::string cell;
      for (const auto& v : values) cell += (cell.empty() ? "" : " | ") + v;
      line.push_back(cell);
    }
    line.push_back(cell_text(r.value("status", Json())));
    if (fits) {
      const Json f = r.value("memory.fits", Json());
      line.push_back(f.is_number() ? (f.get<double>() != 0 ? "yes" : "no") : "");
    }
    line.push_back(human_cell("time_ns", r.value("time_ns", Json())));
    if (samples) line.push_back(rate_cell(r, "workload.samples_per_s"));
    if (tokens) line.push_back(rate_cell(r, "workload.tokens_per_s"));
    if (!memory_column.empty()) {
      line.push_back(human_cell(memory_column, r.value(memory_column, Json())));
      line.push_back(on_front ? "*" : "");
    }
    line.push_back(cell_text(r.value("error", Json())));
    table.push_back(line);
  }
  std::string out = format_table(headers, table);
  if (merged)
    out +=
        "(points with identical results are printed once: # lists them, a differing axis its "
        "values)\n";
  return out;
}

}  // namespace ipusim::cli
