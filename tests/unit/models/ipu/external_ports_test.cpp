// IPU-Link port groups (models/ipu/external_ports.hpp): which group a tile uses, the share of
// a bundle a group holds, and the time a phase's bytes need at that share, worked by hand.
#include "models/ipu/external_ports.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

using namespace ipusim;

TEST_CASE("external port group: the columns split into equal runs along the exchange",
          "[exchange][external_ports]") {
  // GC200: 1472 tiles in 16 columns of 92; 2 groups of 8 columns = 736 tiles each.
  CHECK(external_port_group(0, 1472, 16, 2) == 0);
  CHECK(external_port_group(31, 1472, 16, 2) == 0);   // gc-iputraffictest's tiles: column 0
  CHECK(external_port_group(735, 1472, 16, 2) == 0);  // 735 / 92 = column 7
  CHECK(external_port_group(736, 1472, 16, 2) == 1);  // column 8
  CHECK(external_port_group(1471, 1472, 16, 2) == 1);
  // GC2: 1216 tiles in 16 columns of 76: column 8 starts at tile 608.
  CHECK(external_port_group(607, 1216, 16, 2) == 0);
  CHECK(external_port_group(608, 1216, 16, 2) == 1);
  // 4 groups of 4 columns (368 tiles); one group: every tile in group 0.
  CHECK(external_port_group(368, 1472, 16, 4) == 1);
  CHECK(external_port_group(1103, 1472, 16, 4) == 2);  // 1103 / 92 = column 11
  CHECK(external_port_group(1471, 1472, 16, 1) == 0);
}

TEST_CASE("external port share: links spread evenly over the groups, a short bundle shared",
          "[exchange][external_ports]") {
  CHECK(external_port_share(4, 2) == 0.5);  // M2000 partner bundle: 2 x8 links per group
  CHECK(external_port_share(2, 2) == 0.5);  // C2 partner bundle: one 32 GB/s link per group
  CHECK(external_port_share(1, 2) == 1.0);  // one link (C2 rail): every group reaches it
  CHECK(external_port_share(4, 1) == 1.0);  // one group: the model before port groups
  CHECK(external_port_share(8, 4) == 0.25);
}

TEST_CASE("external ports time: the busiest group at its share, or one pool when shared",
          "[exchange][external_ports]") {
  // gc-iputraffictest, one direction: 32 tiles x 64 KiB = 2,097,152 B, all in group 0, on the
  // partner bundle of 4 links of 58.4 B/ns in all: 2,097,152 / 29.2 = 71,820.27 ns.
  const std::vector<std::uint64_t> one_group = {2097152, 0};
  CHECK(external_ports_ns(one_group, 58.4, 4) == Approx(2097152 / 29.2).epsilon(1e-12));
  // The same bytes spread over both groups: 1,048,576 each at 29.2 = the whole bundle's
  // 2,097,152 / 58.4 = 35,910.14 ns (the link flow itself then binds: it adds its latency).
  const std::vector<std::uint64_t> both = {1048576, 1048576};
  CHECK(external_ports_ns(both, 58.4, 4) == Approx(2097152 / 58.4).epsilon(1e-12));
  // Contention: a group's tiles share its ports, so 3 MiB in group 1 beside 1 MiB in group 0
  // takes 3,145,728 / 29.2 = 107,730.41 ns.
  CHECK(external_ports_ns({1048576, 3145728}, 58.4, 4) == Approx(3145728 / 29.2).epsilon(1e-12));
  // One link, two groups: both groups' bytes share it, (1000 + 3000) / 27.2 = 147.06 ns.
  CHECK(external_ports_ns({1000, 3000}, 27.2, 1) == Approx(4000 / 27.2).epsilon(1e-12));
  CHECK(external_ports_ns({0, 0}, 58.4, 4) == 0.0);
  CHECK(external_ports_ns({100, 0}, 0.0, 4) == 0.0);  // no capacity: not a port-bound phase
}
