#include "tools/sweep/sweep_jobs.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "sim/errors.hpp"
#include "tools/sweep/sweep_input.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

std::vector<std::string> run_argv(const std::string& exe, const RunJob& job) {
  std::vector<std::string> argv = {exe, "run", job.config};
  for (const auto& s : job.sets) {
    argv.push_back("--set");
    argv.push_back(s);
  }
  argv.insert(argv.end(), {"--out", job.out_dir, "--quiet"});
  return argv;
}

RunOutcome read_outcome(const RunJob& job, const ProcessResult& result) {
  RunOutcome out;
  out.exit_code = result.exit_code;
  const fs::path dir(job.out_dir);
  if (!result.ok()) {
    out.error = last_line_of((dir / "stderr.txt").string());
    if (out.error.empty()) {
      out.error = result.signal ? "ipusim run was killed by signal " + std::to_string(result.signal)
                                : "ipusim run exited with code " + std::to_string(result.exit_code);
    }
    return out;
  }
  const fs::path report = dir / "report.json";
  if (!fs::is_regular_file(report)) {
    out.error = "ipusim run exited 0 but wrote no " + report.string();
    return out;
  }
  try {
    out.report = read_json_file(report.string());
  } catch (const ConfigError& e) {
    out.error = e.what();
    return out;
  }
  out.ok = true;
  return out;
}

void run_jobs(const std::vector<RunJob>& jobs, unsigned workers,
              const std::function<void(std::size_t, const RunOutcome&)>& on_done) {
  const std::string exe = self_executable();
  using Clock = std::chrono::steady_clock;
  std::map<std::size_t, Clock::time_point> started;
  run_processes(
      jobs.size(), workers,
      [&](std::size_t i) {
        const fs::path dir(jobs[i].out_dir);
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec) throw ConfigError("cannot create folder " + dir.string() + ": " + ec.message());
        // A stale report from an earlier run must never pass for this run's result.
        fs::remove(dir / "report.json", ec);
        started[i] = Clock::now();
        return ProcessSpec{run_argv(exe, jobs[i]), (dir / "stdout.txt").string(),
                           (dir / "stderr.txt").string()};
      },
      [&](std::size_t i, const ProcessResult& result) {
        RunOutcome outcome = read_outcome(jobs[i], result);
        outcome.wall_s = std::chrono::duration<double>(Clock::now() - started[i]).count();
        on_done(i, outcome);
      });
}

TempDir::TempDir(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "XXXXXX")).string();
  if (!::mkdtemp(pattern.data())) throw ConfigError("cannot create a temporary folder " + pattern);
  path_ = pattern;
}

TempDir::~TempDir() {
  if (keep_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string safe_name(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    out += keep ? c : '_';
  }
  return out.empty() ? "_" : out;
}

}  // namespace ipusim::cli
