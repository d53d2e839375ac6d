// `ipusim describe SYSTEM`: IPUs, machines, Pods, tiles, SRAM, every link kind with count,
// bandwidth per direction and latency, and bisection bandwidths.
#include <spdlog/spdlog.h>

#include <iostream>

#include "models/system/describe.hpp"
#include "models/system/system.hpp"
#include "models/system/system_retire.hpp"
#include "sim/config.hpp"
#include "sim/logging.hpp"
#include "tools/common/cli_util.hpp"

namespace ipusim::cli {

int cmd_describe(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts(
      "ipusim describe SYSTEM [--json] [--set k=v]...\n\n"
      "SYSTEM is any config: its chip, ipu_link, machine and system sections, and the\n"
      "Poplar SDK of its software section (a workload is ignored). A config without them\n"
      "(e.g. a workload-only file) describes the default system, the one `ipusim run`\n"
      "would simulate it on: the parameter registry's defaults, a Pod64 of IPU-M2000s.\n\n"
      "options");
  opts.add_options()("help", "show this help")(
      "quiet,q", "print only the result: warnings off (the command prints nothing else)")(
      "system", po::value<std::string>(),
      "system: a preset name (pod4, pod16, pod64, pod128, pod256, bow_pod64, multipod, ...) or a "
      "config file")("json", "print JSON")("set",
                                           po::value<std::vector<std::string>>()->composing(),
                                           "override a parameter (repeatable)")(
      "log-level", po::value<std::string>()->default_value("warn"), "spdlog level");
  po::positional_options_description pos;
  pos.add("system", 1);
  const auto vm = parse_options(opts, pos, args);
  if (vm.count("help") || !vm.count("system")) {
    std::cout << opts << "\n";
    return vm.count("help") ? 0 : 2;
  }
  setup_logging(vm.count("quiet") ? "error" : vm["log-level"].as<std::string>());
  register_all_params();
  ConfigDoc doc = ConfigDoc::load_file(
      resolve_system_config(vm["system"].as<std::string>(), "describe SYSTEM"));
  if (vm.count("set")) {
    for (const auto& s : vm["set"].as<std::vector<std::string>>()) doc.apply_override(s);
  }
  auto system = build_system(doc);
  ConfigNode root(doc, "");
  for (const char* key : {"chip", "ipu_link", "machine", "system", "software", "sim", "workload",
                          "name", "description"})
    root.mark_used(key);
  root.finish();
  const Json description = describe_system(*system);
  if (vm.count("json")) {
    std::cout << description.dump(2) << "\n";
  } else {
    std::cout << describe_table(description);
  }
  retire_system(std::move(system));
  return 0;
}

}  // namespace ipusim::cli
