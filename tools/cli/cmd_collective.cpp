// `ipusim collective`: time one collective on a system (and check it on real data).
// It builds the same config a `"kind": "collective"` workload would have and runs it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "collectives/algorithms/algorithm_catalog.hpp"
#include "collectives/algorithms/algorithm_table.hpp"
#include "runtime/workloads/simulation.hpp"
#include "sim/errors.hpp"
#include "sim/json_parse.hpp"
#include "sim/logging.hpp"
#include "sim/output.hpp"
#include "sim/run_info.hpp"
#include "sim/trace.hpp"
#include "tools/cli/collective_scan.hpp"
#include "tools/cli/html_output.hpp"
#include "tools/cli/run_outputs.hpp"
#include "tools/cli/trace_options.hpp"
#include "tools/common/cli_util.hpp"

namespace ipusim::cli {

int cmd_collective(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts(
      "ipusim collective --system CONFIG --op OP (--bytes N | --elements N | --size N) "
      "[options]\n\n"
      "Times one collective on a system preset (e.g. pod64 or configs/systems/pod64.json); with "
      "--data\n"
      "or --input it also moves and reduces real values and checks them against a direct\n"
      "reduction (functional.wrong_elements = nccl-tests' #wrong). Output: op, chosen algorithm,\n"
      "groups, time_ns, cycles, size_bytes, algorithm and bus bandwidth (nccl-tests' conventions:\n"
      "size = the output per replica for all_gather, the input for every other op; algbw =\n"
      "size / time; busbw = algbw x 2(n-1)/n for allreduce, (n-1)/n for reduce_scatter,\n"
      "all_gather and all_to_all, 1 for broadcast), time per link tier.\n\noptions");
  const std::string algorithm_help = coll::algorithm_names("|", true);
  opts.add_options()("help", "show this help")(
      "system", po::value<std::string>(),
      "system config (JSON) or preset name (pod16, pod64, pod256, ...); a run config's own "
      "workload section is replaced by these flags")(
      "op", po::value<std::string>()->default_value("allreduce"),
      "allreduce|reduce_scatter|all_gather|all_to_all|broadcast")(
      "bytes", po::value<std::string>(),
      "input bytes per replica: 67108864, 64MiB, 1GiB, 100MB, ...")(
      "elements", po::value<std::uint64_t>(), "input elements per replica")(
      "size", po::value<std::string>(),
      "nccl-tests size instead: the output per replica for all_gather (group size x input), the\n"
      "input for every other op (e.g. 64MiB)")(
      "dtype", po::value<std::string>()->default_value("float32"), "float32|float16")(
      "replicas", po::value<std::uint64_t>()->default_value(0),
      "replicas (0 = all IPUs / ipus-per-replica)")(
      "ipus-per-replica", po::value<std::uint64_t>()->default_value(1), "IPUs per replica")(
      "comm-group", po::value<std::string>()->default_value("all"),
      "all|none|consecutive:K|orthogonal:K")("stride", po::value<std::uint64_t>(),
                                             "ReplicaGrouping stride (with --group-size)")(
      "group-size", po::value<std::uint64_t>(), "ReplicaGrouping group size")(
      "algorithm", po::value<std::string>()->default_value("auto"), algorithm_help.c_str())(
      "check-auto",
      "with --algorithm auto: also simulate every candidate (as best does) and report\n"
      "auto_vs_best; warns on stderr when auto is more than workload.auto_warn_pct (20 %) slower")(
      "list-algorithms",
      "print the algorithm and link-configuration table as Markdown (docs/collectives.md's)")(
      "link-config", po::value<std::string>()->default_value("default"),
      "default|sliding_window|barley_twist")(
      "reduce", po::value<std::string>()->default_value("add"), "add|mean|mul|min|max|local")(
      "data", po::value<std::string>()->default_value("none"), "none|replica-id|iota|random:SEED")(
      "input", po::value<std::string>(), "JSON file: one array of numbers per replica")(
      "outputs", "include per-replica output values (with --data/--input)")(
      "shard-domain", po::value<std::string>(),
      "time an RTS-sharded tensor instead: all|consecutive:K|none (AllGather + ReduceScatter over "
      "the\n"
      "domain, orthogonal AllReduce when smaller than all replicas); --op/--reduce/--comm-group "
      "ignored")(
      "tile-mapping", po::value<std::string>(),
      "sharded tensor: JSON file with [begin,end) intervals per tile (default balanced)")(
      "no-cbr", "sharded tensor: lay shards out contiguously instead of with CBR")(
      "grain", po::value<std::uint64_t>(), "sharded tensor: CBR grain size in elements")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a system parameter (repeatable)")("json", "print the result as JSON")(
      "out", po::value<std::string>(), "also write report.json etc. here")(
      "trace", "also write trace.json (to --out, default out/collective_<op>)")(
      "html",
      "also write report.html, a self-contained page (to --out, default out/collective_<op>)")(
      "quiet,q", "print nothing on success")(
      "log-level", po::value<std::string>()->default_value("warn"), "spdlog level");
  add_trace_options(opts);
  const auto vm = parse_options(opts, {}, args);
  if (vm.count("help")) {
    std::cout << opts << "\n" << coll::catalog_help_text() << "\n" << scan_help() << "\n";
    return 0;
  }
  if (vm.count("list-algorithms")) {
    std::cout << coll::catalog_markdown();
    return 0;
  }
  if (!vm.count("system"))
    throw ConfigError("collective: --system CONFIG is required (see --help)");
  if (!vm.count("bytes") && !vm.count("elements") && !vm.count("size"))
    throw ConfigError("collective: give --bytes N, --elements N or --size N");
  if (vm.count("size") && (vm.count("bytes") || vm.count("elements"))) {
    throw ConfigError(
        "collective: give --size or " + std::string(vm.count("bytes") ? "--bytes" : "--elements") +
        ", not both (--size is the nccl-tests size, --bytes/--elements the input per replica)");
  }
  if (vm.count("stride") != vm.count("group-size") && vm.count("group-size") == 0)
    throw ConfigError("collective: --stride needs --group-size");
  // Contradictory or inexact flags are refused, not silently resolved (issue 15).
  if (vm.count("bytes") && vm.count("elements")) {
    throw ConfigError("collective: give --bytes or --elements, not both (got --bytes " +
                      vm["bytes"].as<std::string>() + " and --elements " +
                      std::to_string(vm["elements"].as<std::uint64_t>()) + ")");
  }
  if (vm.count("group-size") && vm["group-size"].as<std::uint64_t>() == 0)
    throw ConfigError("--group-size 0: expected at least 1 (0 would silently mean all replicas)");
  if (vm.count("stride") && vm["stride"].as<std::uint64_t>() == 0)
    throw ConfigError("--stride 0: expected at least 1");
  if (vm.count("outputs") && vm["data"].as<std::string>() == "none" && !vm.count("input"))
    throw ConfigError(
        "--outputs: needs --data (replica-id, iota, random:SEED) or --input: without them no "
        "values move");
  if (vm.count("group-size") && !vm["comm-group"].defaulted()) {
    throw ConfigError("collective: give --comm-group " + vm["comm-group"].as<std::string>() +
                      " or --stride/--group-size, not both");
  }
  setup_logging(vm["log-level"].as<std::string>());
  read_trace_options(vm);
  register_all_params();

  // Enumerated flags are checked here so that a typo is reported against the flag the
  // user typed, not against the /workload/... key the flag is translated into.
  for (const auto& [flag, pointer] :
       std::vector<std::pair<std::string, std::string>>{{"op", "/workload/op"},
                                                        {"dtype", "/workload/dtype"},
                                                        {"algorithm", "/workload/algorithm"},
                                                        {"reduce", "/workload/reduce"},
                                                        {"link-config", "/workload/link_config"}}) {
    check_choice("--" + flag, vm[flag].as<std::string>(), registry_choices(pointer));
  }
  ConfigDoc doc = ConfigDoc::load_file(resolve_system_config(vm["system"].as<std::string>()));
  // A whole run config (e.g. a validation set-up) may carry its own workload: the flags define
  // the collective, so that section is replaced, not merged with them.
  doc.take_sections(ConfigDoc::from_json(Json::object(), "--system"), {"workload"}, {});
  // Each flag is copied into /workload; errors about the value name the flag, not a --set.
  auto set = [&](const std::string& key, const Json& value) {
    doc.apply_override("/workload/" + key + "=" + value.dump());
    std::string flag = key == "sharding_domain" ? "shard-domain"
                       : key == "size_bytes"    ? "size"
                       : key == "output_values" ? "outputs"
                       : key == "cbr"           ? "no-cbr"
                                                : key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (key != "kind")
      doc.set_origin(
          "/workload/" + key,
          "--" + flag + " " + (value.is_string() ? value.get<std::string>() : value.dump()));
  };
  const bool sharded = vm.count("shard-domain") > 0;
  if (sharded && (vm.count("size") || vm.count("check-auto")))
    throw ConfigError(std::string(vm.count("size") ? "--size" : "--check-auto") +
                      ": not with --shard-domain (collectives only)");
  // A file given by a flag: limits of json_parse.hpp (regular file, size, depth), and errors
  // name the flag and the file (not the /workload key it is copied to).
  auto read_json_arg = [&vm](const std::string& flag) {
    const std::string path = vm[flag].as<std::string>();
    try {
      return read_json_input(path, "file");
    } catch (const ConfigError& e) {
      throw ConfigError("--" + flag + " " + path + ": " + e.what());
    }
  };
  set("kind", sharded ? "sharded_tensor" : "collective");
  if (vm.count("bytes")) {
    const std::uint64_t bytes = parse_size_bytes(vm["bytes"].as<std::string>(), "--bytes");
    const std::string dtype = vm["dtype"].as<std::string>();
    const std::uint64_t elem_bytes = dtype == "float16" ? 2 : dtype == "float32" ? 4 : 1;
    if (bytes % elem_bytes != 0) {
      throw ConfigError("--bytes " + vm["bytes"].as<std::string>() + ": " + std::to_string(bytes) +
                        " bytes is not a whole number of " + dtype + " elements (" +
                        std::to_string(elem_bytes) + " bytes each)");
    }
    set("bytes", bytes);
  }
  if (vm.count("check-auto")) {
    if (vm["algorithm"].as<std::string>() != "auto")
      throw ConfigError("--check-auto: only with --algorithm auto (got --algorithm " +
                        vm["algorithm"].as<std::string>() + ")");
    set("check_auto", true);
  }
  if (vm.count("elements")) set("elements", vm["elements"].as<std::uint64_t>());
  if (vm.count("size")) set("size_bytes", parse_size_bytes(vm["size"].as<std::string>(), "--size"));
  set("dtype", vm["dtype"].as<std::string>());
  set("replicas", vm["replicas"].as<std::uint64_t>());
  set("ipus_per_replica", vm["ipus-per-replica"].as<std::uint64_t>());
  set("algorithm", vm["algorithm"].as<std::string>());
  set("link_config", vm["link-config"].as<std::string>());
  if (sharded) {
    set("sharding_domain", vm["shard-domain"].as<std::string>());
    if (vm.count("no-cbr")) set("cbr", false);
    if (vm.count("grain")) set("grain", vm["grain"].as<std::uint64_t>());
    if (vm.count("tile-mapping")) {
      set("tile_mapping", read_json_arg("tile-mapping"));
      doc.set_origin("/workload/tile_mapping",
                     "--tile-mapping " + vm["tile-mapping"].as<std::string>());
    }
  }
  if (!sharded) {
    set("op", vm["op"].as<std::string>());
    if (!vm.count("group-size")) set("comm_group", vm["comm-group"].as<std::string>());
    if (vm.count("group-size")) set("group_size", vm["group-size"].as<std::uint64_t>());
    if (vm.count("stride")) set("stride", vm["stride"].as<std::uint64_t>());
    if (!vm["reduce"].defaulted()) set("reduce", vm["reduce"].as<std::string>());
    set("data", vm["data"].as<std::string>());
    if (vm.count("outputs")) set("output_values", true);
    if (vm.count("input")) {
      set("input", read_json_arg("input"));
      doc.set_origin("/workload/input", "--input " + vm["input"].as<std::string>());
    }
  }
  if (vm.count("set")) {
    for (const auto& s : vm["set"].as<std::vector<std::string>>()) doc.apply_override(s);
  }

  RunInfo info;
  const bool trace = vm.count("trace") > 0;
  const std::string out_dir =
      vm.count("out")
          ? vm["out"].as<std::string>()
          : "out/collective_" + (sharded ? std::string("sharded") : vm["op"].as<std::string>());
  begin_run(out_dir, trace, vm.count("quiet") > 0);
  SimulationResult result = simulate(doc);
  // From here on nothing throws (run_outputs.hpp: SystemC's stacks are alive after sc_start).
  if (const int code = end_run()) return code;
  if (const int code = report_simulation_failure(result)) return code;
  // Like `run`, a trace or page without --out goes to a default folder named after the op.
  const bool html = vm.count("html") > 0;
  if (vm.count("out") || trace || html) {
    const std::string& out = out_dir;
    Json& report = result.report;  // not copied: a 65,536-IPU report is ~300 k objects
    report["run_info"] = info.to_json(result.num_ipus);
    if (const int code = write_run_outputs(out, report, doc.resolved())) return code;
    if (!vm.count("out") && trace && !vm.count("quiet") && !vm.count("json"))
      std::cout << "wrote " << out << "/trace.json\n";
    if (html) {
      if (const int code = write_run_html(out, report, vm.count("quiet") || vm.count("json")))
        return code;
    }
  }
  if (vm.count("json")) {
    Json out = result.report["workload"];
    out["system"] = result.report["system"];
    std::cout << out.dump(2) << "\n";
  } else if (!vm.count("quiet")) {
    std::cout << result.summary;
  }
  const Json& w = result.report["workload"];
  if (w.contains("functional") && !w["functional"]["matches_reference"].get<bool>()) return 3;
  return 0;
}

}  // namespace ipusim::cli
