#pragma once
// Progress of one long simulation (`ipusim run` / `collective`), on stderr:
//   on a terminal, after 2 s of wall time, one line redrawn in place at most twice a second:
//     "\r[progress] simulated 1.234 ms, 1200/8190 supersteps, 21.3 M events/s, ETA 3.1 s"
//   in a log (stderr not a terminal), the same text as plain lines at most every 10 s;
//   nothing when disabled (--quiet). IPUSIM_PROGRESS_EVERY_S=S sets both waits to S seconds
//   (first line and interval; 0 = every report). The models report units of work done (supersteps,
//   ops); a total, when known, gives the fraction done and the ETA.
#include <chrono>
#include <cstdint>
#include <string>

namespace ipusim {

/// Process-wide progress reporter (the simulation runs in one process).
class RunProgress {
 public:
  /// The process-wide reporter.
  static RunProgress& instance();
  /// Turns reporting on (`enabled`), with `terminal` choosing redraws over plain lines, and
  /// restarts the clock. Off by default, so library users and tests print nothing.
  void start(bool enabled, bool terminal);
  /// Adds `units` of work (named `what`, e.g. "ops") to the known total.
  void add_total(std::uint64_t units, const char* what);
  /// Records `units` of work done (cheap: the clock is read every 64 calls).
  void done(std::uint64_t units, const char* what);
  /// Fraction of the known total done (0 when no total is known).
  double fraction_done() const;
  /// The known total (0 when none was added) and its unit.
  std::uint64_t total() const { return total_; }
  /// Units of the total or, without one, of the work done ("ops", "supersteps").
  const std::string& unit() const { return what_; }
  /// Units of work done that count towards the total.
  std::uint64_t done_units() const { return done_; }
  /// Ends the redrawn line (if one was drawn).
  void finish();
  /// The progress text (no "\r"); exposed for tests.
  static std::string line(double sim_ns, std::uint64_t done, std::uint64_t total,
                          const std::string& what, double events_per_s, double eta_s);

 private:
  void report();
  bool enabled_ = false;
  bool terminal_ = false;
  bool drawn_ = false;
  std::uint64_t done_ = 0;
  std::uint64_t total_ = 0;
  std::uint64_t calls_ = 0;
  std::string what_ = "steps";
  double first_report_s_ = 0, terminal_every_s_ = 0, log_every_s_ = 0;  ///< set by start()
  std::chrono::steady_clock::time_point start_{};
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace ipusim
