#pragma once
// Error types shared by every layer. The CLI maps them to exit codes:
// ConfigError -> 2 (bad input), SimulationError -> 3 (deadlock, internal).
#include <stdexcept>
#include <string>

namespace ipusim {

/// Bad input: a config file, a JSON path or a command-line value is wrong. Exit code 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The simulation itself failed (deadlock, inconsistent model state). Exit code 3.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ipusim
