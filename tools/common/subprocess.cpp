#include "tools/common/subprocess.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "sim/errors.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

namespace {

/// The signal (SIGINT/SIGTERM) that asked a running pool to stop; 0 while none did.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int sig) { g_stop_signal = sig; }

/// Catches SIGINT and SIGTERM for its lifetime (without SA_RESTART, so sleeps wake up) and
/// restores the previous handlers afterwards.
class StopSignalScope {
 public:
  StopSignalScope() {
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignalScope() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignalScope(const StopSignalScope&) = delete;
  StopSignalScope& operator=(const StopSignalScope&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

/// Opens an output file for a child (before fork, so that errors surface in the parent);
/// -1 means "inherit".
int open_output(const std::string& path) {
  if (path.empty()) return -1;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw ConfigError("cannot write " + path + ": " + std::strerror(errno));
  return fd;
}

/// Starts a child; everything it needs is prepared before fork(), so that the child only
/// calls async-signal-safe functions (dup2, execv, write, _exit).
pid_t start_process(const ProcessSpec& spec) {
  if (spec.argv.empty()) throw std::logic_error("start_process: empty argv");
  const int out_fd = open_output(spec.stdout_path);
  int err_fd = -1;
  try {
    // One file for both streams must share one offset, or the two would overwrite each other.
    err_fd = (!spec.stderr_path.empty() && spec.stderr_path == spec.stdout_path)
                 ? ::fcntl(out_fd, F_DUPFD_CLOEXEC, 0)
                 : open_output(spec.stderr_path);
  } catch (...) {
    if (out_fd >= 0) ::close(out_fd);
    throw;
  }
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string exec_failed = "ipusim: error: cannot execute " + spec.argv[0] + "\n";

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Own process group: a stop reaches the child and anything it starts, and a Ctrl-C on
    // the terminal reaches only the parent, which decides. Die with the parent, even if it
    // is SIGKILLed (the check after prctl closes the race with a parent that already died).
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    if (out_fd >= 0) ::dup2(out_fd, STDOUT_FILENO);
    if (err_fd >= 0) ::dup2(err_fd, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    const ssize_t ignored = ::write(STDERR_FILENO, exec_failed.data(), exec_failed.size());
    (void)ignored;
    ::_exit(127);
  }
  const int fork_errno = errno;
  if (pid > 0) ::setpgid(pid, pid);  // also from the parent, so that kill(-pid) works at once
  if (out_fd >= 0) ::close(out_fd);
  if (err_fd >= 0) ::close(err_fd);
  if (pid < 0) throw SimulationError(std::string("fork failed: ") + std::strerror(fork_errno));
  return pid;
}

ProcessResult result_from_status(int status) {
  ProcessResult r;
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  }
  return r;
}

/// Waits for any of our children; returns its pid and fills `status`, or 0 when a stop
/// signal arrived first. Polls every 10 ms (a signal cuts the sleep short), so a signal
/// that lands just before a blocking wait cannot be missed.
pid_t wait_any_or_stop(int& status) {
  while (g_stop_signal == 0) {
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) return pid;
    if (pid < 0 && errno != EINTR)
      throw SimulationError(std::string("waitpid failed: ") + std::strerror(errno));
    const struct timespec tick { 0, 10'000'000 };
    ::nanosleep(&tick, nullptr);
  }
  return 0;
}

/// Stops the process groups of `running` (SIGTERM, SIGKILL after `grace_ms`) and reaps them.
void stop_children(const std::map<pid_t, std::size_t>& running, int grace_ms) {
  for (const auto& entry : running) ::kill(-entry.first, SIGTERM);
  std::map<pid_t, std::size_t> left = running;
  for (int waited_ms = 0; !left.empty(); waited_ms += 10) {
    for (auto it = left.begin(); it != left.end();) {
      int status = 0;
      const pid_t r = ::waitpid(it->first, &status, WNOHANG);
      it = (r == it->first || (r < 0 && errno == ECHILD)) ? left.erase(it) : std::next(it);
    }
    if (left.empty()) break;
    if (waited_ms == grace_ms) {
      for (const auto& entry : left) ::kill(-entry.first, SIGKILL);
    }
    const struct timespec tick { 0, 10'000'000 };
    ::nanosleep(&tick, nullptr);
  }
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  const pid_t pid = start_process(spec);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      throw SimulationError(std::string("waitpid failed: ") + std::strerror(errno));
  }
  return result_from_status(status);
}

Interrupted::Interrupted(int signal_number)
    : std::runtime_error(std::string("interrupted by ") +
                         (signal_number == SIGINT ? "SIGINT" : "SIGTERM")),
      signal_(signal_number) {}

void check_jobs_option(unsigned jobs) {
  // -j 0 would start nothing, and "-j -1" arrives as 4294967295 through an unsigned option.
  if (jobs == 0 || jobs > kMaxJobs) {
    throw ConfigError("--jobs " + std::to_string(jobs) + ": expected 1 to " +
                      std::to_string(kMaxJobs) +
                      " simulations at once (a negative value wraps around)");
  }
}

void run_processes(std::size_t count, unsigned jobs,
                   const std::function<ProcessSpec(std::size_t)>& make,
                   const std::function<void(std::size_t, const ProcessResult&)>& done) {
  check_jobs_option(jobs);
  const StopSignalScope catch_stop_signals;
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0;
  try {
    while (next < count || !running.empty()) {
      while (next < count && running.size() < jobs && g_stop_signal == 0) {
        const std::size_t index = next++;
        running.emplace(start_process(make(index)), index);
      }
      int status = 0;
      const pid_t pid = wait_any_or_stop(status);
      if (pid == 0) {
        const int sig = g_stop_signal;
        stop_children(running, 5000);
        running.clear();
        throw Interrupted(sig);
      }
      auto it = running.find(pid);
      if (it == running.end()) continue;  // not one of ours
      const std::size_t index = it->second;
      running.erase(it);
      done(index, result_from_status(status));
    }
  } catch (...) {
    // Never leave zombies or orphans behind: let the running children finish first.
    for (const auto& [pid, index] : running) {
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    throw;
  }
}

unsigned default_jobs() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

std::string self_executable() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw SimulationError("cannot read /proc/self/exe: " + ec.message());
  return p.string();
}

std::string locate_source_file(const std::string& relative) {
  std::vector<fs::path> roots;
  if (const char* env = std::getenv("IPUSIM_SOURCE_DIR"); env && *env) roots.emplace_back(env);
  roots.push_back(fs::current_path());
#ifdef IPUSIM_SOURCE_DIR
  roots.emplace_back(IPUSIM_SOURCE_DIR);
#endif
  try {
    // The build tree puts the executable at <source>/<build>/tools/ipusim.
    roots.push_back(fs::path(self_executable()).parent_path() / ".." / "..");
    roots.push_back(fs::path(self_executable()).parent_path() / ".." / ".." / "..");
  } catch (const SimulationError&) {
  }
  for (const auto& root : roots) {
    const fs::path candidate = root / relative;
    std::error_code ec;
    if (is_file(candidate) || fs::is_directory(candidate, ec))
      return fs::weakly_canonical(candidate, ec).string();
  }
  return "";
}

std::string last_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    // Progress lines end in '\r' without a newline; keep only the text after the last one.
    const auto cr = line.rfind('\r');
    if (cr != std::string::npos) line = line.substr(cr + 1);
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace ipusim::cli
