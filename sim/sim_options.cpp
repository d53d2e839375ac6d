// The `/sim` section's declarations and reader (see sim_options.hpp).
#include "sim/sim_options.hpp"

#include "sim/config.hpp"
#include "sim/param_spec_helpers.hpp"
#include "sim/params.hpp"
#include "sim/resource_guard.hpp"

namespace ipusim {

void register_sim_options() {
  using namespace spec;
  ParamRegistry::instance().add({
      real("/sim/max_time_ns", "ns", 0.0, 0.0, std::nullopt,
           "Stop the simulation at this simulated time (0 = run to completion); unfinished work "
           "is a simulation error (exit 3)"),
      real("/sim/max_wall_s", "s", 0.0, 0.0, std::nullopt,
           "Stop the simulation cleanly after this much wall time (0 = no limit); unfinished "
           "work is a simulation error (exit 3) naming the simulated time reached"),
      real("/sim/max_memory_bytes", "B", 0.0, 0.0, std::nullopt,
           "Refuse (exit 2) a run whose estimated memory is above this; 0 = 80 % of the memory "
           "available when the run starts (MemAvailable, capped by ulimit -v). ASSUMPTION: 80 % "
           "leaves room for the OS and the estimate's error"),
      real("/sim/max_events", "", kDefaultMaxEvents, 0.0, std::nullopt,
           "Refuse (exit 2) a run whose estimated kernel events (flow starts and ends, op steps) "
           "are above this; 0 = no limit. ASSUMPTION: 1e10 is about an hour at the ~3 M "
           "events/s measured on 2 cores"),
      choice("/sim/fidelity", "per_tile", {"per_tile", "aggregated"},
             "per_tile keeps every tile's bytes, cycles and SRAM; aggregated treats an IPU's "
             "tiles as one balanced block."),
      flag("/sim/fast_paths", true,
           "Exact network fast paths: flows of a batch that share no resource drain as groups. "
           "Off gives the same report, slower."),
      real("/sim/packet_max_chunk_hops", "chunk hops", 1e9, 1, 1e15,
           "Packet model budget: traffic whose chunks would cross more link hops in total than "
           "this is refused (exit 2) when it starts, before it is simulated. The default is "
           "about 7 minutes of wall time at the measured 2.4 M chunk hops/s (a 64 MiB AllReduce "
           "on a Pod16 is 7.9 M); raise the tiers' chunk_bytes or use the fluid model for larger "
           "runs."),
  });
}

void register_network_model_option(const std::vector<std::string>& models,
                                   const std::string& help) {
  ParamRegistry::instance().add({spec::choice("/sim/network_model", models.front(), models, help)});
}

SimOptions read_sim_options(ConfigDoc& doc) {
  ConfigNode root(doc, "");
  ConfigNode sim = root.child("sim");
  SimOptions o;
  // In the order the driver used to read them, so resolved_config.json keeps its key order.
  o.max_memory_bytes = sim.get_double("max_memory_bytes");
  o.max_events = sim.get_double("max_events");
  o.fidelity = sim.get_enum("fidelity");
  o.fast_paths = sim.get_bool("fast_paths");
  o.network_model = sim.get_enum("network_model");
  o.packet_max_chunk_hops = sim.get_double("packet_max_chunk_hops");
  o.max_time_ns = sim.get_double("max_time_ns");
  o.max_wall_s = sim.get_double("max_wall_s");
  sim.finish();
  return o;
}

}  // namespace ipusim
