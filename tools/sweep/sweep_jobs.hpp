#pragma once
// Runs `ipusim run CONFIG [--set k=v]... --out DIR --quiet` as child processes of this
// executable (SystemC allows one simulation per process) and reads back what each wrote:
// the report, or the error message (the last line of its stderr). Sweep, regress and
// validate all run their simulations through here.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "sim/json.hpp"
#include "tools/common/subprocess.hpp"

namespace ipusim::cli {

/// One simulation to run: a config, its overrides, and the folder for its outputs
/// (report.json, resolved_config.json, stdout.txt, stderr.txt).
struct RunJob {
  std::string config;
  std::vector<std::string> sets;
  std::string out_dir;
};

/// What one simulation produced.
struct RunOutcome {
  bool ok = false;
  int exit_code = -1;  ///< -1 when killed by a signal
  std::string error;   ///< why it failed ("" when ok)
  Json report;         ///< report.json (null unless ok)
  double wall_s = 0;   ///< wall time of the child
};

/// The argument vector of `ipusim run` for a job.
std::vector<std::string> run_argv(const std::string& exe, const RunJob& job);

/// Interprets a finished child: exit code, stderr's last line, report.json.
RunOutcome read_outcome(const RunJob& job, const ProcessResult& result);

/// Runs every job with at most `workers` at once; `on_done(i, outcome)` runs as each ends.
void run_jobs(const std::vector<RunJob>& jobs, unsigned workers,
              const std::function<void(std::size_t, const RunOutcome&)>& on_done);

/// A fresh folder under the system temp dir, removed on destruction unless kept.
class TempDir {
 public:
  /// Creates `<tmp>/<prefix>XXXXXX`.
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  /// Leaves the folder in place (for inspection).
  void keep() { keep_ = true; }

 private:
  std::string path_;
  bool keep_ = false;
};

/// Makes a file-system-safe folder name from a case name (letters, digits, '-', '_', '.').
std::string safe_name(const std::string& name);

}  // namespace ipusim::cli
