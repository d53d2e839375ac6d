#pragma once
// Runs the SystemC kernel with a wall-clock limit (`/sim/max_wall_s`): a run that would
// take days stops cleanly, between events, and says where it was, instead of being killed
// by a batch system with nothing written.
#include <string>

namespace ipusim {

/// Runs sc_start() until no activity is left, `max_time_ns` of simulated time (0 = no
/// limit) or `max_wall_s` seconds of wall time (0 = no limit). Without a wall limit this
/// is exactly sc_start() / sc_start(max_time_ns). With one, the kernel runs in slices of
/// simulated time (doubling while a slice takes < 50 ms of wall time), which executes the
/// same events in the same order. Returns "" or, when the wall limit stopped the run, a
/// sentence naming the limit and the simulated time reached.
/// The run's wall clock starts at the last start_wall_clock() call (so that work done before
/// the kernel, e.g. the forked trials of algorithm "best", counts), else when it is called.
std::string run_kernel(double max_time_ns, double max_wall_s);

/// Starts the run's wall clock for /sim/max_wall_s = `max_wall_s` (0 = no limit) now. The
/// clock is steady_clock (CLOCK_MONOTONIC), so a forked child shares the parent's deadline.
void start_wall_clock(double max_wall_s);
/// The /sim/max_wall_s of the running simulation (0 = no limit or not started).
double wall_limit_s();
/// Wall seconds left before the run's deadline (a large number when there is no limit).
double wall_seconds_left();

}  // namespace ipusim
