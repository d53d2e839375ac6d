// Topology and routing: ladder and torus paths, GW-Link rings and switches, host paths.
#include "models/network/routing.hpp"

#include <catch2/catch.hpp>

using namespace ipusim;

namespace {

HwParams pod(std::uint32_t ilds, std::uint32_t machines, IpuLinkTopology t, GwTopology gw) {
  HwParams p = registry_hw_params();
  p.system.num_ilds = ilds;
  p.system.machines_per_ild = machines;
  p.system.ipu_link_topology = t;
  p.system.gw_topology = gw;
  return p;
}

std::vector<std::string> names(const Topology& topo, const Route& r) {
  std::vector<std::string> out;
  for (ResourceId id : r) out.push_back(topo.resource_specs()[id].name);
  return out;
}

}  // namespace

TEST_CASE("ladder: partners use the partner bundle; other rail crosses first, then the rail",
          "[routing]") {
  Topology t(pod(1, 4, IpuLinkTopology::Ladder, GwTopology::None));
  CHECK(t.num_ipus() == 16);
  CHECK_FALSE(t.torus());
  CHECK(names(t, t.route(0, 1)) == std::vector<std::string>{"ipu0->ipu1.partner"});
  CHECK(names(t, t.route(0, 5)) ==
        std::vector<std::string>{"ipu0->ipu1.cross", "ipu1->ipu3.up", "ipu3->ipu5.up"});
  CHECK(names(t, t.route(6, 0)) ==
        std::vector<std::string>{"ipu6->ipu4.down", "ipu4->ipu2.down", "ipu2->ipu0.down"});
  CHECK(t.route(0, 14).size() == 7);  // no wrap on a ladder
  CHECK(t.route(3, 3).empty());
  CHECK(t.tier(t.route(0, 5)) == LinkTier::IpuLink);
}

TEST_CASE("torus: rails wrap round when that is shorter", "[routing]") {
  Topology t(pod(1, 16, IpuLinkTopology::Torus, GwTopology::None));
  CHECK(t.torus());
  CHECK(names(t, t.route(0, 62)) == std::vector<std::string>{"ipu0->ipu62.wrap"});
  CHECK(names(t, t.route(63, 1)) == std::vector<std::string>{"ipu63->ipu1.wrap"});
  CHECK(t.route(0, 32).size() == 16);  // half way round either way: 16 hops
  CHECK(t.ipu_link_hops(2, 61) == 4);  // cross to 3, then 3 -> 1 -> 63 -> 61
}

TEST_CASE("a torus of two rungs (one machine) has no wrap links", "[routing]") {
  Topology t(pod(1, 1, IpuLinkTopology::Torus, GwTopology::None));
  CHECK_FALSE(t.torus());
  CHECK(t.route(0, 2).size() == 1);
  CHECK(t.route(1, 2).size() == 2);
}

TEST_CASE("GW-Link ring: same position in the next domain, several hops, then IPU-Links",
          "[routing]") {
  Topology t(pod(4, 16, IpuLinkTopology::Torus, GwTopology::Ring));
  // IPU 5 is in machine 1 of domain 0; domain 2 is two hops east (or west): east on ties.
  const Route r = t.route(5, 2 * 64 + 5);
  CHECK(names(t, r) == std::vector<std::string>{"ipu5->m1.gw", "m1->m17.gw_link",
                                                "m17->m33.gw_link", "m33.gw->ipu133"});
  CHECK(t.tier(r) == LinkTier::GwLink);
  CHECK(names(t, t.route(5, 3 * 64 + 5))[1] == "m1->m49.gw_link");  // one hop west
  CHECK(t.route(5, 64 + 7).size() == 4);  // ... + one IPU-Link hop in the target domain
  CHECK(t.gw_hops(0, 2) == 2);
  CHECK(t.gw_hops(0, 3) == 1);
}

TEST_CASE("switched GW-Links: uplink, switch, downlink to the destination machine", "[routing]") {
  Topology t(pod(4, 16, IpuLinkTopology::Torus, GwTopology::Switch));
  CHECK(names(t, t.route(0, 255)) == std::vector<std::string>{"ipu0->m0.gw", "m0->gw_switch",
                                                              "gw_switch", "gw_switch->m63",
                                                              "m63.gw->ipu255"});
  CHECK(t.gw_hops(0, 3) == 1);
}

TEST_CASE("streaming memory and host paths", "[routing]") {
  Topology t(pod(1, 4, IpuLinkTopology::Torus, GwTopology::None));
  CHECK(names(t, t.remote_load_route(6)) == std::vector<std::string>{"m1.ddr", "m1.gw->ipu6"});
  CHECK(names(t, t.remote_store_route(6)) == std::vector<std::string>{"ipu6->m1.gw", "m1.ddr"});
  CHECK(names(t, t.host_write_route(6)) ==
        std::vector<std::string>{"host->m1", "m1.ddr", "m1.gw->ipu6"});
  CHECK(t.tier(t.host_read_route(6)) == LinkTier::HostIo);
  CHECK(t.tier(t.remote_load_route(6)) == LinkTier::StreamingMemory);
}

TEST_CASE("a 4096-IPU system builds its resources without all-pairs tables", "[routing]") {
  Topology t(pod(64, 16, IpuLinkTopology::Torus, GwTopology::Switch));
  CHECK(t.num_ipus() == 4096);
  // Per IPU: partner, cross, up, down (all wrap on a 32-rung torus), 2 gateway links;
  // per machine: DDR, 2 host links, uplink, downlink; plus the switch.
  CHECK(t.resource_specs().size() == 4096u * 6 + 1024u * 5 + 1);
}
