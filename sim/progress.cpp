#include "sim/progress.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <systemc>

#include "sim/run_info.hpp"

namespace ipusim {
namespace {

constexpr double kFirstReportS = 2.0;    // short runs print nothing
constexpr double kTerminalEveryS = 0.5;  // redraw rate on a terminal
constexpr double kLogEveryS = 10.0;      // plain lines in a log

/// IPUSIM_PROGRESS_EVERY_S, when set to a number >= 0: the wait before the first line and
/// between lines, on a terminal and in a log alike (e.g. 60 for a batch job's log, 0 to see
/// every report). Unset or not a number: the defaults above.
double progress_every_override_s() {
  const char* text = std::getenv("IPUSIM_PROGRESS_EVERY_S");
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  return (end != nullptr && *end == '\0' && value >= 0) ? value : -1;
}

}  // namespace

RunProgress& RunProgress::instance() {
  static RunProgress p;
  return p;
}

void RunProgress::start(bool enabled, bool terminal) {
  enabled_ = enabled;
  terminal_ = terminal;
  drawn_ = false;
  done_ = total_ = calls_ = 0;
  const double every_s = progress_every_override_s();
  first_report_s_ = every_s >= 0 ? every_s : kFirstReportS;
  terminal_every_s_ = every_s >= 0 ? every_s : kTerminalEveryS;
  log_every_s_ = every_s >= 0 ? every_s : kLogEveryS;
  start_ = last_ = std::chrono::steady_clock::now();
}

void RunProgress::add_total(std::uint64_t units, const char* what) {
  total_ += units;
  what_ = what;
}

void RunProgress::done(std::uint64_t units, const char* what) {
  // With a known total, only its units count (a run's ops, not the supersteps inside them).
  if (total_ == 0) {
    if (what_ != what) what_ = what;
    done_ += units;
  } else if (what_ == what) {
    done_ += units;
  }
  if (!enabled_ || (++calls_ & 63) != 0) return;
  report();
}

double RunProgress::fraction_done() const {
  return total_ > 0 ? static_cast<double>(done_) / static_cast<double>(total_) : 0.0;
}

void RunProgress::report() {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < first_report_s_) return;
  const double since = std::chrono::duration<double>(now - last_).count();
  if (since < (terminal_ ? terminal_every_s_ : log_every_s_) && drawn_) return;
  if (!terminal_ && !drawn_ && elapsed < log_every_s_) return;  // logs: first line after 10 s
  last_ = now;
  const double events_per_s = static_cast<double>(model_event_counter()) / elapsed;
  const double f = fraction_done();
  const double eta = f > 0 ? elapsed * (1 - f) / f : -1;
  const double sim_ns = static_cast<double>(sc_core::sc_time_stamp().value()) * 1e-3;
  const std::string text = line(sim_ns, done_, total_, what_, events_per_s, eta);
  if (terminal_) {
    std::cerr << "\r" << text << "\033[K" << std::flush;
  } else {
    std::cerr << text << "\n" << std::flush;
  }
  drawn_ = true;
}

void RunProgress::finish() {
  if (enabled_ && terminal_ && drawn_) std::cerr << "\n";
  drawn_ = false;
  enabled_ = false;
}

std::string RunProgress::line(double sim_ns, std::uint64_t done, std::uint64_t total,
                              const std::string& what, double events_per_s, double eta_s) {
  char buf[256];
  const std::string count =
      total > 0 ? std::to_string(done) + "/" + std::to_string(total) : std::to_string(done);
  if (eta_s >= 0) {
    std::snprintf(buf, sizeof buf,
                  "[progress] simulated %.3f ms, %s %s, %.2f M events/s, ETA %.1f s", sim_ns / 1e6,
                  count.c_str(), what.c_str(), events_per_s / 1e6, eta_s);
  } else {
    std::snprintf(buf, sizeof buf, "[progress] simulated %.3f ms, %s %s, %.2f M events/s",
                  sim_ns / 1e6, count.c_str(), what.c_str(), events_per_s / 1e6);
  }
  return buf;
}

}  // namespace ipusim
