#pragma once
// One simulation from a resolved config: build the system, elaborate the workload, run
// the SystemC kernel, and assemble the report body (everything but run_info).
#include <string>

#include "sim/config.hpp"
#include "sim/json.hpp"

namespace ipusim {

/// Result of simulate(): the report body and a readable summary.
struct SimulationResult {
  Json report;          ///< report.json without run_info
  std::string summary;  ///< lines for stdout
  std::string failure;  ///< non-empty: the simulation failed (exit 3); report is empty
};

/// Runs the config once. Throws ConfigError for bad input (before simulating); a workload
/// that fails or does not finish (deadlock, time limit) is returned in `failure`.
/// Call at most once per process (SystemC).
SimulationResult simulate(ConfigDoc& doc);

}  // namespace ipusim
