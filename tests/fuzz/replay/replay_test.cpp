// Replays every file of tests/fuzz/corpus/<target>/ (seeds and every crasher the fuzzers
// found) through the fuzzed entry points, without libFuzzer: CI keeps the findings fixed.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "tests/fuzz/fuzz_entries.hpp"

namespace fs = std::filesystem;

namespace {

ipusim::fuzz::Entry entry_named(const std::string& name) {
  using namespace ipusim::fuzz;
  if (name == "config") return fuzz_config;
  if (name == "cbr") return fuzz_cbr;
  if (name == "sweep") return fuzz_sweep;
  if (name == "graph") return fuzz_graph;
  if (name == "onnx") return fuzz_onnx;
  return nullptr;
}

/// Runs every corpus file of `target`; returns how many there were.
std::size_t replay(const std::string& target) {
  const char* env = std::getenv("IPUSIM_FUZZ_CORPUS");
  const fs::path dir = fs::path(env && *env ? env : IPUSIM_FUZZ_CORPUS) / target;
  const auto entry = entry_named(target);
  REQUIRE(entry != nullptr);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    INFO("corpus file " << f.string());
    CHECK_NOTHROW(entry(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  }
  return files.size();
}

}  // namespace

TEST_CASE("fuzz corpus replay: config loader with includes and --set", "[fuzz]") {
  CHECK(replay("config") > 0);
}
TEST_CASE("fuzz corpus replay: CBR tile mapping", "[fuzz]") { CHECK(replay("cbr") > 0); }
TEST_CASE("fuzz corpus replay: sweep spec", "[fuzz]") { CHECK(replay("sweep") > 0); }
TEST_CASE("fuzz corpus replay: explicit training graph", "[fuzz]") { CHECK(replay("graph") > 0); }
TEST_CASE("fuzz corpus replay: ONNX importer", "[fuzz]") { CHECK(replay("onnx") > 0); }
