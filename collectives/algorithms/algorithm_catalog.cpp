#include "collectives/algorithms/algorithm_catalog.hpp"

#include <sstream>

#include "collectives/algorithms/algorithm_table.hpp"

namespace ipusim::coll {
namespace {

/// Wraps `text` at `width` columns, every line after the first indented by `indent`.
std::string wrap(const std::string& text, std::size_t width, const std::string& indent) {
  std::istringstream words(text);
  std::string word, out, line;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n" + indent;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

void print_entries(std::ostringstream& out, const std::vector<CatalogEntry>& entries) {
  const std::string indent(22, ' ');
  for (const auto& e : entries) {
    std::string text = e.what;
    if (!e.needs.empty()) text += " Needs: " + e.needs + ".";
    if (!e.gcl_name.empty()) text += " (GCL: " + e.gcl_name + ")";
    std::string name = "  " + e.name;
    name.resize(indent.size(), ' ');
    out << name << wrap(text, 100 - indent.size(), indent) << "\n";
  }
}

void markdown_rows(std::ostringstream& out, const std::vector<CatalogEntry>& entries) {
  out << "| name | GCL name | what it does | needs |\n|---|---|---|---|\n";
  for (const auto& e : entries) {
    out << "| `" << e.name << "` | " << (e.gcl_name.empty() ? "–" : "`" + e.gcl_name + "`") << " | "
        << e.what << " | " << (e.needs.empty() ? "–" : e.needs) << " |\n";
  }
}

}  // namespace

const std::vector<CatalogEntry>& algorithm_catalog() {
  static const std::vector<CatalogEntry> all = [] {
    std::vector<CatalogEntry> out;
    for (const AlgorithmInfo& a : algorithm_table())
      out.push_back({a.name, a.gcl_name, a.what, a.needs});
    return out;
  }();
  return all;
}

const std::vector<CatalogEntry>& link_config_catalog() {
  static const std::vector<CatalogEntry> all = {
      {"default", "Default", "Rings over the ladder (interleaved ring order), ladder or torus.",
       "GCL supports 1, 2, 4 or 8+ IPUs per replica (not checked)"},
      {"sliding_window", "SlidingWindow",
       "Routes traffic through intermediate IPUs to reach further.",
       "a torus and 1, 2 or 4 IPUs per replica"},
      {"barley_twist", "BarleyTwist",
       "Serpent ring orders; enables quad_directional (auto uses it from 192 KiB per replica for "
       "AllGather, 192 KiB x ranks for ReduceScatter and AllReduce).",
       "a torus and 1 IPU per replica"},
  };
  return all;
}

std::string catalog_help_text() {
  std::ostringstream out;
  out << "algorithms (--algorithm):\n";
  print_entries(out, algorithm_catalog());
  out << "\nIPU-Link configurations (--link-config):\n";
  print_entries(out, link_config_catalog());
  return out.str();
}

std::string catalog_markdown() {
  std::ostringstream out;
  out << "Algorithms (`--algorithm`, `workload.algorithm`):\n\n";
  markdown_rows(out, algorithm_catalog());
  out << "\nIPU-Link configurations (`--link-config`, `workload.link_config`):\n\n";
  markdown_rows(out, link_config_catalog());
  return out.str();
}

}  // namespace ipusim::coll
