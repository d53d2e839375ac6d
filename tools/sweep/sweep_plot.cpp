#include "tools/sweep/sweep_plot.hpp"

#include <filesystem>

#include "tools/common/subprocess.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

std::string plot_sweep_results(const std::string& out_dir, const std::string& memory_column) {
  // Debian's interpreter is the one with python3-matplotlib; a virtualenv's may lack it.
  const std::string python = "/usr/bin/python3";
  const std::string script = locate_source_file("tools/plot_sweep.py");
  if (script.empty())
    return "cannot find tools/plot_sweep.py (set IPUSIM_SOURCE_DIR to the source tree)";
  if (!fs::exists(python)) return python + " not found";
  const std::string log = (fs::path(out_dir) / "plot.log").string();
  std::vector<std::string> argv = {python, script, (fs::path(out_dir) / "results.json").string(),
                                   "--out", out_dir};
  if (!memory_column.empty()) argv.insert(argv.end(), {"--memory-column", memory_column});
  const ProcessResult r = run_process({argv, log, log});
  if (r.ok()) return "";
  const std::string last = last_line_of(log);
  return "plot_sweep.py failed" + (last.empty() ? std::string() : ": " + last) + " (see " + log +
         ")";
}

}  // namespace ipusim::cli
