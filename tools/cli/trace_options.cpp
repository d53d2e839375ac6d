#include "tools/cli/trace_options.hpp"

#include <unistd.h>

#include <filesystem>

#include "sim/errors.hpp"
#include "sim/progress.hpp"
#include "sim/trace.hpp"
#include "sim/units.hpp"
#include "tools/cli/run_outputs.hpp"
#include "tools/common/cli_util.hpp"

namespace ipusim::cli {
namespace {

/// The filter read by read_trace_options() for the run about to start.
TraceFilter& pending_filter() {
  static TraceFilter filter;
  return filter;
}

}  // namespace

void add_trace_options(boost::program_options::options_description& opts) {
  namespace po = boost::program_options;
  register_all_params();  // the models register the tier names --trace-tiers takes
  const std::string tiers_help = "trace only these tiers: " + trace_tier_names(",");
  opts.add_options()("trace-ipus", po::value<std::string>(),
                     "trace only these IPUs, e.g. 0-3,8 (with --trace)")(
      "trace-window", po::value<std::string>(),
      "trace only START_NS:END_NS of simulated time (END may be empty)")(
      "trace-tiers", po::value<std::string>(), tiers_help.c_str())(
      "trace-max-bytes", po::value<std::string>(),
      "stop writing the trace at this size (the file stays valid): 20000000, 5MB, 1GiB, ...");
}

void read_trace_options(const boost::program_options::variables_map& vm) {
  // The filters shape trace.json; without --trace there is none, so they would do nothing.
  for (const char* flag : {"trace-ipus", "trace-window", "trace-tiers", "trace-max-bytes"}) {
    if (vm.count(flag) && !vm.count("trace")) {
      throw ConfigError(
          std::string("--") + flag +
          ": only with --trace (it filters trace.json, which is written only with --trace)");
    }
  }
  TraceFilter f;
  if (vm.count("trace-ipus")) f.set_ipus(vm["trace-ipus"].as<std::string>());
  if (vm.count("trace-window")) f.set_window(vm["trace-window"].as<std::string>());
  if (vm.count("trace-tiers")) f.set_tiers(vm["trace-tiers"].as<std::string>());
  if (vm.count("trace-max-bytes"))
    f.max_bytes = parse_size_bytes(vm["trace-max-bytes"].as<std::string>(), "--trace-max-bytes");
  pending_filter() = f;
}

void begin_run(const std::string& out_dir, bool trace, bool quiet) {
  if (trace) {
    std::filesystem::create_directories(out_dir);
    TraceWriter::instance().open((std::filesystem::path(out_dir) / "trace.json").string(),
                                 pending_filter());
  } else {
    TraceWriter::instance().enable(false);
  }
  RunProgress::instance().start(!quiet, isatty(STDERR_FILENO) != 0);
}

int end_run() {
  RunProgress::instance().finish();
  const std::string error = TraceWriter::instance().try_close();
  return error.empty() ? 0 : print_run_failure(error, 3);
}

}  // namespace ipusim::cli
