// The `ipusim` command line: one executable, sub-commands, exit codes
// 0 ok, 1 regression/validation failure, 2 bad input, 3 simulation error.
#include <cstdlib>
#include <iostream>
#include <string>
#include <systemc>

#include "sim/errors.hpp"
#include "sim/output_file.hpp"
#include "sim/run_info.hpp"
#include "tools/cli/commands.hpp"

#ifndef IPUSIM_VERSION
#define IPUSIM_VERSION "0.0.0"
#endif

int sc_main(int argc, char* argv[]) {
  if (argc < 2) {
    std::cerr << ipusim::cli::usage_text();
    return 2;
  }
  const std::string first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    std::cout << ipusim::cli::usage_text();
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
  const ipusim::cli::Args args(argv + 2, argv + argc);
  try {
    return ipusim::cli::dispatch(first, args);
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
