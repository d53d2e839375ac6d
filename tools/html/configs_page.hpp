#pragma once
// The page of a set of configurations (`ipusim sweep --html`, `ipusim plan --html`): an
// interactive scatter of throughput (or time) against SRAM per tile and against streaming
// memory, the Pareto front marked; hovering a point shows its configuration, clicking copies
// it (JSON) to the clipboard.
#include <string>
#include <utility>
#include <vector>

#include "sim/json.hpp"
#include "tools/html/html_page.hpp"

namespace ipusim::html {

/// One configuration and what it achieved (NaN = unknown; such a point is left out of the
/// charts that need the value, and listed in the table).
struct ConfigPoint {
  Json config = Json::object();  ///< what identifies it: shown on hover, copied on click
  std::string label;             ///< short name (e.g. "point 3"); "" = its index
  double samples_per_s = NAN;    ///< throughput (higher is better)
  double step_time_ns = NAN;     ///< time of a step or run (lower is better)
  double max_sram_per_tile_bytes = NAN;
  double streaming_memory_bytes = NAN;  ///< per machine
  bool fits = true;                     ///< fits in SRAM (and streaming memory)
  bool pareto = false;                  ///< on the Pareto front (computed by the caller)
  std::string status = "ok";            ///< "ok", or why it has no result (e.g. "failed: ...")
};

/// Page options: title, a sentence under it, summary lines, the SRAM per tile (a rule on
/// the SRAM chart when > 0).
struct ConfigPageOptions {
  std::string title = "ipusim: configurations";
  std::string subtitle;
  std::vector<std::pair<std::string, std::string>> summary;
  double sram_per_tile_bytes = 0;
};

/// The page: scatter charts (throughput when any point has samples_per_s, else time) and
/// a table of every point, best first.
Page configurations_page(const std::vector<ConfigPoint>& points, const ConfigPageOptions& options);

/// A plan.json row as a ConfigPoint: keys "config", "samples_per_s", "step_time_ns",
/// "max_sram_per_tile_bytes", "streaming_memory_bytes", "fits", "pareto" (and optional
/// "label", "status"); a missing number is NaN. ConfigError naming `where` on a wrong type.
ConfigPoint config_point_from_row(const Json& row, const std::string& where);

/// The points of a sweep's results.json document: each row's axis values as its config,
/// time_ns, workload.samples_per_s, `memory_column` (e.g. memory.max_tile_bytes) as the SRAM
/// per tile, memory.streaming_memory_per_machine_bytes, memory.fits; Pareto front over the
/// successful rows that fit: throughput (when the rows have it, else time) against
/// `memory_column`.
std::vector<ConfigPoint> sweep_config_points(const Json& results, const std::string& memory_column);

/// Convenience for `plan --html`: renders configurations_page() and writes it to `path`
/// (write_page(): exit code 2 for a missing folder, 3 for a failed write, 0 on success).
PageWriteResult write_configurations_page(const std::string& path,
                                          const std::vector<ConfigPoint>& points,
                                          const ConfigPageOptions& options);

}  // namespace ipusim::html
