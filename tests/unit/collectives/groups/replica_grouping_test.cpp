// ReplicaGrouping beyond the upstream examples: membership checked against an independent
// construction (popxl's "assignment" fill), range errors, and transpose properties over
// every valid grouping of up to 24 replicas.
#include "collectives/groups/replica_grouping.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <vector>

using Catch::Matchers::Contains;
using ipusim::coll::getTransposedReplicaGroupingWithSuperSet;
using ipusim::coll::GroupError;
using ipusim::coll::ReplicaGrouping;

namespace {

// popxl replica_grouping.py: group i starts at the first unassigned replica and takes
// offset, offset + s, ... (g members). Independent of the closed-form groupAt formula.
std::vector<unsigned> popxlAssignment(unsigned n, unsigned s, unsigned g) {
  if (g == 1) s = 1;
  std::vector<int> assignment(n, -1);
  int group = 0;
  for (unsigned start = 0; start < n; ++start) {
    if (assignment[start] != -1) continue;
    for (unsigned i = 0; i < g; ++i) assignment[start + i * s] = group;
    ++group;
  }
  return std::vector<unsigned>(assignment.begin(), assignment.end());
}

// Every (N, s, g) that the constructor accepts, N <= 24.
std::vector<ReplicaGrouping> allValidGroupings() {
  std::vector<ReplicaGrouping> out;
  for (unsigned n = 1; n <= 24; ++n) {
    for (unsigned s = 1; s <= n; ++s) {
      for (unsigned g = 1; g <= n; ++g) {
        if (n % (s * g) == 0) out.emplace_back(n, s, g);
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("groupAt matches popxl's assignment fill for every valid grouping", "[groups]") {
  for (unsigned n = 1; n <= 24; ++n) {
    for (unsigned s = 1; s <= n; ++s) {
      for (unsigned g = 1; g <= n; ++g) {
        if (n % (s * g) != 0) continue;
        const ReplicaGrouping rg(n, s, g);
        const auto expected = popxlAssignment(n, s, g);
        for (unsigned r = 0; r < n; ++r) {
          INFO(rg.str() << " replica " << r);
          REQUIRE(rg.getGroupAt(r) == expected[r]);
        }
      }
    }
  }
}

TEST_CASE("replicasAt, groupAt and indexInGroupAt are consistent", "[groups]") {
  for (const auto& rg : allValidGroupings()) {
    INFO(rg.str());
    std::set<unsigned> seen;
    for (unsigned group = 0; group < rg.getNumGroups(); ++group) {
      const auto members = rg.getReplicasAt(group);
      REQUIRE(members.size() == rg.getGroupSize());
      for (unsigned i = 0; i < members.size(); ++i) {
        REQUIRE(rg.getGroupAt(members[i]) == group);
        REQUIRE(rg.getIndexInGroupAt(members[i]) == i);
        seen.insert(members[i]);
      }
    }
    REQUIRE(seen.size() == rg.getNumReplicas());  // the groups partition the replicas
  }
}

TEST_CASE("transpose: representable cases invert and cross every group once", "[groups]") {
  for (const auto& rg : allValidGroupings()) {
    const bool representable =
        rg.getStride() == 1 || rg.getStride() * rg.getGroupSize() == rg.getNumReplicas();
    INFO(rg.str());
    if (!representable) {
      REQUIRE_THROWS_WITH(rg.getTranspose(),
                          Contains("The transpose of '" + rg.str() +
                                   "' cannot be represented as a `popart::ReplicaGrouping`."));
      continue;
    }
    const ReplicaGrouping t = rg.getTranspose();
    REQUIRE(t.getTranspose() == rg);
    // Each transpose group meets each original group in exactly one replica.
    for (unsigned a = 0; a < rg.getNumGroups(); ++a) {
      for (unsigned b = 0; b < t.getNumGroups(); ++b) {
        unsigned common = 0;
        for (unsigned r : rg.getReplicasAt(a)) common += t.getGroupAt(r) == b;
        REQUIRE(common == 1);
      }
    }
  }
}

TEST_CASE("the divisibility check uses the stride before normalisation", "[groups]") {
  // RG(4,3,1) fails although RG(4,1,1) is fine; RG(6,3,1) passes and normalises.
  REQUIRE_THROWS_AS(ReplicaGrouping(4, 3, 1), GroupError);
  const ReplicaGrouping rg(6, 3, 1);
  CHECK(rg.getStride() == 1);
  CHECK(rg.str() == "ReplicaGrouping(numReplicas=6, stride=1, groupSize=1)");
  CHECK(ReplicaGrouping(8) == ReplicaGrouping(8, 1, 8));
}

TEST_CASE("range checks name the grouping", "[groups]") {
  const ReplicaGrouping rg(8, 2, 2);
  const std::string name = "'ReplicaGrouping(numReplicas=8, stride=2, groupSize=2)'.";
  CHECK_THROWS_WITH(rg.getGroupAt(8),
                    Contains("The requested replica index is outside the valid range for " + name));
  CHECK_THROWS_WITH(rg.getIndexInGroupAt(9),
                    Contains("The requested replica index is outside the valid range"));
  CHECK_THROWS_WITH(rg.getReplicaAt(4),
                    Contains("The requested group index is outside the valid range for " + name));
  CHECK_THROWS_WITH(rg.getReplicasAt(4), Contains("The requested group index"));
  CHECK_THROWS_WITH(rg.getReplicaAt(0, 2),
                    Contains("The requested index is outside the valid range for " + name));
  // RG(8,2,2): groups {0,2},{1,3},{4,6},{5,7}; it has no representable transpose.
  CHECK(rg.getGroups() == std::vector<std::vector<unsigned>>{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  CHECK_THROWS_AS(rg.getTranspose(), GroupError);
}

TEST_CASE("getTransposedReplicaGroupingWithSuperSet", "[groups]") {
  // Super-set with one group: the plain transpose.
  CHECK(getTransposedReplicaGroupingWithSuperSet(ReplicaGrouping(8, 1, 4), ReplicaGrouping(8)) ==
        ReplicaGrouping(8, 4, 2));
  CHECK(getTransposedReplicaGroupingWithSuperSet(ReplicaGrouping(8), ReplicaGrouping(8)) ==
        ReplicaGrouping(8, 1, 1));
  // Both singletons, or equal groupings: nothing left to complement.
  CHECK(getTransposedReplicaGroupingWithSuperSet(
            ReplicaGrouping(8, 1, 1), ReplicaGrouping(8, 1, 1)) == ReplicaGrouping(8, 1, 1));
  CHECK(getTransposedReplicaGroupingWithSuperSet(
            ReplicaGrouping(8, 1, 4), ReplicaGrouping(8, 1, 4)) == ReplicaGrouping(8, 1, 1));
  CHECK_THROWS_WITH(
      getTransposedReplicaGroupingWithSuperSet(ReplicaGrouping(8, 1, 2), ReplicaGrouping(4)),
      Contains("Expected the number of replicas in the groups to be equal."));
  CHECK_THROWS_WITH(
      getTransposedReplicaGroupingWithSuperSet(ReplicaGrouping(8, 1, 2), ReplicaGrouping(8, 1, 4)),
      Contains("Could not return a supported ReplicaGrouping transpose of "
               "ReplicaGrouping(numReplicas=8, stride=1, groupSize=2) within the "
               "super-set: ReplicaGrouping(numReplicas=8, stride=1, groupSize=4)"));
}
