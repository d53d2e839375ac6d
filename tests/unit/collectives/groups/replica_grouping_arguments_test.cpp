// PopART's ReplicaGrouping checks its arguments as given, before it normalises the stride of
// a size-1 group (popart_semantics.md §1.2): N % (stride * groupSize) uses the given stride.
#include <catch2/catch.hpp>

#include "collectives/groups/replica_grouping.hpp"

using namespace ipusim::coll;
using Catch::Contains;

TEST_CASE("size-1 groups: the given stride must divide the replica count", "[groups]") {
  // Hand-worked: 4 % 3 = 1, 8 % 3 = 2, 12 % 5 = 2 are refused; 6 % 3, 9 % 3, 12 % 6 = 0 pass.
  for (auto [n, s] : {std::pair<unsigned, unsigned>{4, 3}, {8, 3}, {12, 5}}) {
    INFO(n << " " << s);
    CHECK_THROWS_WITH(checkReplicaGroupingArguments(n, s, 1),
                      Contains("must be divisible by the product"));
    CHECK_THROWS_AS(ReplicaGrouping(n, s, 1), GroupError);
  }
  for (auto [n, s] : {std::pair<unsigned, unsigned>{6, 3}, {9, 3}, {12, 6}}) {
    INFO(n << " " << s);
    CHECK_NOTHROW(checkReplicaGroupingArguments(n, s, 1));
    CHECK(ReplicaGrouping(n, s, 1) == ReplicaGrouping(n, 1, 1));  // normalised afterwards
  }
  // Larger groups: 12 % (4 * 2) = 4 refused, 12 % (4 * 3) = 0 passes.
  CHECK_THROWS_AS(checkReplicaGroupingArguments(12, 4, 2), GroupError);
  CHECK_NOTHROW(checkReplicaGroupingArguments(12, 4, 3));
}

TEST_CASE("the checks name where the arguments came from when asked", "[groups]") {
  CHECK_THROWS_WITH(
      checkReplicaGroupingArguments(4, 3, 1, "--stride/--group-size"),
      Contains(
          "--stride/--group-size (numReplicas=4, stride=3, groupSize=1): The number of replicas"));
  CHECK_THROWS_WITH(checkReplicaGroupingArguments(4, 0, 1, "x"),
                    Contains("The stride in a `popart::ReplicaGrouping`"));
  // Without a source, PopART's sentence comes first, then the values.
  CHECK_THROWS_WITH(
      ReplicaGrouping(0, 1, 1),
      Catch::StartsWith(
          "The number of replicas in a `popart::ReplicaGrouping` must be a positive integer.") &&
          Contains("numReplicas=0"));
}
