#pragma once
// Runs a what-if simulation in a child process during elaboration. SystemC elaborates and
// runs once per process, and a trial must not leave traffic, statistics or trace events in
// the simulation that is reported; a fork() before sc_start() gives the trial a private copy
// of the elaborated system, which it extends, runs and discards.
#include <functional>

#include "sim/json.hpp"

namespace ipusim {

/// Forks; the child turns tracing, progress and logging off, runs `trial` (which may add
/// modules and call sc_start) and sends back the JSON it returns; the child then ends with
/// _exit (no buffers flushed twice). Call only before sc_start(). Returns the child's JSON,
/// or {"error": "..."} when the trial threw, crashed or could not be started. With
/// `max_seconds` > 0 the parent waits at most that long: a child still running then is
/// killed and the result is {"error": ..., "timed_out": true} (a backstop: a trial should stop
/// itself at the run's deadline and say where it was).
Json run_forked_trial(const std::function<Json()>& trial, double max_seconds = 0);

}  // namespace ipusim
