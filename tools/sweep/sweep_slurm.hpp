#pragma once
// `ipusim sweep SPEC --slurm`: an sbatch job-array script whose task t runs
// `ipusim sweep SPEC --shard t/K --resume` into the shared output folder (so that a
// resubmitted array skips the points that finished), and its submission.
#include <cstddef>
#include <string>

namespace ipusim::cli {

/// Everything the job-array script needs.
struct SlurmScriptOptions {
  std::string exe;             ///< absolute path of ipusim (same path on every node)
  std::string sweep_file;      ///< absolute path of the sweep file
  std::string out_dir;         ///< absolute path of the shared output folder
  std::string job_name;        ///< --job-name
  std::size_t array_size = 1;  ///< K tasks, ids 0..K-1; task t runs shard t/K
  unsigned jobs_per_task = 1;  ///< simulations at once per task (= --cpus-per-task)
  std::string partition;       ///< --partition ("" = the cluster's default)
  std::string time_limit;      ///< --time ("" = the partition's default)
};

/// The array size actually used: the requested one (0 = one task per point) capped at
/// the point count (an empty task would only cost a scheduler slot) and at least 1.
std::size_t effective_array_size(std::size_t requested, std::size_t point_count);

/// Checks a Slurm time limit (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS);
/// ConfigError naming --time otherwise.
void check_slurm_time(const std::string& text);

/// Checks a partition name (non-empty, no spaces, commas allowed for a list);
/// ConfigError naming --partition otherwise.
void check_slurm_partition(const std::string& text);

/// The script text (bash with #SBATCH lines). Paths are quoted for the shell
/// (shell_quote); a log folder that sbatch cannot read back from an #SBATCH line ('#',
/// quotes, '%', control characters) gets no --output/--error lines: the script redirects
/// its streams to the same per-task files itself.
std::string slurm_script(const SlurmScriptOptions& options);

/// A word quoted for bash: single-quoted ('it'\''s'), or $'...' with \xHH escapes when it
/// holds a newline or another control character (so it always stays on one line).
std::string shell_quote(const std::string& word);

/// Submits `script_path` with `sbatch --parsable` and returns the job id it printed;
/// ConfigError (naming --slurm) when sbatch is missing or refuses the script.
std::string submit_slurm_script(const std::string& script_path, const std::string& log_dir);

}  // namespace ipusim::cli
