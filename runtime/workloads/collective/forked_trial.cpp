#include "runtime/workloads/collective/forked_trial.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <exception>
#include <string>

#include "sim/progress.hpp"
#include "sim/trace.hpp"

namespace ipusim {
namespace {

/// Writes all of `text` to `fd` (retrying short writes).
void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

Json run_forked_trial(const std::function<Json()>& trial, double max_seconds) {
  int fds[2];
  if (::pipe(fds) != 0) return Json{{"error", std::string("pipe failed: ") + std::strerror(errno)}};
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Json{{"error", std::string("fork failed: ") + std::strerror(errno)}};
  }
  if (pid == 0) {
    ::close(fds[0]);
    // The trial's events and messages belong to no output of the parent's run (its stdout
    // may be a --json result).
    const int null_fd = ::open("/dev/null", O_WRONLY);
    if (null_fd >= 0) {
      ::dup2(null_fd, STDOUT_FILENO);
      ::dup2(null_fd, STDERR_FILENO);
      ::close(null_fd);
    }
    TraceWriter::instance().enable(false);
    RunProgress::instance().start(false, false);
    spdlog::set_level(spdlog::level::off);
    Json out;
    try {
      out = trial();
    } catch (const std::exception& e) {
      out = Json{{"error", e.what()}};
    }
    write_all(fds[1], out.dump());
    ::close(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  using Clock = std::chrono::steady_clock;
  // Clamped to a year: a larger wait is no wait, and the conversion must not overflow.
  const auto give_up =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(std::min(max_seconds, 3.2e7)));
  std::string text;
  bool timed_out = false;
  char buf[4096];
  for (;;) {
    if (max_seconds > 0) {
      // Wait for the child's result no longer than the caller's deadline.
      const double left_ms =
          std::chrono::duration<double, std::milli>(give_up - Clock::now()).count();
      pollfd p{fds[0], POLLIN, 0};
      const int ready =
          left_ms <= 0 ? 0 : ::poll(&p, 1, static_cast<int>(std::min(left_ms + 1, 1e9)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) {
        timed_out = true;
        ::kill(pid, SIGKILL);
        break;
      }
    }
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return Json{{"error", "the trial was still running after " + std::to_string(max_seconds) +
                              " s and was stopped"},
                {"timed_out", true}};
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) {
    return Json{
        {"error", "the trial process ended abnormally (status " + std::to_string(status) + ")"}};
  }
  try {
    return Json::parse(text);
  } catch (const Json::parse_error&) {
    return Json{{"error", "the trial process sent an unreadable result"}};
  }
}

}  // namespace ipusim
