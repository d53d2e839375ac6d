#pragma once
// Sub-commands of the `ipusim` CLI. Each takes the arguments after its name, prints to
// stdout, and returns the exit code (0 ok, 1 regression/validation failure). Bad input
// throws ipusim::ConfigError (exit 2); simulation failures throw SimulationError (exit 3).
#include <string>
#include <vector>

namespace ipusim::cli {

using Args = std::vector<std::string>;

int cmd_run(const Args& args);
int cmd_params(const Args& args);
int cmd_describe(const Args& args);
int cmd_groups(const Args& args);
int cmd_collective(const Args& args);
int cmd_cbr(const Args& args);
int cmd_sweep(const Args& args);
int cmd_plan(const Args& args);
int cmd_regress(const Args& args);
int cmd_validate(const Args& args);
int cmd_calibrate(const Args& args);
int cmd_import(const Args& args);

}  // namespace ipusim::cli
