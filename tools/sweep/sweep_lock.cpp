#include "tools/sweep/sweep_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>

#include "sim/errors.hpp"
#include "sim/output_file.hpp"

namespace ipusim::cli {

namespace {

/// The process id the holder wrote into the lock file ("" if none could be read).
std::string holder_of(int fd) {
  char buffer[32] = {0};
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  std::string pid = n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.find_first_not_of("0123456789") == std::string::npos ? pid : std::string();
}

/// Tries the lock without blocking (retrying an interrupted call); 0 or the errno.
int try_flock(int fd, bool shared) {
  int rc = 0;
  while ((rc = ::flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB)) != 0 && errno == EINTR) {
  }
  return rc == 0 ? 0 : errno;
}

/// True when `pid` names no process any more.
bool is_dead(const std::string& pid) {
  if (pid.empty() || pid.size() > 9) return false;  // digits only (holder_of); fits a pid_t
  return ::kill(static_cast<pid_t>(std::stol(pid)), 0) != 0 && errno == ESRCH;
}

/// How long a lock whose recorded holder is dead may stay held before it is refused: the
/// time a child of that holder needs to die (see the constructor).
constexpr int kDeadHolderWaitMs = 5000;

}  // namespace

std::string SweepLock::path_in(const std::string& out_dir) {
  return (std::filesystem::path(out_dir) / ".sweep.lock").string();
}

SweepLock::SweepLock(const std::string& out_dir, bool shared) {
  const std::string path = path_in(out_dir);
  // O_CLOEXEC: the child `ipusim run`s must not inherit (and so outlive) the lock.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const std::string why = "cannot create the sweep lock " + path + ": " + std::strerror(errno);
    if (errno == ENOSPC || errno == EDQUOT)
      throw WriteError(why);  // a full disk is exit 3, as for any output
    throw ConfigError(why);
  }
  int err = try_flock(fd_, shared);
  // A sweep killed with SIGKILL can leave its lock held for a moment: a child it had just
  // forked holds the lock's open file until its exec (O_CLOEXEC) or its death, and the
  // kernel kills that child (PR_SET_PDEATHSIG, tools/common/subprocess.cpp) only after the
  // parent is gone. So while the holder the file names is dead, wait for the lock to drop
  // instead of refusing a --resume started straight after the kill.
  for (int waited_ms = 0;
       err == EWOULDBLOCK && waited_ms < kDeadHolderWaitMs && is_dead(holder_of(fd_));
       waited_ms += 10) {
    const struct timespec tick { 0, 10'000'000 };
    ::nanosleep(&tick, nullptr);
    err = try_flock(fd_, shared);
  }
  if (err != 0) {
    const std::string pid = err == EWOULDBLOCK ? holder_of(fd_) : std::string();
    ::close(fd_);
    fd_ = -1;
    if (err != EWOULDBLOCK) throw ConfigError("cannot lock " + path + ": " + std::strerror(err));
    throw ConfigError("another sweep is writing to " + out_dir + " (" + path + " is locked" +
                      (pid.empty() ? std::string() : " by process " + pid) +
                      "); wait for it to end or choose another --out");
  }
  // The holder's pid, only for the message above (the lock is the flock, not this
  // content): an exclusive holder writes its own, a shared one clears a stale one. Best
  // effort: a full disk must not stop a sweep that is only going to resume.
  if (::ftruncate(fd_, 0) == 0 && !shared) {
    const std::string pid = std::to_string(::getpid()) + "\n";
    [[maybe_unused]] const ssize_t written = ::pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

SweepLock::~SweepLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace ipusim::cli
