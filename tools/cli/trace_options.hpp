#pragma once
// Trace and progress options shared by `ipusim run` and `ipusim collective`:
// --trace-ipus, --trace-window, --trace-tiers, --trace-max-bytes, and the progress line.
#include <boost/program_options.hpp>
#include <string>

namespace ipusim::cli {

/// Adds the --trace-* filter options to `opts`.
void add_trace_options(boost::program_options::options_description& opts);
/// Reads the --trace-* options (ConfigError, exit 2, on bad values) for the next begin_run().
void read_trace_options(const boost::program_options::variables_map& vm);
/// Before simulate(): opens `out_dir`/trace.json for streaming when `trace`, and starts the
/// progress line (stderr; nothing when `quiet`).
void begin_run(const std::string& out_dir, bool trace, bool quiet);
/// After simulate(): closes the trace (valid JSON even after a failure) and the progress line.
/// Throws nothing (SystemC's stacks are alive; run_outputs.hpp): a failed trace write is
/// printed as a simulation error and its exit code, 3, returned; 0 otherwise.
int end_run();

}  // namespace ipusim::cli
