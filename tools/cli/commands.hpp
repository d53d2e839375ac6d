#pragma once
// Sub-commands of the `ipusim` CLI, one table (commands.cpp) that drives dispatch, the
// `ipusim --help` listing and the "did you mean" of an unknown command. Each command takes the
// arguments after its name, prints to stdout, and returns the exit code (0 ok, 1
// regression/validation failure). Bad input throws ipusim::ConfigError (exit 2); simulation
// failures throw SimulationError (exit 3).
//
// Adding a command: its cmd_<name>.cpp (tools/CMakeLists.txt globs cli/*.cpp) and one row in
// commands.cpp.
#include <string>
#include <vector>

namespace ipusim::cli {

using Args = std::vector<std::string>;

/// One sub-command.
struct Command {
  const char* name;      ///< what the user types: `ipusim <name>`
  const char* synopsis;  ///< its operands in the listing ("CONFIG", "" for none)
  const char* summary;   ///< one line for the listing; '\n' starts an indented further line
  int (*run)(const Args& args);
};

/// The sub-commands, in listing order.
const std::vector<Command>& commands();
/// `ipusim --help`: usage, the command listing and the global options.
std::string usage_text();
/// Runs the command `name` with `args`; ConfigError naming the closest command if unknown.
int dispatch(const std::string& name, const Args& args);

}  // namespace ipusim::cli
