#pragma once
// BSP sync cost. Internal (one IPU): a fixed cycle count. External inside one IPU-Link domain:
// Graphcore's model ceil(ns_per_hop x f x hops x 2) with hops = 1 + floor(n / 4) (PLTEST
// setGlobalSyncLatency). Across domains (ASSUMPTION): the value for a whole domain plus a
// round trip over the GW-Links (farthest pair of the set; + switch latency when switched).
#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

#include "models/network/routing.hpp"
#include "models/params/hw_params.hpp"
#include "sim/stats.hpp"

namespace ipusim {

/// Where a sync happens.
enum class SyncScope { Internal, External, GwLink };
std::string to_string(SyncScope s);

/// Cost of one sync.
struct SyncCost {
  std::uint64_t cycles = 0;
  double ns = 0;
  SyncScope scope = SyncScope::Internal;
};

/// hops = 1 + floor(n / 4): one hop within a card plus one per card pair (PLTEST).
std::uint32_t external_sync_hops(std::uint32_t num_ipus);
/// ceil(ns_per_hop x clock x hops x 2) cycles for n IPUs in one IPU-Link domain.
std::uint64_t external_sync_cycles(double ns_per_hop, double clock_GHz, std::uint32_t num_ipus);

/// Sync cost of any set of IPUs in a system (plain C++).
class SyncModel {
 public:
  SyncModel(const HwParams& params, const Topology& topology);
  /// Cost for a set of global IPU ids (duplicates ignored). Empty or one IPU = internal.
  SyncCost cost(const std::vector<std::uint32_t>& ipus) const;
  /// Cost for IPUs 0 .. n-1.
  SyncCost cost_first(std::uint32_t n) const;

 private:
  const Topology& topo_;
  std::uint64_t internal_cycles_;
  double ns_per_hop_, clock_GHz_, gw_latency_ns_, switch_latency_ns_;
  double leaf_switch_latency_ns_;  ///< leaf_spine: per leaf or spine switch traversal
};

/// The system's sync controller: computes sync costs and counts the syncs that ran.
class SyncController : public sc_core::sc_module, public StatsProvider {
 public:
  SyncController(sc_core::sc_module_name name, const HwParams& params, const Topology& topology);
  const SyncModel& model() const { return model_; }
  /// Cost of a sync over `ipus`, recorded in the stats `times` times (repeated syncs of
  /// one set, e.g. a collective's supersteps, are recorded at once).
  SyncCost sync(const std::vector<std::uint32_t>& ipus, std::uint64_t times = 1);
  void collect_stats(Json& out) const override;

 private:
  SyncModel model_;
  std::uint64_t count_[3] = {0, 0, 0};
  std::uint64_t cycles_[3] = {0, 0, 0};
};

}  // namespace ipusim
