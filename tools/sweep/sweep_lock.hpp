#pragma once
// One writer per sweep output folder: a local sweep takes an exclusive flock(2) on
// DIR/.sweep.lock; the shards of a job array (and --collect, which only reads their
// points) a shared one. A second sweep into the same folder is therefore refused instead
// of interleaving its points and results with the first. The kernel drops the lock when
// its holder dies (even by kill -9), so a stale lock never blocks `--resume` (a lock whose
// recorded holder is dead is waited for, up to 5 s, while that holder's last child dies).
#include <string>

namespace ipusim::cli {

/// Holds the lock of a sweep output folder until destroyed.
class SweepLock {
 public:
  /// Locks `out_dir` (exclusive unless `shared`); ConfigError naming the folder, the lock
  /// file and (when known) the holder's process id if another sweep holds it.
  SweepLock(const std::string& out_dir, bool shared);
  ~SweepLock();
  SweepLock(const SweepLock&) = delete;
  SweepLock& operator=(const SweepLock&) = delete;

  /// The lock file's path (DIR/.sweep.lock).
  static std::string path_in(const std::string& out_dir);

 private:
  int fd_ = -1;
};

}  // namespace ipusim::cli
