#pragma once
// Runs a sweep's points, each in its own folder DIR/points/NNNN/, several at once, with
// a done.json marker per point so that --resume can skip what already completed.
#include <cstddef>
#include <string>
#include <vector>

#include "sim/json.hpp"
#include "tools/sweep/sweep_spec.hpp"

namespace ipusim::cli {

/// How to run a sweep.
struct SweepRunOptions {
  std::string out_dir;   ///< DIR; points go to DIR/points/NNNN
  unsigned jobs = 1;     ///< child processes at once
  bool resume = false;   ///< reuse points whose done.json says ok with the same inputs
  bool progress = true;  ///< draw the progress line on stderr
  /// Points of the whole sweep when `points` is only a part of it (plan runs its sweep in
  /// waves): rows and folder names follow it (0 = points.size()).
  std::size_t point_count = 0;
};

/// What a sweep produced: one row per point in point order, and counters.
struct SweepRunResult {
  std::vector<Json> rows;
  std::size_t failures = 0;
  std::size_t reused = 0;
  std::size_t ran = 0;
  /// SIGINT/SIGTERM stopped the sweep (0 if not): the points that had not finished have
  /// rows with status "pending" and no done.json, so --resume runs exactly those.
  int interrupted_signal = 0;
  std::size_t pending = 0;
};

/// Runs (or reuses) every point and builds its result row. A SIGINT/SIGTERM stops the
/// running children and returns what finished (see SweepRunResult::interrupted_signal).
SweepRunResult run_sweep(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                         const SweepRunOptions& options);

/// The folder name of point `index` among `count` points: at least 4 digits ("0007").
std::string point_dir_name(std::size_t index, std::size_t count);

/// The done.json marker written after a point ran.
Json done_marker(const std::string& config, const SweepPoint& point, const std::string& status,
                 const std::string& error, int exit_code);

/// True if `marker` records a successful run of exactly this config and point.
bool marker_matches(const Json& marker, const std::string& config, const SweepPoint& point);

}  // namespace ipusim::cli
