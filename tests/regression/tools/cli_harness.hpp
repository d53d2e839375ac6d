#pragma once
// End-to-end harness for the CLI tools: runs the CLI with arguments, captures stdout and
// stderr, and gives a scratch folder and paths into the source tree ($IPUSIM_BIN and
// $IPUSIM_SOURCE_DIR override the paths CMake compiles in).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/json.hpp"
#include "tools/common/subprocess.hpp"
#include "tools/sweep/sweep_input.hpp"

namespace ipusim::test {

namespace fs = std::filesystem;

/// What one CLI invocation did.
struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// A scratch folder removed afterwards (kept when IPUSIM_KEEP_TEST_DIRS is set).
struct Scratch {
  fs::path dir;
  Scratch() {
    dir = fs::temp_directory_path() / ("ipusim_e2e_" + std::to_string(::getpid()) + "_" +
                                       std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(dir);
  }
  ~Scratch() {
    if (!std::getenv("IPUSIM_KEEP_TEST_DIRS")) fs::remove_all(dir);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  /// Writes `text` to `name` and returns the full path.
  std::string write(const std::string& name, const std::string& text) const {
    fs::create_directories((dir / name).parent_path());
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
  /// The full path of `name` inside the folder.
  std::string path(const std::string& name) const { return (dir / name).string(); }
};

/// Reads a whole text file.
inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The CLI binary under test: $IPUSIM_BIN, else the path CMake compiled in.
inline std::string cli_binary() {
  const char* bin = std::getenv("IPUSIM_BIN");
#ifdef IPUSIM_TEST_BIN
  if (!bin || !*bin) bin = IPUSIM_TEST_BIN;
#endif
  if (!bin || !*bin) FAIL("IPUSIM_BIN is not set and no CLI path was compiled in");
  return bin;
}

/// A file in the source tree: under $IPUSIM_SOURCE_DIR, else the dir CMake compiled in.
inline std::string source_path(const std::string& relative) {
  const char* src = std::getenv("IPUSIM_SOURCE_DIR");
#ifdef IPUSIM_TEST_SOURCE_DIR
  if (!src || !*src) src = IPUSIM_TEST_SOURCE_DIR;
#endif
  if (!src || !*src) FAIL("IPUSIM_SOURCE_DIR is not set and no source dir was compiled in");
  return (fs::path(src) / relative).string();
}

/// Runs `ipusim <args...>` with stdout/stderr captured through files in `scratch`.
inline CliResult run_cli(const Scratch& scratch, const std::vector<std::string>& args) {
  static int counter = 0;
  const std::string tag = std::to_string(counter++);
  const std::string out = scratch.path("cli_" + tag + ".out");
  const std::string err = scratch.path("cli_" + tag + ".err");
  std::vector<std::string> argv = {cli_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  const cli::ProcessResult r = cli::run_process({argv, out, err});
  CliResult result{r.exit_code, read_text(out), read_text(err)};
  return result;
}

/// Runs a Python script with Debian's interpreter (the one with python3-matplotlib).
inline CliResult run_python(const Scratch& scratch, const std::vector<std::string>& args) {
  const std::string out = scratch.path("py.out");
  const std::string err = scratch.path("py.err");
  std::vector<std::string> argv = {"/usr/bin/python3"};
  argv.insert(argv.end(), args.begin(), args.end());
  const cli::ProcessResult r = cli::run_process({argv, out, err});
  return {r.exit_code, read_text(out), read_text(err)};
}

/// The microbenchmark config used by the end-to-end tests: one lone IPU-Link transfer on
/// an IPU-POD16 (also a validation case).
inline std::string rail_transfer_config() {
  return source_path("configs/validation/setups/ipulink_rail_transfer_pod16.json");
}

/// The config parameter perturbed to make a golden timing change: IPU-Link bandwidth.
inline const char* kLinkBandwidthSet = "ipu_link.bandwidth_GBps_per_link=12.5";

}  // namespace ipusim::test
