#pragma once
// Writing results: report.json (with format_version, run_info last), resolved_config.json.
#include <string>

#include "sim/json.hpp"

namespace ipusim {

/// Version of the report.json layout (documented in the README).
constexpr int kReportFormatVersion = 1;

/// Creates `dir` if needed and writes `name` there as pretty JSON, atomically (a write
/// error throws WriteError, exit 3, and leaves no partial file); returns the path.
std::string write_json_file(const std::string& dir, const std::string& name, const Json& value);

/// Outcome of try_write_json_file(): the path written, or the error and its exit code.
struct JsonWriteResult {
  std::string path;   ///< the file (also set on failure)
  std::string error;  ///< empty on success; else the message write_json_file() would throw
  int exit_code = 0;  ///< 0, 2 (the folder cannot be created: bad --out) or 3 (write error)
};

/// write_json_file() without throwing (folder or write errors are returned, with the same
/// text and exit code): for the writes after sc_start, where a throw would confuse
/// AddressSanitizer (SystemC's coroutine stacks are still alive).
JsonWriteResult try_write_json_file(const std::string& dir, const std::string& name,
                                    const Json& value);

/// Simulation-side parameters shared by all runs (`/sim/...`); declared by the sim layer.
void register_sim_params();

}  // namespace ipusim
