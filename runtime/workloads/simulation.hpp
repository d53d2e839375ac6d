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
  std::string failure;  ///< non-empty: the run failed (exit failure_exit_code); report is empty
  /// Exit code of a failure: 3 (the simulation failed) or 2 (bad input found only while the
  /// kernel ran, e.g. the packet model's chunk budget); the CLI prints `failure` the way it
  /// prints a SimulationError or a ConfigError respectively.
  int failure_exit_code = 0;
  /// IPUs of the system that ran (run_info's peak RSS per IPU endpoint).
  std::uint32_t num_ipus = 0;
  /// Flows the network played folded onto representatives (symmetric replicas; run_info).
  std::uint64_t folded_flows = 0;
  /// Folded flows still draining when a batch broke the symmetry, played on unfolded.
  std::uint64_t unfolded_flows = 0;
  /// Batches handed to the network already folded (collective plans, remote exchanges).
  std::uint64_t prefolded_batches = 0;
};

/// Runs the config once. Throws ConfigError for bad input found before simulating; anything
/// found after sc_start (bad input refused by the network, a workload that fails or does not
/// finish) is returned in `failure` instead of thrown: SystemC's coroutine stacks are alive
/// then, and unwinding across them confuses AddressSanitizer (dev preset).
/// Call at most once per process (SystemC).
SimulationResult simulate(ConfigDoc& doc);

}  // namespace ipusim
