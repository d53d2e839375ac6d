// The `ipusim` command line: one executable, sub-commands, exit codes
// 0 ok, 1 regression/validation failure, 2 bad input, 3 simulation error.
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <systemc>

#include "sim/errors.hpp"
#include "sim/output_file.hpp"
#include "sim/run_info.hpp"
#include "tools/cli/collective_scan.hpp"
#include "tools/cli/commands.hpp"

#ifndef IPUSIM_VERSION
#define IPUSIM_VERSION "0.0.0"
#endif

namespace {

using ipusim::cli::Args;

const char* kUsage = R"(ipusim — cycle-approximate simulator of Graphcore IPU systems

usage: ipusim <command> [options]       (ipusim <command> --help for details)

commands:
  run CONFIG        simulate a config (workload on a system) -> report.json, summary
  describe SYSTEM   a system's IPUs, machines, Pods, links, bandwidths, bisection
  params            every config parameter: type, unit, default, range, description
  groups            CommGroup / ReplicaGrouping / VariableSettings arithmetic
  collective        time one collective on a system (and check it on real data);
                    --min-bytes A --max-bytes B [--step-factor F]: over a range of sizes
  cbr               a collective-balanced-reorder layout for a tile mapping
  sweep SWEEP       a grid of runs -> results.csv / results.json (and plots)
  plan CONFIG       search replicas, pipelining, batch, RTS, tensor locations -> plan.json
  regress DIR       compare collective/workload timings with golden baselines
  validate [CASES]  prediction errors, calibration fit, consistency checks
  calibrate CASES   fit ASSUMPTION parameters to measurements -> parameter file
  import MODEL.onnx an ONNX model as PopART takes it: ops, parameters, flops, annotations

options:
  --help            this text
  --version         print the version

exit codes: 0 ok, 1 regression or validation failure, 2 bad input, 3 simulation error
)";

int dispatch(const std::string& command, const Args& args) {
  using namespace ipusim::cli;
  static const std::map<std::string, int (*)(const Args&)> commands = {
      {"run", cmd_run},
      {"describe", cmd_describe},
      {"params", cmd_params},
      {"groups", cmd_groups},
      {"collective", cmd_collective},
      {"cbr", cmd_cbr},
      {"sweep", cmd_sweep},
      {"plan", cmd_plan},
      {"regress", cmd_regress},
      {"validate", cmd_validate},
      {"calibrate", cmd_calibrate},
      {"import", cmd_import}};
  // A size scan runs one child `collective` per size: its own entry point, so that the
  // single-collective command stays as it is.
  if (command == "collective" && is_collective_scan(args)) return cmd_collective_scan(args);
  auto it = commands.find(command);
  if (it == commands.end()) {
    throw ipusim::ConfigError("unknown command '" + command + "' (see ipusim --help)");
  }
  return it->second(args);
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (first == "--version") {
    std::cout << "ipusim " << IPUSIM_VERSION << " (source " << ipusim::ipusim_source_revision()
              << ", SystemC " << sc_core::sc_release() << ")\n";
    return 0;
  }
  // sc_stop() after a failed workload is ours to report, not SystemC's.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  Args args(argv + 2, argv + argc);
  try {
    return dispatch(first, args);
  } catch (const ipusim::ConfigError& e) {
    std::cerr << "ipusim: error: " << e.what() << "\n";
    return 2;
  } catch (const ipusim::WriteError& e) {
    // An output file could not be written (a full disk, a file-size limit): exit 3, but not
    // called a simulation error.
    std::cerr << "ipusim: write error: " << e.what() << "\n";
    return 3;
  } catch (const ipusim::SimulationError& e) {
    std::cerr << "ipusim: simulation error: " << e.what() << "\n";
    return 3;
  } catch (const sc_core::sc_report& e) {
    std::cerr << "ipusim: SystemC error: " << e.what() << "\n";
    return 3;
  } catch (const std::bad_alloc&) {
    std::cerr << "ipusim: simulation error: out of memory\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "ipusim: internal error: " << e.what() << "\n";
    return 3;
  }
}

// libsystemc.so defines main(); ours wins and hides the SystemC banner before the
// kernel can print it, then enters the kernel as the library's main would.
int main(int argc, char* argv[]) {
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
