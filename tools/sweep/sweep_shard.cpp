#include "tools/sweep/sweep_shard.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/errors.hpp"
#include "tools/sweep/sweep_input.hpp"
#include "tools/sweep/sweep_jobs.hpp"
#include "tools/sweep/sweep_progress.hpp"
#include "tools/sweep/sweep_results.hpp"
#include "tools/sweep/sweep_runner.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

/// The absolute base config path, as the markers record it (same as a local sweep's).
std::string marker_config(const SweepSpec& spec) {
  return fs::absolute(spec.base).lexically_normal().string();
}

/// A non-negative decimal integer, or false.
bool parse_count(const std::string& text, std::size_t& value) {
  if (text.empty() || text.size() > 12) return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<std::size_t>(c - '0');
  }
  return true;
}

/// done.json of a point folder, or null when absent or unreadable.
Json read_marker(const fs::path& dir) {
  const fs::path done = dir / "done.json";
  if (!fs::is_regular_file(done)) return Json();
  try {
    return read_json_file(done.string());
  } catch (const ConfigError&) {
    return Json();  // a damaged marker: the point did not finish cleanly
  }
}

/// True if `marker` was written for exactly this config and point (whatever its status).
bool marker_for(const Json& marker, const std::string& config, const SweepPoint& point) {
  return marker.is_object() && marker.value("config", "") == config && marker.contains("set") &&
         marker["set"] == Json(point.sets);
}

}  // namespace

Shard parse_shard(const std::string& text, const std::string& flag) {
  const auto slash = text.find('/');
  Shard shard;
  if (slash == std::string::npos || !parse_count(text.substr(0, slash), shard.index) ||
      !parse_count(text.substr(slash + 1), shard.count) || shard.count == 0 ||
      shard.index >= shard.count) {
    throw ConfigError(flag +
                      ": expected i/N with 0 <= i < N (e.g. 0/4 for the first of 4 shards), got '" +
                      text + "'");
  }
  return shard;
}

std::vector<std::size_t> shard_point_indices(std::size_t point_count, const Shard& shard) {
  std::vector<std::size_t> out;
  for (std::size_t i = shard.index; i < point_count; i += shard.count) out.push_back(i);
  return out;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  // The temporary name is unique per host and process: shards on several machines may
  // share the folder (not the same point, but a rerun of a task can overlap an old one).
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  const std::string tmp = path + ".tmp." + host + "." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw ConfigError("cannot write " + tmp);
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw ConfigError("cannot rename " + tmp + " to " + path);
  }
}

ShardRunResult run_shard(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                         const Shard& shard, const std::string& out_dir, unsigned jobs, bool resume,
                         bool progress) {
  const std::string config = marker_config(spec);
  const fs::path points_dir = fs::path(out_dir) / "points";
  ShardRunResult result;
  std::vector<RunJob> run;
  std::vector<std::size_t> run_point;
  for (std::size_t index : shard_point_indices(points.size(), shard)) {
    const SweepPoint& point = points[index];
    const fs::path dir = points_dir / point_dir_name(point.index, points.size());
    if (resume && marker_matches(read_marker(dir), config, point) &&
        fs::is_regular_file(dir / "report.json")) {
      ++result.reused;
      continue;
    }
    std::error_code ec;
    fs::remove(dir / "done.json", ec);
    run.push_back(RunJob{config, point.sets, dir.string()});
    run_point.push_back(index);
  }
  Progress bar(run.size() + result.reused, result.reused, progress);
  run_jobs(run, std::max(1u, jobs), [&](std::size_t j, const RunOutcome& outcome) {
    const SweepPoint& point = points[run_point[j]];
    const Json marker =
        done_marker(config, point, outcome.ok ? "ok" : "failed", outcome.error, outcome.exit_code);
    write_file_atomically((fs::path(run[j].out_dir) / "done.json").string(), marker.dump(2) + "\n");
    ++result.ran;
    if (!outcome.ok) ++result.failures;
    bar.finished(!outcome.ok);
  });
  bar.close();
  return result;
}

CollectResult collect_points(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                             const std::string& out_dir) {
  const std::string config = marker_config(spec);
  const fs::path points_dir = fs::path(out_dir) / "points";
  CollectResult result;
  for (const auto& point : points) {
    const fs::path dir = points_dir / point_dir_name(point.index, points.size());
    const Json marker = read_marker(dir);
    if (!marker_for(marker, config, point)) {
      result.rows.push_back(
          make_row(spec, point, "missing", "not run (no done.json for these inputs)", Json()));
      result.missing.push_back(point.index);
      continue;
    }
    if (marker.value("status", "") == "ok") {
      try {
        result.rows.push_back(
            make_row(spec, point, "ok", "", read_json_file((dir / "report.json").string())));
        continue;
      } catch (const ConfigError& e) {
        result.rows.push_back(make_row(spec, point, "failed", e.what(), Json()));
        result.failed.push_back(point.index);
        continue;
      }
    }
    const std::string error = marker.contains("error") && marker["error"].is_string()
                                  ? marker["error"].get<std::string>()
                                  : std::string("failed");
    result.rows.push_back(make_row(spec, point, "failed", error, Json()));
    result.failed.push_back(point.index);
  }
  return result;
}

std::string index_ranges(const std::vector<std::size_t>& indices) {
  std::string out;
  for (std::size_t i = 0; i < indices.size();) {
    std::size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(indices[i]);
    if (j > i) out += "-" + std::to_string(indices[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace ipusim::cli
