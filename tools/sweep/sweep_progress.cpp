#include "tools/sweep/sweep_progress.hpp"

#include <unistd.h>

#include <iostream>

#include "tools/sweep/sweep_table.hpp"

namespace ipusim::cli {

Progress::Progress(std::size_t total, std::size_t skipped, bool enabled)
    : total_(total),
      skipped_(skipped),
      done_(skipped),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()) {}

void Progress::finished(bool failed) {
  ++done_;
  if (failed) ++failures_;
  if (!enabled_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // Resumed runs took no time now, so the rate counts only the runs of this invocation.
  const std::size_t ran = done_ - skipped_;
  const double eta =
      ran == 0 ? 0.0 : elapsed / static_cast<double>(ran) * static_cast<double>(total_ - done_);
  // On a terminal the line redraws in place; in a log (CI) each update is its own line,
  // printed at most ~10 times per run so the log stays readable.
  if (isatty(STDERR_FILENO)) {
    std::cerr << "\r" << line(done_, total_, failures_, elapsed, eta) << std::flush;
    drawn_ = true;
  } else if (done_ == total_ || (total_ >= 10 && done_ % (total_ / 10) == 0)) {
    std::cerr << line(done_, total_, failures_, elapsed, eta) << "\n";
  }
}

void Progress::close() {
  if (drawn_) std::cerr << "\n";
  drawn_ = false;
}

std::string Progress::line(std::size_t done, std::size_t total, std::size_t failures,
                           double elapsed_s, double eta_s) {
  return "[" + std::to_string(done) + "/" + std::to_string(total) + "] failures " +
         std::to_string(failures) + ", elapsed " + fixed(elapsed_s, 1) + " s, ETA " +
         fixed(eta_s, 1) + " s";
}

}  // namespace ipusim::cli
