#pragma once
// Sweeps split across machines: `--shard i/N` runs the i-th of N disjoint subsets of a
// sweep's points into the shared output folder, and `--collect` merges whatever the
// shards (or earlier local runs) finished into one result table.
//
// Point folder format (DIR/points/NNNN/, NNNN = point index, at least 4 digits):
//   stdout.txt, stderr.txt       the child `ipusim run`'s streams
//   report.json                  its report (absent when it failed)
//   resolved_config.json         the full input with defaults
//   done.json                    {"index", "config", "set", "status": "ok"|"failed",
//                                 "error", "exit_code"}; written last, by rename, so a
//                                 point without it never ran to the end
#include <cstddef>
#include <string>
#include <vector>

#include "sim/json.hpp"
#include "tools/sweep/sweep_spec.hpp"

namespace ipusim::cli {

/// The i-th (0-based) of `count` shards.
struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;
};

/// Parses "i/N" (0 <= i < N); ConfigError naming `flag` otherwise.
Shard parse_shard(const std::string& text, const std::string& flag = "--shard");

/// The point indices of `shard` among `point_count` points: every N-th point starting at
/// i (striding, not blocks, so that neighbouring points — often of similar cost, e.g.
/// growing sizes — spread over the shards). The shards partition [0, point_count).
std::vector<std::size_t> shard_point_indices(std::size_t point_count, const Shard& shard);

/// What running one shard did.
struct ShardRunResult {
  std::size_t ran = 0;
  std::size_t reused = 0;
  std::size_t failures = 0;
};

/// Runs the shard's points (skipping, with `resume`, those whose done.json records
/// success for the same inputs) with `jobs` children at once; each finished point gets
/// its done.json atomically (write to a temporary name, then rename).
ShardRunResult run_shard(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                         const Shard& shard, const std::string& out_dir, unsigned jobs, bool resume,
                         bool progress);

/// The merged state of a sweep's output folder.
struct CollectResult {
  std::vector<Json> rows;            ///< one per point, status "ok", "failed" or "missing"
  std::vector<std::size_t> missing;  ///< points without a done.json for these inputs
  std::vector<std::size_t> failed;   ///< points whose done.json records a failure
};

/// Reads every point folder under `out_dir` (nothing runs). A done.json written for
/// other inputs (an edited sweep) counts as missing.
CollectResult collect_points(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                             const std::string& out_dir);

/// Index lists as ranges for messages: {0,1,2,5,7,8} -> "0-2, 5, 7-8".
std::string index_ranges(const std::vector<std::size_t>& indices);

/// Writes `text` to `path` through a temporary file in the same folder and a rename, so
/// that readers see the old content or the new one, never a part; ConfigError on failure.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace ipusim::cli
