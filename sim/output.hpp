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

/// Simulation-side parameters shared by all runs (`/sim/...`); declared by the sim layer.
void register_sim_params();

}  // namespace ipusim
