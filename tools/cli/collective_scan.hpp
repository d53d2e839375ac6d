#pragma once
// `ipusim collective --min-bytes A --max-bytes B [--step-factor F]`: the nccl-tests
// convention (-b/-e/-f) for timing one collective over a range of message sizes. Each
// size is one child `ipusim collective ... --bytes N --json` (SystemC elaborates once per
// process); the results print as a table, or CSV / JSON.
#include <cstdint>
#include <string>
#include <vector>

#include "tools/cli/commands.hpp"

namespace ipusim::cli {

/// True if `args` ask for a size scan (they contain --min-bytes or --max-bytes).
bool is_collective_scan(const Args& args);

/// The sizes of a scan: min, min*F, min*F^2, ... while <= max (each rounded down to whole
/// bytes; max is included when the sequence lands on it). ConfigError naming the flag when
/// min > max or F <= 1.
std::vector<std::uint64_t> scan_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes,
                                      double step_factor);

/// The scan's flags as `--help` prints them (for `ipusim collective --help`).
std::string scan_help();

/// Runs the scan; the exit code is the worst of the children's (2 bad input, 3 failure).
int cmd_collective_scan(const Args& args);

}  // namespace ipusim::cli
