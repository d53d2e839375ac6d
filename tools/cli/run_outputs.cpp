#include "tools/cli/run_outputs.hpp"

#include <iostream>

#include "sim/output.hpp"

namespace ipusim::cli {

int print_run_failure(const std::string& message, int exit_code) {
  // The same prefixes as main()'s handlers, so scripts and tests see one format.
  std::cerr << (exit_code == 2 ? "ipusim: error: " : "ipusim: simulation error: ") << message
            << "\n";
  return exit_code;
}

int report_simulation_failure(const SimulationResult& result) {
  if (result.failure.empty()) return 0;
  return print_run_failure(result.failure,
                           result.failure_exit_code != 0 ? result.failure_exit_code : 3);
}

int write_run_outputs(const std::string& out_dir, const Json& report, const Json& resolved,
                      std::string* report_path) {
  const JsonWriteResult r = try_write_json_file(out_dir, "report.json", report);
  if (report_path) *report_path = r.path;
  if (r.exit_code != 0) return print_run_failure(r.error, r.exit_code);
  const JsonWriteResult c = try_write_json_file(out_dir, "resolved_config.json", resolved);
  if (c.exit_code != 0) return print_run_failure(c.error, c.exit_code);
  return 0;
}

}  // namespace ipusim::cli
