#pragma once
// The interface every workload kind implements (microbenchmark, collective, training),
// and the factory that picks one from `/workload/kind`.
#include <functional>
#include <memory>
#include <string>

#include "sim/config.hpp"
#include "sim/json.hpp"

namespace ipusim {

class System;

/// A workload elaborated on a System: it creates its SystemC processes in its constructor,
/// runs during sc_start(), and reports afterwards.
class Workload {
 public:
  virtual ~Workload() = default;
  /// True once every step has completed (false after sc_start() means a deadlock).
  virtual bool finished() const = 0;
  /// Simulated time of the whole workload in ns.
  virtual double total_time_ns() const = 0;
  /// Time by kind in ns: compute, exchange, sync, ipu_link, gw_link, streaming_memory,
  /// host_io, idle.
  virtual Json breakdown_ns() const = 0;
  /// Link utilisation per tier (0..1) over the workload's time.
  virtual Json utilisation() const { return Json::object(); }
  /// Memory accounting (numeric leaves), empty if the kind does not track memory.
  virtual Json memory() const { return Json::object(); }
  /// Kind-specific results (steps, phases, collective details).
  virtual Json results() const = 0;
  /// Why the workload stopped early (empty if it did not fail).
  virtual std::string failure() const { return ""; }
  /// When the simulation ended with work outstanding: what is stuck (the op, its IPU and lane,
  /// what it waits for), for the exit-3 message; "" if unknown.
  virtual std::string stall_report() const { return ""; }
  /// Human-readable summary lines for stdout.
  virtual std::string summary() const = 0;
};

/// Runs `body` as the work of a SystemC process. Exceptions must not escape a process: one
/// is stored in `failure` (reported by simulate() after sc_start) and the simulation stops.
/// Returns true if `body` completed.
bool run_guarded(const std::function<void()>& body, std::string& failure);

/// Builds the workload described at `/workload` (reads `kind` and dispatches).
std::unique_ptr<Workload> make_workload(System& system, ConfigNode workload);

}  // namespace ipusim
