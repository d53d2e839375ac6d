// Link modules: stats of one network resource in the module tree.
#include "models/network/link_module.hpp"

#include <algorithm>
#include <cmath>

#include "sim/sim_time.hpp"

namespace ipusim {

LinkModule::LinkModule(sc_core::sc_module_name name, const Network& network, ResourceId id)
    : sc_core::sc_module(name), network_(network), id_(id) {}

void LinkModule::collect_stats(Json& out) const {
  const ResourceStats s = stats();
  if (s.transfers == 0) return;
  const double now = now_ns();
  // Bytes and busy time are integrated rate x time in the fluid model: round away the
  // floating-point dust (to whole bytes and to the kernel's 1 ps), so the figures do not depend
  // on the order of the sums (a collective replayed from the executor's cache adds its
  // original's totals at once; playing it again adds them step by step).
  const double bytes = static_cast<double>(std::llround(s.bytes));
  const double util = now > 0 ? bytes / (spec().capacity_Bpns * now) : 0.0;
  out["bytes"] = static_cast<std::uint64_t>(bytes);
  out["busy_ns"] = static_cast<double>(std::llround(s.busy_ns * 1000.0)) / 1000.0;
  out["utilisation"] = util;
  out["transfers"] = s.transfers;
  out["max_concurrent"] = s.max_concurrent;
}

std::string link_module_name(const std::string& resource_name) {
  std::string n = resource_name;
  std::replace(n.begin(), n.end(), '.', '_');
  return n;
}

}  // namespace ipusim
