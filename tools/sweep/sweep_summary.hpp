#pragma once
// The table `ipusim sweep` prints: one line per point (or per group of points with identical
// results), times and bytes in human units, whether the model fits, the Pareto front.
// results.csv / results.json keep the raw numbers under unit-suffixed column names.
#include <string>
#include <vector>

#include "sim/json.hpp"
#include "tools/sweep/sweep_spec.hpp"

namespace ipusim::cli {

/// "850 ns", "12.5 us", "2.29 s": at most 3 significant digits in the largest unit the time
/// reaches (ASCII "us", so that table columns line up).
std::string human_time_ns(double ns);

/// "512 B", "1.5 KiB", "64 MiB": at most 3 significant digits in binary units.
std::string human_bytes(double bytes);

/// A summary cell: a number in a column whose name ends in "bytes" in human bytes, in one
/// ending in "_ns" as a human time; anything else as cell_text().
std::string human_cell(const std::string& column, const Json& value);

/// The memory column of the Pareto front: the first memory.* column (except the memory.fits
/// flag) whose value differs between rows, else the first; "" if none.
std::string summary_memory_column(const std::vector<std::string>& columns,
                                  const std::vector<Json>& rows);

/// The summary table of `rows` (results rows, every column present): "#", the axes, status,
/// fits (when the reports say), time, samples/s and tokens/s (training), the memory column
/// and its Pareto mark, error. Successful points whose results are identical in every column
/// but the axes are printed once: "#" lists them and an axis on which they differ shows its
/// values joined by " | "; a note under the table says so.
std::string sweep_summary_table(const SweepSpec& spec, const std::vector<std::string>& columns,
                                const std::vector<Json>& rows, const std::string& memory_column);

}  // namespace ipusim::cli
