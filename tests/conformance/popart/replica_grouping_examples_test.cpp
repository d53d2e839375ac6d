// PopART conformance, reference §2.1 (E1–E7, popart test_replicagrouping.cpp). Expected
// values are the upstream test's, transcribed from the reference document.
#include <catch2/catch.hpp>
#include <vector>

#include "collectives/groups/replica_grouping.hpp"

using Catch::Matchers::Contains;
using ipusim::coll::GroupError;
using ipusim::coll::ReplicaGrouping;

TEST_CASE("E1 ReplicaGrouping constructor errors", "[conformance][E1]") {
  REQUIRE_THROWS_WITH(ReplicaGrouping(0, 1, 1),
                      Contains("The number of replicas in a `popart::ReplicaGrouping` must be "
                               "a positive integer."));
  REQUIRE_THROWS_WITH(ReplicaGrouping(1, 0, 1),
                      Contains("The stride in a `popart::ReplicaGrouping` must be a positive "
                               "integer."));
  REQUIRE_THROWS_WITH(ReplicaGrouping(1, 1, 0),
                      Contains("The group size in a `popart::ReplicaGrouping` must be a "
                               "positive integer."));
  const char* divisible =
      "The number of replicas in a `popart::ReplicaGrouping` must be divisible by the product "
      "of the stride and the group size.";
  REQUIRE_THROWS_WITH(ReplicaGrouping(4, 3, 1), Contains(divisible));
  REQUIRE_THROWS_WITH(ReplicaGrouping(4, 1, 3), Contains(divisible));
  REQUIRE_THROWS_WITH(ReplicaGrouping(12, 4, 2), Contains(divisible));
  REQUIRE_THROWS_WITH(ReplicaGrouping(4, 4, 2), Contains(divisible));
  REQUIRE_THROWS_AS(ReplicaGrouping(4, 4, 2), GroupError);
  REQUIRE_THROWS_AS(ReplicaGrouping(4, 4, 2), std::invalid_argument);
}

TEST_CASE("E2 ReplicaGrouping accessors", "[conformance][E2]") {
  CHECK(ReplicaGrouping(8, 4, 2).getNumReplicas() == 8);
  CHECK(ReplicaGrouping(8, 2, 1).getStride() == 1);  // normalised
  CHECK(ReplicaGrouping(8, 4, 2).getStride() == 4);
  CHECK(ReplicaGrouping(8, 4, 2).getGroupSize() == 2);
  CHECK(ReplicaGrouping(8, 1, 2).getNumGroups() == 4);
}

namespace {
struct Row {
  unsigned n, s, g;
  std::vector<unsigned> expected;
};
}  // namespace

TEST_CASE("E3 groupAt for every replica", "[conformance][E3]") {
  const std::vector<Row> rows = {
      {1, 1, 1, {0}},          {2, 1, 1, {0, 1}},       {2, 2, 1, {0, 1}},
      {2, 1, 2, {0, 0}},       {3, 1, 1, {0, 1, 2}},    {3, 3, 1, {0, 1, 2}},
      {3, 1, 3, {0, 0, 0}},    {4, 1, 1, {0, 1, 2, 3}}, {4, 2, 1, {0, 1, 2, 3}},
      {4, 4, 1, {0, 1, 2, 3}}, {4, 1, 2, {0, 0, 1, 1}}, {4, 2, 2, {0, 1, 0, 1}},
      {4, 1, 4, {0, 0, 0, 0}},
  };
  for (const auto& row : rows) {
    const ReplicaGrouping rg(row.n, row.s, row.g);
    std::vector<unsigned> got;
    for (unsigned r = 0; r < row.n; ++r) got.push_back(rg.getGroupAt(r));
    INFO(rg.str());
    CHECK(got == row.expected);
  }
}

TEST_CASE("E4 indexInGroupAt on RG(18,2,3)", "[conformance][E4]") {
  const ReplicaGrouping rg(18, 2, 3);
  const std::vector<unsigned> expected = {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2};
  std::vector<unsigned> got;
  for (unsigned r = 0; r < 18; ++r) got.push_back(rg.getIndexInGroupAt(r));
  CHECK(got == expected);
}

TEST_CASE("E5 replicaAt / replicasAt", "[conformance][E5]") {
  using Groups = std::vector<std::vector<unsigned>>;
  struct G {
    unsigned n, s, g;
    Groups groups;
  };
  const std::vector<G> rows = {
      {1, 1, 1, {{0}}},
      {2, 1, 1, {{0}, {1}}},
      {2, 2, 1, {{0}, {1}}},
      {2, 1, 2, {{0, 1}}},
      {3, 1, 1, {{0}, {1}, {2}}},
      {3, 3, 1, {{0}, {1}, {2}}},
      {3, 1, 3, {{0, 1, 2}}},
      {4, 1, 1, {{0}, {1}, {2}, {3}}},
      {4, 2, 1, {{0}, {1}, {2}, {3}}},
      {4, 4, 1, {{0}, {1}, {2}, {3}}},
      {4, 1, 2, {{0, 1}, {2, 3}}},
      {4, 2, 2, {{0, 2}, {1, 3}}},
      {4, 1, 4, {{0, 1, 2, 3}}},
  };
  for (const auto& row : rows) {
    const ReplicaGrouping rg(row.n, row.s, row.g);
    INFO(rg.str());
    REQUIRE(rg.getNumGroups() == row.groups.size());
    for (unsigned group = 0; group < rg.getNumGroups(); ++group) {
      CHECK(rg.getReplicasAt(group) == row.groups[group]);
      for (unsigned i = 0; i < rg.getGroupSize(); ++i) {
        CHECK(rg.getReplicaAt(group, i) == row.groups[group][i]);
      }
    }
  }
}

TEST_CASE("E6 transpose", "[conformance][E6]") {
  CHECK(ReplicaGrouping(1, 1, 1).getTranspose() == ReplicaGrouping(1, 1, 1));
  CHECK(ReplicaGrouping(16, 1, 1).getTranspose() == ReplicaGrouping(16, 1, 16));
  CHECK(ReplicaGrouping(16, 16, 1).getTranspose() == ReplicaGrouping(16, 1, 16));
  CHECK(ReplicaGrouping(16, 1, 16).getTranspose() == ReplicaGrouping(16, 16, 1));
  CHECK(ReplicaGrouping(16, 1, 16).getTranspose() == ReplicaGrouping(16, 1, 1));
  CHECK(ReplicaGrouping(16, 1, 4).getTranspose() == ReplicaGrouping(16, 4, 4));
  CHECK(ReplicaGrouping(16, 4, 4).getTranspose() == ReplicaGrouping(16, 1, 4));
}

TEST_CASE("E7 equality", "[conformance][E7]") {
  CHECK(ReplicaGrouping(4, 2, 1) == ReplicaGrouping(4, 2, 1));
  CHECK(ReplicaGrouping(4, 2, 1) == ReplicaGrouping(4, 1, 1));
  CHECK_FALSE(ReplicaGrouping(8, 2, 1) == ReplicaGrouping(4, 2, 1));
  CHECK_FALSE(ReplicaGrouping(4, 2, 2) == ReplicaGrouping(4, 2, 1));
  CHECK(ReplicaGrouping(4, 2, 2) != ReplicaGrouping(4, 2, 1));
}
