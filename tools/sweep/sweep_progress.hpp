#pragma once
// The one-line progress report on stderr: "\r[12/40] failures 1, elapsed 3.2 s, ETA 7.4 s".
#include <chrono>
#include <cstddef>
#include <string>

namespace ipusim::cli {

/// Tracks finished runs and redraws the progress line.
class Progress {
 public:
  /// `total` runs to do, of which `skipped` are already done (resumed); `enabled` false
  /// keeps stderr silent.
  Progress(std::size_t total, std::size_t skipped, bool enabled);
  /// Records one finished run and redraws the line.
  void finished(bool failed);
  /// Ends the line with a newline (if anything was drawn).
  void close();
  /// The progress text for the given counters (no "\r").
  static std::string line(std::size_t done, std::size_t total, std::size_t failures,
                          double elapsed_s, double eta_s);

 private:
  std::size_t total_;
  std::size_t skipped_;
  std::size_t done_;
  std::size_t failures_ = 0;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ipusim::cli
