#pragma once
// The plan's results: one entry per enumerated configuration (plan.json, schema in
// tools/plan/README.md), the Pareto front of the simulated configurations that fit, the
// ranking by objective, and the text tables.
#include <cstddef>
#include <string>
#include <vector>

#include "sim/json.hpp"

namespace ipusim::cli {

/// The objectives `--objective` accepts.
enum class PlanObjective { Throughput, Memory, Balanced };

/// Parses --objective (ConfigError naming the flag otherwise).
PlanObjective parse_objective(const std::string& text);

/// The measured fields of a plan entry from a sweep row (ok rows) or its error: status,
/// error, samples_per_s, time_per_step_ns, sram_bytes_per_tile, streaming_memory_bytes, fits.
void fill_measured(Json& entry, const Json& row);

/// Indices (into `entries`) of the simulated, fitting entries that no other one beats on
/// throughput, SRAM per tile and streaming memory at once (higher samples_per_s, lower
/// bytes); sets each entry's "pareto" flag. Ordered by throughput, highest first.
std::vector<std::size_t> mark_pareto(std::vector<Json>& entries);

/// Indices of the simulated, fitting entries ranked by the objective (best first):
/// throughput = samples_per_s; memory = sram_bytes_per_tile (then throughput); balanced =
/// the Pareto entries closest to the ideal point (best throughput, least SRAM per tile) in
/// coordinates normalised by the best throughput and the SRAM per tile, then the rest by
/// throughput. Ties go to the lower index.
std::vector<std::size_t> rank_entries(const std::vector<Json>& entries, PlanObjective objective,
                                      double sram_per_tile_bytes);

/// A text table of `indices` (one line each: measured figures and the configuration).
std::string plan_table(const std::vector<Json>& entries, const std::vector<std::size_t>& indices);

}  // namespace ipusim::cli
