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
std::string run_kernel(double max_time_ns, double max_wall_s);

}  // namespace ipusim
