// The command table of the `ipusim` CLI (see commands.hpp).
#include "tools/cli/commands.hpp"

#include <algorithm>
#include <sstream>

#include "sim/config.hpp"
#include "sim/errors.hpp"
#include "tools/cli/collective_scan.hpp"

namespace ipusim::cli {

// Entry points (each in its cmd_<name>.cpp); declared here so that adding one touches only its
// own file and the table below.
int cmd_run(const Args& args);
int cmd_describe(const Args& args);
int cmd_params(const Args& args);
int cmd_groups(const Args& args);
int cmd_collective(const Args& args);
int cmd_cbr(const Args& args);
int cmd_sweep(const Args& args);
int cmd_plan(const Args& args);
int cmd_regress(const Args& args);
int cmd_validate(const Args& args);
int cmd_calibrate(const Args& args);
int cmd_import(const Args& args);

namespace {

/// A size scan runs one child `collective` per size: its own entry point, so that the
/// single-collective command stays as it is.
int collective_or_scan(const Args& args) {
  return is_collective_scan(args) ? cmd_collective_scan(args) : cmd_collective(args);
}

}  // namespace

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"run", "CONFIG", "simulate a config (workload on a system) -> report.json, summary",
       cmd_run},
      {"describe", "SYSTEM", "a system's IPUs, machines, Pods, links, bandwidths, bisection",
       cmd_describe},
      {"params", "", "every config parameter: type, unit, default, range, description", cmd_params},
      {"groups", "", "CommGroup / ReplicaGrouping / VariableSettings arithmetic", cmd_groups},
      {"collective", "",
       "time one collective on a system (and check it on real data);\n"
       "--min-bytes A --max-bytes B [--step-factor F]: over a range of sizes",
       collective_or_scan},
      {"cbr", "", "a collective-balanced-reorder layout for a tile mapping", cmd_cbr},
      {"sweep", "SWEEP", "a grid of runs -> results.csv / results.json (and plots)", cmd_sweep},
      {"plan", "CONFIG", "search replicas, pipelining, batch, RTS, tensor locations -> plan.json",
       cmd_plan},
      {"regress", "DIR", "compare collective/workload timings with golden baselines", cmd_regress},
      {"validate", "[CASES]", "prediction errors, calibration fit, consistency checks",
       cmd_validate},
      {"calibrate", "CASES", "fit ASSUMPTION parameters to measurements -> parameter file",
       cmd_calibrate},
      {"import", "MODEL.onnx",
       "an ONNX model as PopART takes it: ops, parameters, flops, annotations", cmd_import},
  };
  return table;
}

std::string usage_text() {
  constexpr std::size_t kColumn = 18;  // width of "name SYNOPSIS" before the summary
  std::ostringstream out;
  out << "ipusim — cycle-approximate simulator of Graphcore IPU systems\n\n"
         "usage: ipusim <command> [options]       (ipusim <command> --help for details)\n\n"
         "commands:\n";
  for (const Command& c : commands()) {
    std::string head = c.name;
    if (*c.synopsis) head += std::string(" ") + c.synopsis;
    head.resize(std::max(head.size() + 1, kColumn), ' ');
    std::string summary = c.summary;
    for (std::size_t nl; (nl = summary.find('\n')) != std::string::npos;) {
      out << "  " << head << summary.substr(0, nl) << "\n";
      head.assign(kColumn, ' ');
      summary = summary.substr(nl + 1);
    }
    out << "  " << head << summary << "\n";
  }
  out << "\noptions:\n"
         "  --help            this text\n"
         "  --version         print the version\n\n"
         "exit codes: 0 ok, 1 regression or validation failure, 2 bad input, 3 simulation error\n";
  return out.str();
}

int dispatch(const std::string& name, const Args& args) {
  std::vector<std::string> names;
  for (const Command& c : commands()) {
    if (name == c.name) return c.run(args);
    names.push_back(c.name);
  }
  std::string msg = "unknown command '" + name + "'";
  const std::string guess = closest_match(name, names);
  if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
  throw ConfigError(msg + " (see ipusim --help)");
}

}  // namespace ipusim::cli
