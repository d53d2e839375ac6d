#include "runtime/workloads/simulation.hpp"

#include <cstdio>
#include <sstream>
#include <systemc>

#include "models/params/model_params.hpp"
#include "models/system/system.hpp"
#include "models/system/system_retire.hpp"
#include "runtime/workloads/workload.hpp"
#include "sim/clock.hpp"
#include "sim/format.hpp"
#include "sim/kernel_run.hpp"
#include "sim/output.hpp"
#include "sim/resource_guard.hpp"
#include "sim/sim_options.hpp"
#include "sim/stats.hpp"
#include "sim/trace.hpp"

namespace ipusim {

SimulationResult simulate(ConfigDoc& doc) {
  ConfigNode root(doc, "");
  const std::string name = root.get_string("name");
  root.get_string("description");
  // The limits first: building the system checks its own memory estimate against them.
  register_model_params();  // `/sim/network_model`'s choices are the models' table
  const SimOptions sim = read_sim_options(doc);  // `/sim` whole, strictly
  root.mark_used("sim");
  read_resource_limits(sim);  // the workloads check their estimates against these (exit 2)
  std::unique_ptr<System> system = build_system(doc);
  // `--trace-ipus` beyond the system is bad input, refused before anything runs.
  if (TraceWriter::instance().enabled())
    TraceWriter::instance().filter().check_ipus_exist(system->num_ipus());
  root.mark_used("chip");
  root.mark_used("ipu_link");
  root.mark_used("machine");
  root.mark_used("system");
  root.mark_used("software");  // read with the hardware: the vertices' costs depend on it
  const double max_time_ns = sim.max_time_ns;
  const double max_wall_s = sim.max_wall_s;
  // The wall limit covers elaboration too: algorithm "best" simulates its candidates there.
  start_wall_clock(max_wall_s);
  std::unique_ptr<Workload> workload = make_workload(*system, root.child("workload"));
  root.finish();

  const std::string wall_limit_hit = run_kernel(max_time_ns, max_wall_s);
  // Failures after sc_start are returned, not thrown: SystemC's coroutine stacks are still
  // alive here, and unwinding across them confuses AddressSanitizer (dev preset).
  // The packet model refuses traffic over its chunk budget when it starts: bad input (exit 2).
  if (!system->network().refusal().empty()) return {Json(), "", system->network().refusal(), 2};
  if (!workload->failure().empty())
    return {Json(), "", "the workload failed: " + workload->failure(), 3};
  if (!workload->finished()) {
    return {Json(), "",
            "the workload did not finish: simulation stopped at " +
                sc_core::sc_time_stamp().to_string() + " with work outstanding (" +
                (!wall_limit_hit.empty() ? wall_limit_hit
                 : max_time_ns > 0       ? std::string("the /sim/max_time_ns limit was reached")
                                         : std::string("deadlock")) +
                ")" + (workload->stall_report().empty() ? "" : ": " + workload->stall_report()),
            3};
  }
  const ClockDomain clock(system->clock_GHz());
  const double time_ns = workload->total_time_ns();

  Json report = Json::object();
  report["format_version"] = kReportFormatVersion;
  report["name"] = name.empty() ? doc.main_file() : name;
  report["system"] = system->params().system.name;
  report["workload_kind"] = doc.resolved()["workload"]["kind"];
  report["simulated"] = {{"time_ns", time_ns},
                         {"cycles", clock.ns_to_cycles_round(time_ns)},
                         {"clock_GHz", clock.freq_GHz()}};
  report["breakdown_ns"] = workload->breakdown_ns();
  report["utilisation"] = workload->utilisation();
  report["memory"] = workload->memory();
  report["workload"] = workload->results();
  report["stats"] = collect_stats_tree();

  std::ostringstream summary;
  summary << "ipusim: " << report["name"].get<std::string>() << " — "
          << report["workload_kind"].get<std::string>() << " on " << system->params().system.name
          << "\n";
  summary << "  simulated time   " << format_ns(time_ns) << "  ("
          << clock.ns_to_cycles_round(time_ns) << " cycles at " << clock.freq_GHz() << " GHz)\n";
  summary << "  breakdown\n";
  for (const auto& [kind, ns] : report["breakdown_ns"].items()) {
    const double v = ns.get<double>();
    if (v <= 0) continue;
    char line[128];
    std::snprintf(line, sizeof line, "    %-18s %14s  %5.1f %%\n", kind.c_str(),
                  format_ns(v).c_str(), time_ns > 0 ? 100.0 * v / time_ns : 0.0);
    summary << line;
  }
  summary << workload->summary();
  const std::uint32_t num_ipus = system->num_ipus();
  const std::uint64_t folded = system->network().engine().folded_flows();
  const std::uint64_t unfolded = system->network().engine().unfolded_flows();
  const std::uint64_t prefolded = system->network().prefolded_batches();
  workload.reset();
  retire_system(std::move(system));
  return {std::move(report), summary.str(), "", 0, num_ipus, folded, unfolded, prefolded};
}

}  // namespace ipusim
