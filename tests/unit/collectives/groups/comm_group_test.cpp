// CommGroup: printing, the attribute form, Orthogonal membership (decision (a)), invalid
// conversions and the deprecated complement helpers.
#include "collectives/groups/comm_group.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace ipusim::coll;
using Catch::Matchers::Contains;
using Groups = std::vector<std::vector<unsigned>>;

TEST_CASE("CommGroup printing", "[groups]") {
  CHECK(CommGroup().str() == "CommGroup(type=All, replicaGroupSize=0)");
  CHECK(CommGroup(CommGroupType::Orthogonal, 4).str() ==
        "CommGroup(type=Orthogonal, replicaGroupSize=4)");
  CHECK(to_string(CommGroupType::None) == "None");
  CHECK(to_string(CommGroupType::Consecutive) == "Consecutive");
}

TEST_CASE("Orthogonal k is R/k groups of k replicas with stride R/k", "[groups]") {
  // R = 8, k = 2: m = 4 groups {0,4},{1,5},{2,6},{3,7}.
  CHECK(CommGroup(CommGroupType::Orthogonal, 2).toReplicaGrouping(8).getGroups() ==
        Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  // R = 8, k = 4: m = 2 groups {0,2,4,6},{1,3,5,7}.
  CHECK(CommGroup(CommGroupType::Orthogonal, 4).toReplicaGrouping(8).getGroups() ==
        Groups{{0, 2, 4, 6}, {1, 3, 5, 7}});
  CHECK(CommGroup(CommGroupType::Consecutive, 4).toReplicaGrouping(8).getGroups() ==
        Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});
  CHECK(CommGroup(CommGroupType::None, 7).toReplicaGrouping(2).getGroups() == Groups{{0}, {1}});
  CHECK(CommGroup(CommGroupType::All, 5).toReplicaGrouping(3).getGroups() == Groups{{0, 1, 2}});
}

TEST_CASE("invalid CommGroups fail with the ReplicaGrouping reason", "[groups]") {
  CHECK_THROWS_WITH(CommGroup(CommGroupType::Consecutive, 3).toReplicaGrouping(8),
                    Contains("must be divisible by the product of the stride and the group size"));
  CHECK_THROWS_WITH(CommGroup(CommGroupType::Consecutive, 0).toReplicaGrouping(8),
                    Contains("The group size in a `popart::ReplicaGrouping` must be a positive"));
  // Orthogonal 16 on 8 replicas: stride 8/16 = 0.
  CHECK_THROWS_WITH(CommGroup(CommGroupType::Orthogonal, 16).toReplicaGrouping(8),
                    Contains("The stride in a `popart::ReplicaGrouping` must be a positive"));
  CHECK_THROWS_WITH(CommGroup(CommGroupType::Orthogonal, 0).toReplicaGrouping(8),
                    Contains("Attempting to use 0 as a CommGroupSize"));
  CHECK_THROWS_WITH(CommGroup(CommGroupType::Orthogonal, 3).toReplicaGrouping(8),
                    Contains("must be divisible"));
}

TEST_CASE("ReplicaGrouping -> CommGroup rules and failure", "[groups]") {
  CHECK(CommGroup(ReplicaGrouping(8, 1, 1)) == CommGroup(CommGroupType::None, 0));
  CHECK(CommGroup(ReplicaGrouping(8)) == CommGroup(CommGroupType::All, 0));
  CHECK(CommGroup(ReplicaGrouping(8, 4, 2)) == CommGroup(CommGroupType::Orthogonal, 2));
  CHECK(CommGroup(ReplicaGrouping(8, 1, 2)) == CommGroup(CommGroupType::Consecutive, 2));
  // RG(8,2,2): stride 2, 4 groups -> neither Orthogonal nor Consecutive.
  CHECK_THROWS_WITH(CommGroup(ReplicaGrouping(8, 2, 2)),
                    Contains("The 'ReplicaGrouping(numReplicas=8, stride=2, groupSize=2)' cannot "
                             "be converted to a `popart::CommGroup`."));
}

TEST_CASE("__collectiveCommGroup attribute parsing", "[groups]") {
  CHECK(commGroupFromVector({}) == CommGroup());
  CHECK(commGroupFromVector({1, 4}) == CommGroup(CommGroupType::Consecutive, 4));
  CHECK(commGroupFromVector({2, 2}) == CommGroup(CommGroupType::Orthogonal, 2));
  CHECK_THROWS_WITH(commGroupFromVector({1}), Contains("Invalid commGroup data for collective op"));
  CHECK_THROWS_WITH(commGroupFromVector({1, 2, 3}), Contains("Invalid commGroup data"));
  CHECK_THROWS_WITH(commGroupFromVector({3, 0}),
                    Contains("Unknown commGroup type for collective op"));  // None not allowed
  CHECK_THROWS_WITH(commGroupFromVector({1, 1LL << 33}),
                    Contains("Replica group size in commGroup is too large"));
  CHECK_THROWS_WITH(commGroupFromVector({1, -1}), Contains("too large"));
}

TEST_CASE("deprecated complement CommGroups", "[groups]") {
  using T = CommGroupType;
  CHECK(getComplementCommGroup(8, CommGroup(T::Consecutive, 2)) == CommGroup(T::Orthogonal, 4));
  CHECK(getComplementCommGroup(8, CommGroup(T::Orthogonal, 2)) == CommGroup(T::Consecutive, 4));
  CHECK(getComplementCommGroup(8, CommGroup(T::None, 0)) == CommGroup(T::All, 0));
  CHECK(getComplementCommGroup(8, CommGroup(T::All, 0)) == CommGroup(T::None, 0));
  // Consecutive 2 = {0,1},{2,3},..; its complement Orthogonal 4 = {0,2,4,6},{1,3,5,7}.
  CHECK(getComplementCommGroup(8, CommGroup(T::Consecutive, 2)).toReplicaGrouping(8) ==
        ReplicaGrouping(8, 2, 4));

  CHECK(getComplementCommGroupWithSuperSet(8, CommGroup(T::Consecutive, 2), CommGroup()) ==
        CommGroup(T::Orthogonal, 4));
  CHECK(getComplementCommGroupWithSuperSet(8, CommGroup(T::None, 0), CommGroup(T::None, 0)) ==
        CommGroup(T::None, 0));
  CHECK(getComplementCommGroupWithSuperSet(8, CommGroup(T::Consecutive, 2),
                                           CommGroup(T::Consecutive, 2)) == CommGroup(T::None, 0));
  CHECK_THROWS_WITH(getComplementCommGroupWithSuperSet(8, CommGroup(T::Consecutive, 2),
                                                       CommGroup(T::Consecutive, 4)),
                    Contains("Could not return a supported CommGroup complement of "
                             "CommGroup(type=Consecutive, replicaGroupSize=2) within the "
                             "super-set: CommGroup(type=Consecutive, replicaGroupSize=4)"));
}
