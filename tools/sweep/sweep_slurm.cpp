#include "tools/sweep/sweep_slurm.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "sim/errors.hpp"
#include "tools/common/subprocess.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

/// The first executable `name` on $PATH, or "".
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const fs::path candidate = fs::path(dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::size_t effective_array_size(std::size_t requested, std::size_t point_count) {
  const std::size_t k = requested == 0 ? point_count : std::min(requested, point_count);
  return std::max<std::size_t>(1, k);
}

void check_slurm_time(const std::string& text) {
  // sbatch(1): "minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours",
  // "days-hours:minutes" and "days-hours:minutes:seconds"; also UNLIMITED.
  static const std::regex form(
      R"(^(UNLIMITED|\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d+|\d+-\d+:\d{1,2}|\d+-\d+:\d{1,2}:\d{1,2})$)");
  if (!std::regex_match(text, form)) {
    throw ConfigError(
        "--time: expected a Slurm time limit (MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM or "
        "D-HH:MM:SS), got '" +
        text + "'");
  }
}

void check_slurm_partition(const std::string& text) {
  static const std::regex form(R"(^[A-Za-z0-9_.\-]+(,[A-Za-z0-9_.\-]+)*$)");
  if (!std::regex_match(text, form)) {
    throw ConfigError(
        "--partition: expected a partition name (letters, digits, '_', '-', '.'; a comma-separated "
        "list for several), got '" +
        text + "'");
  }
}

std::string shell_quote(const std::string& word) {
  const auto is_control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
  if (std::none_of(word.begin(), word.end(), is_control)) {
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }
  // bash's $'...' keeps a newline (or any control byte) on one line as \xHH, so the word
  // cannot end a comment or an #SBATCH line early and start a command of its own.
  std::string out = "$'";
  for (char c : word) {
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += c;
    } else if (is_control(c)) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
      out += hex;
    } else {
      out += c;
    }
  }
  return out + "'";
}

namespace {

/// True if sbatch reads `path` back unchanged from a double-quoted #SBATCH value: sbatch
/// cuts the line at '#', handles quotes and backslashes itself and expands '%' patterns.
bool sbatch_directive_safe(const std::string& path) {
  return std::none_of(path.begin(), path.end(), [](char c) {
    return c == '#' || c == '"' || c == '\'' || c == '\\' || c == '%' ||
           static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

}  // namespace

std::string slurm_script(const SlurmScriptOptions& o) {
  const std::string logs = (fs::path(o.out_dir) / "slurm").string();
  const bool directive_logs = sbatch_directive_safe(logs);
  // sbatch splits an #SBATCH line at blanks outside double quotes.
  const std::string quote = logs.find_first_of(" \t") != std::string::npos ? "\"" : "";
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Written by `ipusim sweep --slurm`. Task t of the array runs shard t/" << o.array_size
    << " of the sweep's points\n"
    << "# into the shared output folder; a point is finished when its points/NNNN/done.json "
       "exists.\n"
    << "# Resubmitting this script reruns only unfinished points (--resume); then merge with\n"
    << "#   " << shell_quote(o.exe) << " sweep " << shell_quote(o.sweep_file) << " --out "
    << shell_quote(o.out_dir) << " --collect\n"
    << "#SBATCH --job-name=" << o.job_name << "\n"
    << "#SBATCH --array=0-" << (o.array_size - 1) << "\n"
    << "#SBATCH --ntasks=1\n"
    << "#SBATCH --cpus-per-task=" << o.jobs_per_task << "\n";
  if (directive_logs) {
    // %A = array job id, %a = task id: one log pair per task.
    s << "#SBATCH --output=" << quote << logs << "/%A_%a.out" << quote << "\n"
      << "#SBATCH --error=" << quote << logs << "/%A_%a.err" << quote << "\n";
  }
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  if (!o.time_limit.empty()) s << "#SBATCH --time=" << o.time_limit << "\n";
  s << "set -euo pipefail\n";
  if (!directive_logs) {
    // The folder cannot be written into an #SBATCH line: the task sends its own streams
    // to the same per-task log files instead.
    const std::string task_log = "\"${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}";
    s << "exec >>" << shell_quote(logs) << "/" << task_log << ".out\" 2>>" << shell_quote(logs)
      << "/" << task_log << ".err\"\n";
  }
  s << "exec " << shell_quote(o.exe) << " sweep " << shell_quote(o.sweep_file) << " --out "
    << shell_quote(o.out_dir) << " --shard \"${SLURM_ARRAY_TASK_ID}/" << o.array_size
    << "\" --jobs " << o.jobs_per_task << " --resume --quiet\n";
  return s.str();
}

std::string submit_slurm_script(const std::string& script_path, const std::string& log_dir) {
  const std::string sbatch = find_on_path("sbatch");
  if (sbatch.empty()) {
    throw ConfigError(
        "--slurm: sbatch is not on PATH (install Slurm's client, or write the script with "
        "--slurm-script-only and submit it elsewhere): " +
        script_path);
  }
  const std::string out = (fs::path(log_dir) / "sbatch.out").string();
  const std::string err = (fs::path(log_dir) / "sbatch.err").string();
  const ProcessResult r = run_process({{sbatch, "--parsable", script_path}, out, err});
  if (!r.ok()) {
    const std::string why = last_line_of(err);
    throw ConfigError("--slurm: sbatch refused " + script_path +
                      (why.empty() ? std::string() : ": " + why));
  }
  // --parsable prints "jobid" or "jobid;cluster".
  std::string id = read_all(out);
  id = id.substr(0, id.find_first_of(";\n"));
  return id;
}

}  // namespace ipusim::cli
