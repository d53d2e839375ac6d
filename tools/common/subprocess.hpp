#pragma once
// Child processes without a shell: fork/execv with stdout/stderr redirected to files, a
// pool that keeps at most N children running, and where to find this executable and the
// source tree. SystemC allows one simulation per process, so every simulation that a
// sweep, regress or validate run needs is a child `ipusim run`.
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ipusim::cli {

/// A command to start: argv[0] is the program's path; empty file names inherit the stream.
struct ProcessSpec {
  std::vector<std::string> argv;
  std::string stdout_path;
  std::string stderr_path;
};

/// How a child ended: its exit code, or the signal that killed it (exit_code is then -1).
struct ProcessResult {
  int exit_code = -1;
  int signal = 0;
  /// True when the child exited normally with code 0.
  bool ok() const { return signal == 0 && exit_code == 0; }
};

/// SIGINT or SIGTERM arrived while run_processes() ran. By then every running child's
/// process group was stopped (SIGTERM, then SIGKILL after a grace period) and reaped, and
/// no further command was started; `done` was called only for commands that had finished.
class Interrupted : public std::runtime_error {
 public:
  /// `signal_number` is SIGINT or SIGTERM.
  explicit Interrupted(int signal_number);
  int signal_number() const { return signal_; }
  /// The conventional exit code of a process stopped by the signal: 128 + signal (130, 143).
  int exit_code() const { return 128 + signal_; }

 private:
  int signal_;
};

/// Runs one command to completion and returns how it ended.
ProcessResult run_process(const ProcessSpec& spec);

/// Most child processes run_processes() keeps alive at once (the -j / --jobs limit).
constexpr unsigned kMaxJobs = 4096;

/// Throws ConfigError naming --jobs unless 1 <= jobs <= kMaxJobs (call before running anything).
void check_jobs_option(unsigned jobs);

/// Runs `count` commands with at most `jobs` (1..kMaxJobs, else ConfigError) alive at once:
/// `make(i)` builds command i just before it starts (in index order), `done(i, result)` runs as
/// each one ends. Each child runs in its own process group and is killed if this process dies (even
/// by SIGKILL: PR_SET_PDEATHSIG), so no child outlives its parent. While the pool runs, SIGINT and
/// SIGTERM are caught: the children's groups are stopped and Interrupted is thrown (the previous
/// signal handlers are restored on return).
void run_processes(std::size_t count, unsigned jobs,
                   const std::function<ProcessSpec(std::size_t)>& make,
                   const std::function<void(std::size_t, const ProcessResult&)>& done);

/// The default worker count: the number of cores (at least 1).
unsigned default_jobs();

/// Absolute path of the running executable (/proc/self/exe).
std::string self_executable();

/// Finds `relative` (e.g. "tools/plot_sweep.py") in the source tree: $IPUSIM_SOURCE_DIR,
/// the working directory, the source dir compiled in, then <exe>/../../..; "" if absent.
std::string locate_source_file(const std::string& relative);

/// The last non-empty line of a text file, or "" if it is missing or empty.
std::string last_line_of(const std::string& path);

}  // namespace ipusim::cli
