#include "tools/cli_util.hpp"

#include "models/model_params.hpp"
#include "runtime/workloads/runtime_params.hpp"
#include "sim/errors.hpp"
#include "sim/output.hpp"

namespace ipusim::cli {

boost::program_options::variables_map parse_options(
    const boost::program_options::options_description& opts,
    const boost::program_options::positional_options_description& positional, const Args& args) {
  namespace po = boost::program_options;
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw ConfigError(std::string(e.what()) + " (see --help)");
  }
  return vm;
}

void register_all_params() {
  static bool done = false;
  if (done) return;
  done = true;
  register_sim_params();
  register_model_params();
  register_runtime_params();
}

}  // namespace ipusim::cli
