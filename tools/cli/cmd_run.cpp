// `ipusim run CONFIG`: simulate a config, write report.json + resolved_config.json
// (+ trace.json with --trace), print a summary.
#include <filesystem>
#include <iostream>

#include "runtime/workloads/simulation.hpp"
#include "runtime/workloads/training/model_generators.hpp"
#include "runtime/workloads/workload_kinds.hpp"
#include "sim/logging.hpp"
#include "sim/output.hpp"
#include "sim/run_info.hpp"
#include "sim/trace.hpp"
#include "tools/cli/html_output.hpp"
#include "tools/cli/run_outputs.hpp"
#include "tools/cli/trace_options.hpp"
#include "tools/common/cli_util.hpp"
#include "tools/html/run_page.hpp"
#include "tools/sweep/sweep_input.hpp"

namespace ipusim::cli {

int run_config_doc(ConfigDoc& doc, const std::string& out_dir, bool trace, bool quiet,
                   bool html = false) {
  RunInfo info;
  if (html) collect_html_details();
  begin_run(out_dir, trace, quiet);
  SimulationResult result = simulate(doc);
  // From here on nothing throws (run_outputs.hpp: SystemC's stacks are alive after sc_start).
  if (const int code = end_run()) return code;
  if (const int code = report_simulation_failure(result)) return code;
  Json report = std::move(result.report);
  report["run_info"] = info.to_json(result.num_ipus);
  // How much of the traffic the symmetry folding played as representatives (a speed fact).
  if (result.folded_flows > 0) report["run_info"]["network_folded_flows"] = result.folded_flows;
  if (result.unfolded_flows > 0)
    report["run_info"]["network_unfolded_flows"] = result.unfolded_flows;
  // Of those, the batches a collective played before (or a remote exchange) handed over folded.
  if (result.prefolded_batches > 0)
    report["run_info"]["network_prefolded_batches"] = result.prefolded_batches;
  // The page sees the SRAM histogram; report.json stays as it is without --html.
  const Json page_report = html ? report : Json();
  if (html) html::strip_sram_histograms(report);
  std::string report_path;
  if (const int code = write_run_outputs(out_dir, report, doc.resolved(), &report_path))
    return code;
  if (!quiet) {
    std::cout << result.summary;
    std::cout << "  wrote " << report_path << ", resolved_config.json"
              << (trace ? ", trace.json" : "") << "\n";
  }
  if (html) return write_run_html(out_dir, page_report, quiet);
  return 0;
}

int cmd_run(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts(
      "ipusim run CONFIG [--system SYSTEM] [--set path.to.key=value]... [--out DIR] [--trace] "
      "[--html] [--quiet]\n"
      "CONFIG and SYSTEM paths that do not exist here are looked up in the ipusim checkout\n"
      "(configs/default.json works from any folder). Sizes and rates in --set take units:\n"
      "--set workload.bytes=1GiB, --set ipu_link.bandwidth_GBps_per_link=128Gbit/s.");
  opts.add_options()("help", "show this help")("config", po::value<std::string>(),
                                               "config file (JSON)")(
      "system", po::value<std::string>(),
      "run the workload on this system: a preset name (pod16, pod64, pod256, ...) or a system "
      "config; its chip, "
      "ipu_link, machine and system sections replace the config's (its sim settings apply on top; "
      "the config's software section, the Poplar SDK the run used, stays); --set applies after")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a parameter, e.g. --set ipu_link.latency_ns=150 (repeatable)")(
      "out", po::value<std::string>(), "output folder (default out/<config name>)")(
      "trace", "also write trace.json (Chrome/Perfetto trace events)")(
      "html", "also write report.html: one self-contained page of the run (opens offline)")(
      "quiet,q", "print nothing on success")("json",
                                             "print report.json to stdout instead of the summary")(
      "log-level", po::value<std::string>()->default_value("warn"),
      "trace|debug|info|warn|error|off");
  add_trace_options(opts);
  po::positional_options_description pos;
  pos.add("config", 1);
  const auto vm = parse_options(opts, pos, args);
  if (vm.count("help") || !vm.count("config")) {
    std::cout << opts << "\nWorkload kinds (/workload/kind):\n"
              << workload_kinds_help()
              << "Model generators of training and inference (/workload/model/generator):\n"
              << model_generators_help() << "\n";
    return vm.count("help") ? 0 : 2;
  }
  setup_logging(vm["log-level"].as<std::string>());
  read_trace_options(vm);
  register_all_params();
  const std::string config = resolve_input_path(vm["config"].as<std::string>());
  ConfigDoc doc = ConfigDoc::load_file(config);
  if (vm.count("system")) {
    const ConfigDoc system =
        ConfigDoc::load_file(resolve_system_config(vm["system"].as<std::string>()));
    doc.take_sections(system, system_sections(), {"sim"});
  }
  if (vm.count("set")) {
    for (const auto& s : vm["set"].as<std::vector<std::string>>()) doc.apply_override(s);
  }
  const std::string out = vm.count("out") ? vm["out"].as<std::string>()
                                          : "out/" + std::filesystem::path(config).stem().string();
  const bool json = vm.count("json") > 0;
  const int code = run_config_doc(doc, out, vm.count("trace") > 0, vm.count("quiet") > 0 || json,
                                  vm.count("html") > 0);
  if (json && code == 0)
    std::cout << read_json_file((std::filesystem::path(out) / "report.json").string()).dump(2)
              << "\n";
  return code;
}

}  // namespace ipusim::cli
