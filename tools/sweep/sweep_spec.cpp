#include "tools/sweep/sweep_spec.hpp"

#include <filesystem>

#include "sim/errors.hpp"
#include "tools/sweep/sweep_input.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

SweepAxis parse_axis(const Json& value, const std::string& file, const std::string& pointer) {
  StrictObject axis(value, file, pointer);
  axis.allow_only({"path", "values"});
  SweepAxis out;
  out.path = axis.string("path");
  if (out.path.empty())
    axis.fail("path", "expected a non-empty config path such as \"workload.bytes\"");
  const Json& values = axis.required("values");
  if (!values.is_array() || values.empty()) {
    axis.fail("values", "expected a non-empty list of values, got " + describe_json(values));
  }
  for (const auto& v : values) out.values.push_back(v);
  return out;
}

}  // namespace

SweepSpec parse_sweep(const Json& doc, const std::string& file) {
  StrictObject top(doc, file, "");
  top.allow_only({"base", "set", "mode", "axes", "columns", "description", "memory_column"});
  SweepSpec spec;
  spec.file = file;
  top.string_or("description", "");
  const std::string base = top.string("base");
  spec.base = (fs::path(file).parent_path() / base).lexically_normal().string();
  spec.sets = top.string_list("set");
  spec.memory_column = top.string_or("memory_column", "");
  spec.mode = top.string_or("mode", "grid");
  if (spec.mode != "grid" && spec.mode != "zip") {
    top.fail("mode", "expected \"grid\" or \"zip\", got \"" + spec.mode + "\"");
  }
  const Json& axes = top.required("axes");
  if (!axes.is_array())
    top.fail("axes", "expected a list of {\"path\", \"values\"}, got " + describe_json(axes));
  for (std::size_t i = 0; i < axes.size(); ++i) {
    spec.axes.push_back(parse_axis(axes[i], file, "/axes/" + std::to_string(i)));
  }
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (spec.axes[i].path == spec.axes[j].path) {
        top.fail("axes/" + std::to_string(i) + "/path", "the path \"" + spec.axes[i].path +
                                                            "\" is already swept by /axes/" +
                                                            std::to_string(j));
      }
    }
  }
  if (spec.mode == "zip") {
    for (std::size_t i = 1; i < spec.axes.size(); ++i) {
      if (spec.axes[i].values.size() != spec.axes[0].values.size()) {
        top.fail("axes/" + std::to_string(i) + "/values",
                 "zip mode needs axes of equal length: /axes/0 has " +
                     std::to_string(spec.axes[0].values.size()) + " values, /axes/" +
                     std::to_string(i) + " has " + std::to_string(spec.axes[i].values.size()));
      }
    }
  }
  if (top.has("columns")) {
    StrictObject columns(top.required("columns"), file, "/columns");
    for (auto it = columns.json().begin(); it != columns.json().end(); ++it) {
      if (!it.value().is_string()) {
        columns.fail(it.key(),
                     "expected a JSON pointer into report.json, got " + describe_json(it.value()));
      }
      const std::string pointer = it.value().get<std::string>();
      check_json_pointer(pointer, file + ": " + columns.pointer_of(it.key()));
      spec.columns.emplace_back(it.key(), pointer);
    }
  }
  return spec;
}

SweepSpec load_sweep(const std::string& path) {
  SweepSpec spec = parse_sweep(read_json_file(path), path);
  if (!fs::is_regular_file(spec.base)) {
    throw ConfigError(path + ": /base: config file " + spec.base + " does not exist");
  }
  return spec;
}

std::size_t count_points(const SweepSpec& spec) {
  if (spec.mode == "zip") return spec.axes.empty() ? 1 : spec.axes[0].values.size();
  std::size_t count = 1;
  std::string shape;
  for (const auto& axis : spec.axes) {
    shape += (shape.empty() ? "" : " x ") + std::to_string(axis.values.size());
    // Checked before multiplying: a grid of 10^12 points must neither overflow nor be built.
    if (axis.values.size() > 0 && count > kMaxSweepPoints / axis.values.size())
      count = kMaxSweepPoints + 1;
    else
      count *= axis.values.size();
  }
  if (count > kMaxSweepPoints) {
    throw ConfigError(spec.file + ": /axes: the grid has " + shape +
                      " points, more than the limit of " + std::to_string(kMaxSweepPoints) +
                      " points per sweep (split it, or use \"mode\": \"zip\")");
  }
  return count;
}

std::vector<SweepPoint> expand_points(const SweepSpec& spec) {
  std::vector<SweepPoint> points;
  const std::size_t count = count_points(spec);
  for (std::size_t index = 0; index < count; ++index) {
    SweepPoint p;
    p.index = index;
    p.sets = spec.sets;
    // Grid: mixed-radix digits of the index, last axis least significant.
    std::size_t rest = index;
    std::vector<std::size_t> pick(spec.axes.size(), index);
    if (spec.mode == "grid") {
      for (std::size_t a = spec.axes.size(); a-- > 0;) {
        pick[a] = rest % spec.axes[a].values.size();
        rest /= spec.axes[a].values.size();
      }
    }
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      const Json& v = spec.axes[a].values[pick[a]];
      p.values.push_back(v);
      p.sets.push_back(override_for(spec.axes[a].path, v));
    }
    points.push_back(std::move(p));
  }
  return points;
}

std::string override_for(const std::string& path, const Json& value) {
  return path + "=" + value.dump();
}

}  // namespace ipusim::cli
