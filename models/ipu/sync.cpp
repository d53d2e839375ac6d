// Sync cost formulas and the sync controller's bookkeeping.
#include "models/ipu/sync.hpp"

#include <algorithm>
#include <cmath>

#include "sim/errors.hpp"

namespace ipusim {

std::string to_string(SyncScope s) {
  switch (s) {
    case SyncScope::Internal:
      return "internal";
    case SyncScope::External:
      return "external";
    case SyncScope::GwLink:
      return "gw_link";
  }
  return "?";
}

std::uint32_t external_sync_hops(std::uint32_t num_ipus) { return 1 + (num_ipus / 2) / 2; }

std::uint64_t external_sync_cycles(double ns_per_hop, double clock_GHz, std::uint32_t num_ipus) {
  const double c = ns_per_hop * clock_GHz * external_sync_hops(num_ipus) * 2.0;
  return static_cast<std::uint64_t>(std::ceil(c - 1e-9));
}

SyncModel::SyncModel(const HwParams& p, const Topology& topology)
    : topo_(topology),
      internal_cycles_(p.chip.sync_internal_cycles),
      ns_per_hop_(p.system.sync_ns_per_hop),
      clock_GHz_(p.chip.clock_GHz),
      gw_latency_ns_(p.machine.gw_link_latency_ns),
      switch_latency_ns_(p.system.gw_topology == GwTopology::Switch ? p.machine.switch_latency_ns
                                                                    : 0.0),
      leaf_switch_latency_ns_(p.machine.switch_latency_ns) {}

SyncCost SyncModel::cost(const std::vector<std::uint32_t>& ipus) const {
  // Collectives call this every superstep with a sorted list: avoid copying it then.
  bool sorted_unique = true;
  for (std::size_t i = 1; i < ipus.size() && sorted_unique; ++i)
    sorted_unique = ipus[i - 1] < ipus[i];
  std::vector<std::uint32_t> copy;
  if (!sorted_unique) {
    copy = ipus;
    std::sort(copy.begin(), copy.end());
    copy.erase(std::unique(copy.begin(), copy.end()), copy.end());
  }
  const std::vector<std::uint32_t>& s = sorted_unique ? ipus : copy;
  if (!s.empty() && s.back() >= topo_.num_ipus()) {
    throw ConfigError("sync: IPU " + std::to_string(s.back()) + " does not exist (the system has " +
                      std::to_string(topo_.num_ipus()) + " IPUs)");
  }
  SyncCost c;
  if (s.size() <= 1) {
    c.cycles = internal_cycles_;
    c.scope = SyncScope::Internal;
  } else if (topo_.ild_of(s.front()) == topo_.ild_of(s.back())) {
    c.cycles = external_sync_cycles(ns_per_hop_, clock_GHz_, static_cast<std::uint32_t>(s.size()));
    c.scope = SyncScope::External;
  } else {
    if (topo_.gw_topology() == GwTopology::LeafSpine) {
      // One GW-Link hop through the leaf switch, or leaf, spine and leaf when the IPUs span
      // several leaves (the spine's latency is charged as a switch traversal, as in routing).
      const bool spans_leaves =
          topo_.leaf_of_ild(topo_.ild_of(s.front())) != topo_.leaf_of_ild(topo_.ild_of(s.back()));
      const double one_way_ns =
          gw_latency_ns_ + (spans_leaves ? 3.0 : 1.0) * leaf_switch_latency_ns_;
      c.cycles = external_sync_cycles(ns_per_hop_, clock_GHz_, topo_.ild_size()) +
                 static_cast<std::uint64_t>(std::ceil(2.0 * one_way_ns * clock_GHz_ - 1e-9));
      c.scope = SyncScope::GwLink;
      c.ns = static_cast<double>(c.cycles) / clock_GHz_;
      return c;
    }
    // Sorted IPUs give sorted domain ids.
    std::vector<std::uint32_t> ilds;
    for (std::uint32_t i : s) {
      const std::uint32_t d = topo_.ild_of(i);
      if (ilds.empty() || ilds.back() != d) ilds.push_back(d);
    }
    // A switch is one hop between any two domains: no need to look at every pair.
    const bool one_hop = topo_.gw_topology() == GwTopology::Switch;
    std::uint32_t hops = one_hop ? 1 : 0;
    for (std::size_t a = 0; !one_hop && a < ilds.size(); ++a) {
      for (std::size_t b = a + 1; b < ilds.size(); ++b)
        hops = std::max(hops, topo_.gw_hops(ilds[a], ilds[b]));
    }
    const double one_way_ns = hops * gw_latency_ns_ + switch_latency_ns_;
    c.cycles = external_sync_cycles(ns_per_hop_, clock_GHz_, topo_.ild_size()) +
               static_cast<std::uint64_t>(std::ceil(2.0 * one_way_ns * clock_GHz_ - 1e-9));
    c.scope = SyncScope::GwLink;
  }
  c.ns = static_cast<double>(c.cycles) / clock_GHz_;
  return c;
}

SyncCost SyncModel::cost_first(std::uint32_t n) const {
  std::vector<std::uint32_t> ipus(n);
  for (std::uint32_t i = 0; i < n; ++i) ipus[i] = i;
  return cost(ipus);
}

SyncController::SyncController(sc_core::sc_module_name name, const HwParams& params,
                               const Topology& topology)
    : sc_core::sc_module(name), model_(params, topology) {}

SyncCost SyncController::sync(const std::vector<std::uint32_t>& ipus, std::uint64_t times) {
  const SyncCost c = model_.cost(ipus);
  const auto k = static_cast<std::size_t>(c.scope);
  count_[k] += times;
  cycles_[k] += c.cycles * times;
  return c;
}

void SyncController::collect_stats(Json& out) const {
  for (std::size_t k = 0; k < 3; ++k) {
    if (count_[k] == 0) continue;
    out[to_string(static_cast<SyncScope>(k))] = {{"syncs", count_[k]}, {"cycles", cycles_[k]}};
  }
}

}  // namespace ipusim
