#pragma once
// After simulate() in `ipusim run` and `ipusim collective`: report a failure and write the
// result files without throwing. SystemC's coroutine stacks are still alive once sc_start has
// run, and unwinding an exception across them confuses AddressSanitizer (dev preset), so these
// paths print what main() would print for the exception and return its exit code instead.
#include <string>

#include "runtime/workloads/simulation.hpp"
#include "sim/json.hpp"

namespace ipusim::cli {

/// Prints `message` as main() prints a ConfigError (exit_code 2: "ipusim: error: ...") or a
/// SimulationError (otherwise: "ipusim: simulation error: ...") and returns `exit_code`.
int print_run_failure(const std::string& message, int exit_code);

/// The failure of `result` printed by print_run_failure(); 0 when the run succeeded.
int report_simulation_failure(const SimulationResult& result);

/// Writes `out_dir`/report.json (`report`) and resolved_config.json (`resolved`) atomically;
/// returns 0, or the exit code after printing the error (2: the folder cannot be created,
/// 3: a write failed; the first failure stops, no partial file is left). `report_path`
/// receives the report's path.
int write_run_outputs(const std::string& out_dir, const Json& report, const Json& resolved,
                      std::string* report_path = nullptr);

}  // namespace ipusim::cli
