#include "tools/cli/html_output.hpp"

#include <cmath>
#include <filesystem>
#include <iostream>

#include "models/ipu/tile_array.hpp"
#include "tools/cli/run_outputs.hpp"
#include "tools/html/configs_page.hpp"
#include "tools/html/run_page.hpp"
#include "tools/html/scan_page.hpp"
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

int write_plan_html(const std::string& out_dir, const Json& plan, bool quiet) {
  html::ConfigPageOptions options;
  options.title = "ipusim plan: " + std::filesystem::path(plan.value("config", "")).stem().string();
  options.subtitle = "Every simulated configuration of the plan; the Pareto front is plan's.";
  options.summary.push_back({"system", plan.value("system", "")});
  options.summary.push_back(
      {"global batch", plan.contains("global_batch") ? plan["global_batch"].dump() : ""});
  options.summary.push_back({"objective", plan.value("objective", "")});
  const Json counts = plan.value("counts", Json::object());
  options.summary.push_back(
      {"enumerated / pruned / simulated", counts.value("enumerated", Json(0)).dump() + " / " +
                                              counts.value("pruned_total", Json(0)).dump() + " / " +
                                              counts.value("simulated", Json(0)).dump()});
  std::vector<html::ConfigPoint> points;
  const Json entries = plan.value("configurations", Json::array());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Json& e = entries[i];
    const std::string status = e.value("status", "");
    if (status != "ok" && status != "failed") continue;  // pruned / pending: no result to draw
    // plan.json's keys, renamed to the page's row keys (tools/plan/README.md has the schema).
    Json row = {{"config", e.value("config", Json::object())},
                {"label", "#" + std::to_string(e.value("index", i))},
                {"samples_per_s", e.value("samples_per_s", Json())},
                {"step_time_ns", e.value("time_per_step_ns", Json())},
                {"max_sram_per_tile_bytes", e.value("sram_bytes_per_tile", Json())},
                {"streaming_memory_bytes", e.value("streaming_memory_bytes", Json())},
                {"fits", e.value("fits", Json(false)).is_boolean() ? e["fits"] : Json(false)},
                {"pareto", e.value("pareto", Json(false)).is_boolean() ? e["pareto"] : Json(false)},
                {"status", status == "ok" ? "ok" : "failed: " + e.value("error", Json("")).dump()}};
    for (const char* key :
         {"samples_per_s", "step_time_ns", "max_sram_per_tile_bytes", "streaming_memory_bytes"})
      if (row[key].is_null()) row.erase(key);
    points.push_back(
        html::config_point_from_row(row, "plan.json: /configurations/" + std::to_string(i)));
  }
  return write(page_path(out_dir), html::configurations_page(points, options), quiet);
}

int write_collective_scan_html(const std::string& out_dir, const Json& results, bool quiet) {
  return write(page_path(out_dir), html::collective_scan_page(results), quiet);
}

int write_validation_html(const std::string& path, const Json& validation, bool quiet) {
  return write(path, html::validation_page(validation), quiet);
}

}  // namespace ipusim::cli
