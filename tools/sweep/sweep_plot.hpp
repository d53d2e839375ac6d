#pragma once
// Runs tools/plot_sweep.py on a sweep's results.json (Debian's /usr/bin/python3 with
// matplotlib), writing PNG and SVG files next to the results.
#include <string>

namespace ipusim::cli {

/// Plots DIR/results.json into DIR; returns "" on success, else why it failed (the log
/// of the plot script is DIR/plot.log).
std::string plot_sweep_results(const std::string& out_dir, const std::string& memory_column = "");

}  // namespace ipusim::cli
