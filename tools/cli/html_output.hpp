#pragma once
// `--html` of run, collective, sweep, plan and validate: the self-contained report.html pages
// (tools/html/). Writes never throw (run and collective write after sc_start) and return
// the exit code of a failure after printing it: 2 (the folder is missing) or 3 (write failed).
#include <string>
#include <vector>

#include "sim/json.hpp"

namespace ipusim::cli {

/// Before simulate() of a run with --html: the IPU stats also collect the per-tile SRAM
/// histogram of the page (taken out of report.json again by write_run_html's caller).
void collect_html_details();

/// Writes `out_dir`/report.html, the page of one run from its full `report`; prints
/// "wrote PATH" unless `quiet`. 0 or the exit code of the failure (printed).
int write_run_html(const std::string& out_dir, const Json& report, bool quiet);

/// Writes `out_dir`/report.html, the configurations page of a sweep's results.json
/// document with `memory_column` as the SRAM per tile.
int write_sweep_html(const std::string& out_dir, const Json& results,
                     const std::string& memory_column, bool quiet);

/// Writes `out_dir`/report.html, the configurations page of a plan.json document: every
/// simulated configuration (pruned ones are counted in the summary, not drawn).
int write_plan_html(const std::string& out_dir, const Json& plan, bool quiet);

/// Writes `out_dir`/report.html, the page of a collective size scan from its result list
/// (`collective --min-bytes ... --json`'s): bandwidth and time against the size.
int write_collective_scan_html(const std::string& out_dir, const Json& results, bool quiet);

/// Writes `path`, the page of a validation document (validate --json's).
int write_validation_html(const std::string& path, const Json& validation, bool quiet);

}  // namespace ipusim::cli
