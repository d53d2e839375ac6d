#pragma once
// The `/sim` section: how a run is simulated (engines, fast paths, limits), not what is
// simulated. This file is its one owner: every key is declared here (register_sim_options();
// the network-model key with the choices the models' table passes in) and read by
// read_sim_options(), which finishes the section (an unknown key is an error here and nowhere
// else); the models and the driver take the values from SimOptions.
#include <string>
#include <vector>

namespace ipusim {

class ConfigDoc;

/// Every `/sim` value of one config.
struct SimOptions {
  double max_time_ns{};            ///< stop at this simulated time (0 = run to completion)
  double max_wall_s{};             ///< stop cleanly after this much wall time (0 = no limit)
  double max_memory_bytes{};       ///< refuse runs estimated above this (0 = 80 % of available)
  double max_events{};             ///< refuse runs estimated above this many kernel events
  std::string fidelity;            ///< how much per-element detail the models keep
  bool fast_paths{};               ///< exact network fast paths (same report either way)
  std::string network_model;       ///< which engine times the network
  double packet_max_chunk_hops{};  ///< packet engine budget, in chunk hops
};

/// Declares every `/sim` key but `network_model` in the parameter registry (idempotent).
void register_sim_options();

/// Declares `/sim/network_model` with the names of the network models (the first is the
/// default) and its help text; the models, which own that table, call it (idempotent).
void register_network_model_option(const std::vector<std::string>& models, const std::string& help);

/// Reads and checks `/sim` of `doc` (strict: unknown keys are errors). Needs
/// register_network_model_option() to have run.
SimOptions read_sim_options(ConfigDoc& doc);

}  // namespace ipusim
