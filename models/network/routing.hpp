#pragma once
// System topology and routing (plain C++): builds one bandwidth resource per direction of
// every link bundle, DDR, switch and host link, and computes routes on demand.
//
// Numbering: global IPU id = ild x ild_size + local; machine = ipu / ipus_per_machine.
// Inside an IPU-Link domain IPUs 2k and 2k+1 form rung k; even IPUs are one rail, odd IPUs
// the other (PLTEST). A route that must change rail crosses the rung first (cross links),
// then moves up or down the rail, wrapping round on a torus when that is shorter.
// Between domains traffic leaves through the gateway of the sending IPU's machine and
// crosses GW-Links (ring: east/west neighbour racks at the same machine position, several
// hops if needed; switch: uplink, switch, downlink of the destination machine).
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "models/network/flow_engine.hpp"
#include "models/network/link_tiers.hpp"
#include "models/params/hw_params.hpp"

namespace ipusim {

/// Resource table and routing of one system.
class Topology {
 public:
  static constexpr ResourceId kNone = std::numeric_limits<ResourceId>::max();

  /// Builds the resource table for `params`. Throws ConfigError for wirings that cannot route.
  explicit Topology(const HwParams& params);

  /// The resources in id order; add them to a FlowEngine in this order (ids must match).
  const std::vector<ResourceSpec>& resource_specs() const { return specs_; }
  /// Drops the names and specs after they have been handed to the engine (saves memory).
  void release_specs();
  /// Hands the specs over (moved, names included) and keeps none, as release_specs().
  std::vector<ResourceSpec> take_specs() {
    std::vector<ResourceSpec> out = std::move(specs_);
    release_specs();
    return out;
  }

  std::uint32_t num_ipus() const { return num_ipus_; }
  std::uint32_t num_ilds() const { return num_ilds_; }
  std::uint32_t ild_size() const { return ild_size_; }
  std::uint32_t ipus_per_machine() const { return ipm_; }
  std::uint32_t num_machines() const { return num_ipus_ / ipm_; }
  std::uint32_t rungs_per_ild() const { return rungs_; }
  /// True when rails wrap round (torus with at least 3 rungs).
  bool wraps() const { return wraps_; }
  bool torus() const { return wraps_; }
  GwTopology gw_topology() const { return gw_; }

  std::uint32_t ild_of(std::uint32_t ipu) const { return ipu / ild_size_; }
  std::uint32_t local_of(std::uint32_t ipu) const { return ipu % ild_size_; }
  std::uint32_t machine_of(std::uint32_t ipu) const { return ipu / ipm_; }

  /// Route from `src` to `dst` (global IPU ids, any distance); empty if src == dst.
  Route route(std::uint32_t src, std::uint32_t dst) const;
  /// IPU-Link hops between two IPUs of the same domain.
  std::uint32_t ipu_link_hops(std::uint32_t src, std::uint32_t dst) const;
  /// Streaming memory -> IPU (DDR, gateway link).
  Route remote_load_route(std::uint32_t ipu) const;
  /// IPU -> streaming memory.
  Route remote_store_route(std::uint32_t ipu) const;
  /// Host -> IPU: host link, DDR buffer, gateway link; on a C2 card (host_attachment
  /// pcie_card) the host PCIe switch's uplink, then the IPU's own PCIe link.
  Route host_write_route(std::uint32_t ipu) const;
  /// IPU -> host (the same resources in the other direction, in reverse order).
  Route host_read_route(std::uint32_t ipu) const;
  /// True when the host reaches each IPU over its own PCIe link (host_attachment pcie_card).
  bool pcie_card() const { return pcie_card_; }
  /// The highest tier a route uses (host > GW-Link > streaming memory > IPU-Link).
  LinkTier tier(const Route& route) const;
  ResourceKind kind(ResourceId id) const { return kinds_[id]; }
  std::size_t num_resources() const { return kinds_.size(); }
  /// The machine whose module owns a resource (IPU-Links: the sending IPU's machine; DDR,
  /// gateway and host links: their machine; GW-Links: the sending machine, the switch's
  /// downlinks: the receiving one), or kNone for the GW-Link switch itself.
  std::uint32_t owner_machine(ResourceId id) const { return owner_[id]; }

  /// The `n`-th resource of `kind` owned by `machine`, in the order they were added, or kNone:
  /// the routes of a tier whose resources sit on each machine find them here, without a
  /// lookup of their own (models/network/README.md, "Adding a link tier").
  ResourceId machine_resource(std::uint32_t machine, ResourceKind kind, std::size_t n = 0) const;

  /// Candidate symmetry cells of the resources, one dense cell id per resource, for folding
  /// identical IPU-Link domains (models/network/flow_fold.hpp): a resource a machine owns is in
  /// the cell of (its machine's position in its domain, its index among that machine's
  /// resources); each leaf's switch, uplink and downlink bundle are one cell each over all
  /// leaves; any other resource (the one GW-Link switch) is a cell of its own. A candidate only:
  /// a batch is folded only when it crosses every member of each cell alike (fold_batch()).
  std::vector<std::uint32_t> symmetry_cells() const;

  ResourceId ddr(std::uint32_t machine) const { return ddr_[machine]; }
  ResourceId gateway_to_ipu(std::uint32_t ipu) const { return gw_to_ipu_[ipu]; }
  ResourceId ipu_to_gateway(std::uint32_t ipu) const { return ipu_to_gw_[ipu]; }

  /// Ring distance (in GW-Link hops) between two domains; 1 for a switch or leaf_spine.
  std::uint32_t gw_hops(std::uint32_t ild_a, std::uint32_t ild_b) const;
  /// leaf_spine: IPU-Link domains per leaf switch pair (0 for other GW topologies).
  std::uint32_t ilds_per_leaf() const { return leaf_ilds_; }
  /// leaf_spine: the leaf switch pair of a domain (0 for other GW topologies).
  std::uint32_t leaf_of_ild(std::uint32_t ild) const { return leaf_ilds_ ? ild / leaf_ilds_ : 0; }
  /// leaf_spine: number of leaf switch pairs (0 for other GW topologies).
  std::uint32_t num_leaves() const { return leaf_ilds_ ? num_ilds_ / leaf_ilds_ : 0; }

 private:
  ResourceId add(std::string name, ResourceKind kind, std::string group, double cap_Bpns,
                 double latency_ns, std::uint32_t links, std::uint32_t owner);
  /// Flow control of the tier a resource kind belongs to.
  const FlowControl& tier_flow(ResourceKind kind) const;
  void build_ipu_links(const HwParams& p);
  void build_machines(const HwParams& p);
  void build_gw_links(const HwParams& p);
  /// pcie_card: each IPU's PCIe link to the host and the host PCIe switches' uplinks.
  void build_pcie_cards(const HwParams& p);
  /// leaf_spine: per machine an up- and downlink to its leaf, per leaf a switch and an up- and
  /// downlink bundle to the (non-blocking) spine.
  void build_leaf_spine(const HwParams& p);
  void append_ild_route(Route& out, std::uint32_t src, std::uint32_t dst) const;
  void append_gw_route(Route& out, std::uint32_t src, std::uint32_t dst) const;
  std::uint32_t step_rail(std::uint32_t ipu, bool up) const;

  std::uint32_t num_ipus_, num_ilds_, ild_size_, ipm_, rungs_, machines_per_ild_;
  bool wraps_;
  GwTopology gw_;
  bool pcie_card_;
  std::uint32_t pcie_per_switch_;
  std::vector<ResourceSpec> specs_;
  std::vector<ResourceKind> kinds_;
  std::vector<std::uint32_t> owner_;
  /// Resources each machine owns, for machine_resource(): built on its first call (no tier
  /// of the shipped table needs it, so building a system costs nothing more).
  mutable std::vector<std::vector<ResourceId>> by_machine_;
  std::array<FlowControl, kNumLinkTiers> tier_flow_;
  std::vector<ResourceId> partner_, cross_, up_, down_, gw_to_ipu_, ipu_to_gw_;
  std::vector<ResourceId> ddr_, host_in_, host_out_, east_, west_, uplink_, downlink_;
  ResourceId switch_ = kNone;
  std::uint32_t leaf_ilds_ = 0;
  std::vector<ResourceId> leaf_switch_, leaf_up_, leaf_down_;
  std::vector<ResourceId> pcie_in_, pcie_out_, switch_down_, switch_up_;  ///< pcie_card
};

}  // namespace ipusim
