#pragma once
// One bandwidth resource as a module of the hierarchy: a direction of an IPU-Link bundle, an
// IPU <-> gateway link, a DDR, a GW-Link, the GW-Link switch or a host link. It is a thin
// view onto its resource in the shared Network (the fluid solver, or the resource's
// PacketLink in the packet model, which owns its queue, arbitration, credits and statistics),
// so it adds nothing to the simulation's event path; it names the resource in the module tree
// and reports its parameters and statistics there. Above 512 IPUs a LinkStatsGroup of the
// parent module reports the same stats at the same paths without a module per link.
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "models/network/network.hpp"
#include "sim/stats.hpp"

namespace ipusim {

/// A link, DDR or switch of the network, placed under its machine (or gateway).
class LinkModule : public sc_core::sc_module, public StatsProvider {
 public:
  /// `name` is the module's basename (see link_module_name()).
  LinkModule(sc_core::sc_module_name name, const Network& network, ResourceId id);

  ResourceId resource() const { return id_; }
  /// Capacity, latency, bundle width and group of the resource.
  const ResourceSpec& spec() const { return network_.engine().resource(id_); }
  /// Chunk size, credits and arbitration of the resource's tier.
  const ResourceFlow& flow_control() const { return network_.engine().flow_control(id_); }
  /// Bytes, busy time, transfers and peak concurrency so far.
  ResourceStats stats() const { return network_.resource_stats(id_); }

  /// For a used resource: `bytes`, `busy_ns`, `utilisation` (bytes / (capacity x now)),
  /// `transfers` (flows that crossed it) and `max_concurrent`; nothing for an idle one.
  void collect_stats(Json& out) const override;

 private:
  const Network& network_;
  ResourceId id_;
};

/// The links of one parent module (a machine, a gateway, the system) in systems too large for
/// a LinkModule per link (see System): the parent reports each used link's stats under the
/// basename its LinkModule would have, so the stats tree has the same paths at every scale.
class LinkStatsGroup {
 public:
  explicit LinkStatsGroup(const Network& network) : network_(network) {}
  void add(ResourceId id) { ids_.push_back(id); }
  std::size_t size() const { return ids_.size(); }
  /// Writes `out[link_module_name(name)]` = LinkModule::collect_stats of each used link.
  void collect_stats(Json& out) const;

 private:
  const Network& network_;
  std::vector<ResourceId> ids_;
};

/// Gives resource `id` its place under the module being constructed (its machine, gateway or
/// the system), named link_module_name(): the model's own module with its process where the
/// model has one per resource (packet: a PacketLinkModule, owned by the model, reporting its
/// stats), else a LinkModule view appended to `views`, else (above 512 IPUs, no LinkModules)
/// `id` is added to `group`, which the parent reports at the same path.
void place_link(Network& network, ResourceId id, std::vector<std::unique_ptr<LinkModule>>& views,
                LinkStatsGroup& group);

/// Module basename of a network resource: its network name (as in traces and `describe`'s
/// groups) with '.', SystemC's hierarchy separator, written '_' (`ipu0->ipu1.partner` ->
/// `ipu0->ipu1_partner`, `m3.ddr` -> `m3_ddr`).
std::string link_module_name(const std::string& resource_name);

}  // namespace ipusim
