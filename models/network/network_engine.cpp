// The network model table and the interface's defaults for optional capabilities.
#include "models/network/network_engine.hpp"

#include "sim/errors.hpp"

namespace ipusim {

std::uint32_t NetworkEngine::start_stream(double /*now_ns*/, const Route& /*route*/,
                                          std::uint64_t /*bytes*/, std::uint64_t /*count*/,
                                          void* /*tag*/) {
  throw SimulationError(std::string("Network::start_stream: the ") + name() +
                        " model has no streams");
}

void NetworkEngine::credit_replay(
    std::uint64_t /*flows*/, const std::vector<std::pair<ResourceId, ResourceStats>>& /*res*/) {
  throw SimulationError(std::string("Network::credit_replay: the ") + name() +
                        " model cannot replay");
}

const std::vector<NetworkModelInfo>& network_models() {
  // Built on first use by explicit calls (no static registration objects), default first.
  static const std::vector<NetworkModelInfo> table = [] {
    std::vector<NetworkModelInfo> t;
    register_fluid_model(t);
    register_packet_model(t);
    return t;
  }();
  return table;
}

const NetworkModelInfo& network_model(const std::string& name) {
  std::string names;
  for (const NetworkModelInfo& m : network_models()) {
    if (name == m.name) return m;
    names += (names.empty() ? "" : ", ") + std::string(m.name);
  }
  throw SimulationError("unknown network model '" + name + "': expected one of " + names);
}

}  // namespace ipusim
