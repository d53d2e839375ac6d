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
};

/// Runs the config once. Throws ConfigError for bad input and SimulationError if the
/// workload does not finish (deadlock). Call at most once per process (SystemC).
SimulationResult simulate(ConfigDoc& doc);

}  // namespace ipusim
