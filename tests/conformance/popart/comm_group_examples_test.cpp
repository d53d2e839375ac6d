// PopART conformance, reference §2.2 (E8–E9, popart test_commgroup.cpp).
#include <catch2/catch.hpp>

#include "collectives/groups/comm_group.hpp"

using ipusim::coll::CommGroup;
using ipusim::coll::CommGroupType;
using ipusim::coll::ReplicaGrouping;

TEST_CASE("E8 CommGroup <-> ReplicaGrouping with R = 4", "[conformance][E8]") {
  struct Pair {
    CommGroup group;
    ReplicaGrouping grouping;
  };
  const Pair pairs[] = {
      {CommGroup(CommGroupType::All, 0), ReplicaGrouping(4, 1, 4)},
      {CommGroup(CommGroupType::Consecutive, 2), ReplicaGrouping(4, 1, 2)},
      {CommGroup(CommGroupType::Orthogonal, 2), ReplicaGrouping(4, 2, 2)},
      {CommGroup(CommGroupType::None, 0), ReplicaGrouping(4, 2, 1)},
  };
  for (const auto& p : pairs) {
    INFO(p.group.str() << " <-> " << p.grouping.str());
    CHECK(p.group.toReplicaGrouping(4) == p.grouping);
    CHECK(CommGroup(p.grouping) == p.group);
  }
  CHECK(CommGroup(ReplicaGrouping(4, 1, 1)) == CommGroup(CommGroupType::None, 0));
}

TEST_CASE("E9 CommGroup equality", "[conformance][E9]") {
  CHECK(CommGroup(CommGroupType::All, 0) == CommGroup(CommGroupType::All, 0));
  CHECK_FALSE(CommGroup(CommGroupType::All, 0) == CommGroup(CommGroupType::None, 0));
  CHECK_FALSE(CommGroup(CommGroupType::All, 0) == CommGroup(CommGroupType::All, 1));
  CHECK(CommGroup() == CommGroup(CommGroupType::All, 0));
}
