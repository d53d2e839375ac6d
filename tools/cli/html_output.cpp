#include "tools/cli/html_output.hpp"

#include <cmath>
#include <filesystem>
#include <iostream>

#include "models/ipu/tile_array.hpp"
#include "tools/cli/run_outputs.hpp"
#include "tools/html/configs_page.hpp"
#include "tools/html/run_page.hpp"
#include "tools/html/validate_page.hpp"

namespace ipusim::cli {

namespace {

int write(const std::string& path, const html::Page& page, bool quiet) {
  const html::PageWriteResult r = html::write_page(path, html::render_page(page));
  if (r.exit_code != 0) return print_run_failure(r.error, r.exit_code);
  if (!quiet) std::cout << "  wrote " << path << "\n";
  return 0;
}

std::string page_path(const std::string& out_dir) {
  return (std::filesystem::path(out_dir) / "report.html").string();
}

}  // namespace

void collect_html_details() { TileArray::set_sram_histogram_in_stats(true); }

int write_run_html(const std::string& out_dir, const Json& report, bool quiet) {
  return write(page_path(out_dir), html::run_page(report), quiet);
}

int write_sweep_html(const std::string& out_dir, const Json& results,
                     const std::string& memory_column, bool quiet) {
  html::ConfigPageOptions options;
  options.title =
      "ipusim sweep: " + std::filesystem::path(results.value("sweep", "")).stem().string();
  options.subtitle = "Every point of the sweep; configuration = its axis values.";
  options.summary.push_back({"base config", results.value("base", "")});
  // SRAM per tile is the x axis when the rows have it; else the sweep's memory column.
  std::string sram_column = memory_column;
  for (const Json& row : results.value("rows", Json::array())) {
    if (row.contains("memory.max_tile_bytes") && row["memory.max_tile_bytes"].is_number())
      sram_column = "memory.max_tile_bytes";
  }
  options.summary.push_back(
      {"memory column (x axis, Pareto front)", sram_column.empty() ? "(none)" : sram_column});
  for (const Json& row : results.value("rows", Json::array())) {
    if (row.contains("memory.sram_per_tile_bytes") &&
        row["memory.sram_per_tile_bytes"].is_number()) {
      options.sram_per_tile_bytes = row["memory.sram_per_tile_bytes"].get<double>();
      break;
    }
  }
  const auto points = html::sweep_config_points(results, sram_column);
  return write(page_path(out_dir), html::configurations_page(points, options), quiet);
}

int write_validation_html(const std::string& path, const Json& validation, bool quiet) {
  return write(path, html::validation_page(validation), quiet);
}

}  // namespace ipusim::cli
