#include "tools/sweep/sweep_runner.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "sim/errors.hpp"
#include "tools/sweep/sweep_input.hpp"
#include "tools/sweep/sweep_jobs.hpp"
#include "tools/sweep/sweep_progress.hpp"
#include "tools/sweep/sweep_results.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

/// The report of a point completed by an earlier invocation, if it can be reused.
std::optional<Json> reusable_report(const fs::path& dir, const std::string& config,
                                    const SweepPoint& point) {
  const fs::path done = dir / "done.json";
  const fs::path report = dir / "report.json";
  if (!fs::is_regular_file(done) || !fs::is_regular_file(report)) return std::nullopt;
  try {
    if (!marker_matches(read_json_file(done.string()), config, point)) return std::nullopt;
    return read_json_file(report.string());
  } catch (const ConfigError&) {
    return std::nullopt;  // a damaged marker or report: run the point again
  }
}

}  // namespace

std::string point_dir_name(std::size_t index, std::size_t count) {
  const std::size_t digits =
      std::max<std::size_t>(4, std::to_string(count > 0 ? count - 1 : 0).size());
  std::string s = std::to_string(index);
  return std::string(digits - std::min(digits, s.size()), '0') + s;
}

Json done_marker(const std::string& config, const SweepPoint& point, const std::string& status,
                 const std::string& error, int exit_code) {
  return Json{{"index", point.index}, {"config", config}, {"set", point.sets},
              {"status", status},     {"error", error},   {"exit_code", exit_code}};
}

bool marker_matches(const Json& marker, const std::string& config, const SweepPoint& point) {
  return marker.is_object() && marker.value("status", "") == "ok" &&
         marker.value("config", "") == config && marker.contains("set") &&
         marker["set"] == Json(point.sets);
}

SweepRunResult run_sweep(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                         const SweepRunOptions& options) {
  const std::string config = fs::absolute(spec.base).lexically_normal().string();
  const fs::path points_dir = fs::path(options.out_dir) / "points";
  SweepRunResult result;
  const std::size_t count = options.point_count ? options.point_count : points.size();
  result.rows.resize(count);

  std::vector<RunJob> jobs;
  std::vector<std::size_t> job_point;  // job index -> position in `points`
  for (std::size_t p = 0; p < points.size(); ++p) {
    const SweepPoint& point = points[p];
    const fs::path dir = points_dir / point_dir_name(point.index, count);
    if (options.resume) {
      if (auto report = reusable_report(dir, config, point)) {
        result.rows[point.index] = make_row(spec, point, "ok", "", *report);
        ++result.reused;
        continue;
      }
    }
    std::error_code ec;
    fs::remove(dir / "done.json", ec);
    jobs.push_back(RunJob{config, point.sets, dir.string()});
    job_point.push_back(p);
  }

  Progress progress(points.size(), result.reused, options.progress);
  std::vector<bool> finished(count, false);
  for (const auto& point : points) finished[point.index] = !result.rows[point.index].is_null();
  try {
    run_jobs(jobs, options.jobs, [&](std::size_t j, const RunOutcome& outcome) {
      const SweepPoint& point = points[job_point[j]];
      const std::string status = outcome.ok ? "ok" : "failed";
      write_json_pretty((fs::path(jobs[j].out_dir) / "done.json").string(),
                        done_marker(config, point, status, outcome.error, outcome.exit_code));
      result.rows[point.index] = make_row(spec, point, status, outcome.error, outcome.report);
      finished[point.index] = true;
      ++result.ran;
      if (!outcome.ok) ++result.failures;
      progress.finished(!outcome.ok);
    });
  } catch (const Interrupted& stop) {
    // Keep what finished; the rest is pending (no done.json, so --resume runs it).
    result.interrupted_signal = stop.signal_number();
    for (const auto& point : points) {
      if (finished[point.index]) continue;
      result.rows[point.index] = make_row(spec, point, "pending", stop.what(), Json());
      ++result.pending;
    }
  }
  progress.close();
  return result;
}

}  // namespace ipusim::cli
