#pragma once
// A scratch folder for the tools' unit tests, removed afterwards.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/errors.hpp"

namespace ipusim::test {

/// A temporary folder with helpers to write and read files.
struct Scratch {
  std::filesystem::path dir;
  Scratch() {
    dir = std::filesystem::temp_directory_path() /
          ("ipusim_tools_" + std::to_string(::getpid()) + "_" +
           std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(dir);
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  /// Writes `text` to `name` inside the folder and returns the full path.
  std::string write(const std::string& name, const std::string& text) const {
    std::filesystem::create_directories((dir / name).parent_path());
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
  /// Reads a whole file.
  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

/// The message of the ConfigError `f` throws, or "" if it throws none.
template <typename F>
std::string config_error_of(F&& f) {
  try {
    f();
  } catch (const ipusim::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace ipusim::test
