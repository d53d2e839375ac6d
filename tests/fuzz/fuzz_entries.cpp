#include "tests/fuzz/fuzz_entries.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "collectives/sharding/cbr.hpp"
#include "sim/config.hpp"
#include "sim/errors.hpp"
#include "sim/json_parse.hpp"
#include "sim/params.hpp"
#include "tools/cli/cbr_input.hpp"
#include "tools/sweep/sweep_spec.hpp"

namespace ipusim::fuzz {
namespace fs = std::filesystem;

namespace {

/// A private folder for the config target's files (under /dev/shm when there is one, so
/// that the fuzzer does not wear a disk), created once per process.
const fs::path& work_dir() {
  static const fs::path dir = [] {
    const fs::path base =
        fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    fs::path d = base / ("ipusim_fuzz_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::vector<std::string> split(const std::uint8_t* data, std::size_t size, char sep) {
  std::vector<std::string> parts(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (static_cast<char>(data[i]) == sep)
      parts.emplace_back();
    else
      parts.back() += static_cast<char>(data[i]);
  }
  return parts;
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::trunc | std::ios::binary);
  out << text;
}

}  // namespace

int fuzz_config(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> parts = split(data, size, '\0');
  const fs::path& dir = work_dir();
  const char* names[] = {"main.json", "a.json", "b.json", "c.json"};
  for (std::size_t i = 0; i < 4; ++i)
    write_file(dir / names[i], i < parts.size() && i < 4 ? parts[i] : "{}");
  try {
    ConfigDoc doc = ConfigDoc::load_file((dir / "main.json").string());
    if (parts.size() > 4) {
      std::istringstream sets(parts[4]);
      for (std::string line; std::getline(sets, line);) {
        try {
          doc.apply_override(line);  // each assignment on its own: a rejected one is not the end
        } catch (const ConfigError&) {
        }
      }
    }
    (void)doc.origin_of("/workload/kind");
  } catch (const ConfigError&) {
  }
  return 0;
}

int fuzz_cbr(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint64_t replicas = 1 + data[0] % 64;
  const std::uint64_t grain = 1 + data[1] % 8;
  const std::string text(reinterpret_cast<const char*>(data + 2), size - 2);
  try {
    const coll::TileMapping mapping = cli::parse_tile_mapping(text, "fuzz");
    const std::uint64_t n = cli::check_cbr_sizes(mapping, replicas, grain, 4);
    if (n > 100000) return 0;  // accepted, but too slow to lay out on every execution
    const coll::CollectiveBalancedReorder cbr(mapping, static_cast<unsigned>(replicas), grain);
    for (unsigned r = 0; r < replicas; ++r) (void)cbr.getReplicaShard(r);
    (void)coll::tileShardLoadWithCbr(mapping, static_cast<unsigned>(replicas), grain);
  } catch (const ConfigError&) {
  } catch (const coll::CbrError&) {
  }
  return 0;
}

int fuzz_sweep(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const cli::SweepSpec spec =
        cli::parse_sweep(parse_json_text(text, "fuzz_sweep.json"), "fuzz_sweep.json");
    // Expansion is linear in the points; 256 keeps executions fast (count_points guards the rest).
    if (cli::count_points(spec) <= 256) (void)cli::expand_points(spec);
  } catch (const ConfigError&) {
  }
  return 0;
}

}  // namespace ipusim::fuzz
