#pragma once
// The sweep's result table: one row per point (index, axis values, status, error,
// time_ns, every numeric leaf of breakdown_ns / utilisation / memory, the collective
// algorithm, training throughput (workload.samples_per_s, tokens_per_s, sequences_per_s),
// extra columns), written as results.csv and results.json.
#include <string>
#include <vector>

#include "sim/json.hpp"
#include "tools/sweep/sweep_spec.hpp"

namespace ipusim::cli {

/// Appends every numeric leaf under `value` as ("prefix.key.sub", number); list elements
/// are named by their index. Leaves are visited in document order.
void flatten_numeric(const Json& value, const std::string& prefix, Json& out);

/// The column of the algorithm the report says was used: "workload.algorithm", or
/// "workload.algorithm_used" when an axis already sweeps workload.algorithm (so that
/// "auto" and what it resolved to stay apart).
std::string algorithm_column(const SweepSpec& spec);

/// The row of one point: `report` is its report.json (null when the point failed).
Json make_row(const SweepSpec& spec, const SweepPoint& point, const std::string& status,
              const std::string& error, const Json& report);

/// The columns of the table: fixed ones first, then breakdown_ns.*, utilisation.*,
/// memory.*, workload.algorithm, the throughput columns and the extra columns, each group in
/// first-seen order.
std::vector<std::string> collect_columns(const SweepSpec& spec, const std::vector<Json>& rows);

/// One CSV field, quoted (RFC 4180) when it holds a comma, quote, CR, LF or edge spaces.
std::string csv_field(const std::string& text);

/// The text of a cell: strings as they are, numbers in shortest round-trip form, null
/// as empty, anything else as compact JSON.
std::string cell_text(const Json& value);

/// The whole CSV text (header line, then one line per row).
std::string to_csv(const std::vector<std::string>& columns, const std::vector<Json>& rows);

/// The results.json document: the sweep's description, the columns, the rows (every
/// column present in every row, null where absent).
Json results_document(const SweepSpec& spec, const std::vector<std::string>& columns,
                      const std::vector<Json>& rows);

}  // namespace ipusim::cli
