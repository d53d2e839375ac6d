// Leaf/spine GW-Link fabric: routes inside a leaf and across the spine, radix checks.
#include <catch2/catch.hpp>

#include "models/network/routing.hpp"

using namespace ipusim;

namespace {

/// 8 Pod4 domains (1 machine of 4 IPUs each), 4 per leaf: 2 leaves.
HwParams small_fabric() {
  HwParams p = registry_hw_params();
  p.system.num_ilds = 8;
  p.system.machines_per_ild = 1;
  p.system.gw_topology = GwTopology::LeafSpine;
  p.system.gw_leaf_ilds = 4;
  return p;
}

std::vector<std::string> names(const Topology& topo, const Route& r) {
  std::vector<std::string> out;
  for (ResourceId id : r) out.push_back(topo.resource_specs()[id].name);
  return out;
}

}  // namespace

TEST_CASE("leaf_spine: one leaf switch inside a leaf, leaf-spine-leaf across leaves",
          "[routing][leaf_spine]") {
  const Topology t(small_fabric());
  CHECK(t.num_leaves() == 2);
  CHECK(t.leaf_of_ild(3) == 0);
  CHECK(t.leaf_of_ild(4) == 1);
  // IPU 1 (domain 0) to IPU 13 (domain 3, same leaf).
  CHECK(names(t, t.route(1, 13)) == std::vector<std::string>{"ipu1->m0.gw", "m0->leaf0",
                                                             "leaf0.gw_switch", "leaf0->m3",
                                                             "m3.gw->ipu13"});
  // IPU 1 (leaf 0) to IPU 17 (domain 4, leaf 1).
  CHECK(names(t, t.route(1, 17)) ==
        std::vector<std::string>{"ipu1->m0.gw", "m0->leaf0", "leaf0.gw_switch", "leaf0->spine",
                                 "spine->leaf1", "leaf1.gw_switch", "leaf1->m4", "m4.gw->ipu17"});
  CHECK(t.tier(t.route(1, 17)) == LinkTier::GwLink);
  CHECK(t.gw_hops(0, 7) == 1);
}

TEST_CASE("leaf_spine: each leaf's uplink is its machines' GW-Links over the oversubscription",
          "[routing][leaf_spine]") {
  HwParams p = small_fabric();
  p.machine.leaf_oversubscription = 4;
  const Topology t(p);
  const double link = p.machine.gw_link_bandwidth_GBps * p.machine.gw_link_efficiency;
  for (const auto& r : t.resource_specs()) {
    // 4 machines x 2 GW-Links / 4 = 2 links of uplink per leaf.
    if (r.name == "leaf1->spine") {
      CHECK(r.capacity_Bpns == Approx(4 * 2 * link / 4));
      CHECK(r.links == 2);
    }
  }
}
