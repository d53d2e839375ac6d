#pragma once
// The sweep file and its expansion into points. A sweep file is
//   {"base": "<config, relative to the sweep file>", "set": ["k=v", ...],
//    "mode": "grid" | "zip", "axes": [{"path": "workload.bytes", "values": [...]}, ...],
//    "columns": {"name": "/json/pointer/in/report", ...}}
// Grid mode takes the cartesian product of the axes (the last axis varies fastest); zip
// mode pairs the i-th values of every axis (all axes must be equally long).
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "sim/json.hpp"

namespace ipusim::cli {

/// One swept parameter: a config path and the values it takes.
struct SweepAxis {
  std::string path;
  std::vector<Json> values;
};

/// A parsed sweep file.
struct SweepSpec {
  std::string file;               ///< the sweep file, as given
  std::string base;               ///< the base config, resolved against the sweep file
  std::vector<std::string> sets;  ///< fixed overrides applied to every point
  std::string mode = "grid";      ///< "grid" or "zip"
  std::vector<SweepAxis> axes;
  std::vector<std::pair<std::string, std::string>> columns;  ///< extra column -> pointer
  std::string
      memory_column;  ///< memory column of the Pareto front and plot ("" = first that varies)
};

/// One point of a sweep: its index, one value per axis, and every override it needs.
struct SweepPoint {
  std::size_t index = 0;
  std::vector<Json> values;
  std::vector<std::string> sets;  ///< the fixed overrides, then one per axis
};

/// Parses a sweep document strictly (unknown keys, types, zip lengths); `file` names it
/// in errors and anchors the relative base path.
SweepSpec parse_sweep(const Json& doc, const std::string& file);

/// Reads and parses a sweep file.
SweepSpec load_sweep(const std::string& path);

/// Most points one sweep may have (each is a process and a folder; 10^12 would exhaust
/// memory while the grid is built).
constexpr std::size_t kMaxSweepPoints = 1000000;

/// Number of points of the sweep; ConfigError naming the axes' sizes above kMaxSweepPoints.
std::size_t count_points(const SweepSpec& spec);

/// Expands the axes into points in a deterministic order (count_points() first).
std::vector<SweepPoint> expand_points(const SweepSpec& spec);

/// The `--set` text for a value: `path=<value as JSON>` (so "4" and 4 stay distinct).
std::string override_for(const std::string& path, const Json& value);

}  // namespace ipusim::cli
