#include "sim/kernel_run.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <systemc>

namespace ipusim {
namespace {

using Clock = std::chrono::steady_clock;

/// The run's wall clock: set by start_wall_clock (one simulation per process).
struct WallClock {
  bool started = false;
  Clock::time_point start;
  double limit_s = 0;
};
WallClock& wall_clock() {
  static WallClock c;
  return c;
}

}  // namespace

void start_wall_clock(double max_wall_s) {
  wall_clock() = WallClock{true, Clock::now(), max_wall_s > 0 ? max_wall_s : 0.0};
}

double wall_limit_s() { return wall_clock().limit_s; }

double wall_seconds_left() {
  const WallClock& c = wall_clock();
  if (!c.started || c.limit_s <= 0) return 1e300;
  return c.limit_s - std::chrono::duration<double>(Clock::now() - c.start).count();
}

std::string run_kernel(double max_time_ns, double max_wall_s) {
  using namespace sc_core;
  if (max_wall_s <= 0) {
    if (max_time_ns > 0) {
      sc_start(sc_time(max_time_ns, SC_NS));
    } else {
      sc_start();
    }
    return "";
  }
  const auto start = wall_clock().started ? wall_clock().start : Clock::now();
  double slice_ns = 1000.0;  // grows quickly; small first so that short runs stay short
  // The first slice always runs: before it the kernel has not initialised, so nothing is
  // pending yet.
  for (bool first = true; first || (sc_pending_activity() && sc_get_status() != SC_STOPPED);
       first = false) {
    const double now_ns = sc_time_stamp().to_seconds() * 1e9;
    // At least up to the next pending event: a slice with nothing in it would make SystemC
    // warn (W571) and wastes a call.
    double step_ns =
        first ? slice_ns
              : std::max(slice_ns, sc_time_to_pending_activity().to_seconds() * 1e9 + 1.0);
    if (max_time_ns > 0) {
      if (now_ns >= max_time_ns) break;
      step_ns = std::min(step_ns, max_time_ns - now_ns);
    }
    const auto before = Clock::now();
    sc_start(sc_time(step_ns, SC_NS), SC_EXIT_ON_STARVATION);
    const auto after = Clock::now();
    if (std::chrono::duration<double>(after - start).count() > max_wall_s &&
        sc_pending_activity() && sc_get_status() != SC_STOPPED) {
      std::ostringstream out;
      out << "the /sim/max_wall_s limit of " << max_wall_s << " s was reached at simulated time "
          << sc_time_stamp().to_string() << " (raise /sim/max_wall_s, or shrink the workload)";
      return out.str();
    }
    if (std::chrono::duration<double>(after - before).count() < 0.05)
      slice_ns = std::min(slice_ns * 2, 1e15);
  }
  return "";
}

}  // namespace ipusim
