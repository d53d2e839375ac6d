// PopART conformance, reference §2.3 (E10–E18, popart test_variablesettings.cpp and the
// VariableSettings documentation).
#include <catch2/catch.hpp>
#include <vector>

#include "collectives/groups/variable_settings.hpp"

using ipusim::coll::CommGroup;
using ipusim::coll::CommGroupType;
using ipusim::coll::ReplicaGrouping;
using ipusim::coll::Shape;
using ipusim::coll::VariableRetrievalMode;
using ipusim::coll::VariableSettings;
using Groups = std::vector<std::vector<std::int64_t>>;

TEST_CASE("E10 stride-form getReplicaGrouping", "[conformance][E10]") {
  const VariableSettings one(1, 8);
  CHECK(one.getReplicaGrouping(8) == ReplicaGrouping(8));
  CHECK(one.getRetrievalMode() == VariableRetrievalMode::OnePerGroup);
  const VariableSettings all(1, 8, VariableRetrievalMode::AllReplicas);
  CHECK(all.getReplicaGrouping(8) == ReplicaGrouping(8));
  CHECK(all.getRetrievalMode() == VariableRetrievalMode::AllReplicas);
}

TEST_CASE("E11 CommGroup-form getReplicaGrouping and domain", "[conformance][E11]") {
  const VariableSettings vs{CommGroup()};
  CHECK(vs.getReplicaGrouping(8) == ReplicaGrouping(8));
  CHECK(vs.getSharedVariableDomain() == CommGroup());
}

TEST_CASE("E12 numReplicasReturningVariable for VS(4,2) on 8 replicas", "[conformance][E12]") {
  CHECK(
      VariableSettings(4, 2, VariableRetrievalMode::OnePerGroup).numReplicasReturningVariable(8) ==
      4);
  CHECK(VariableSettings(4, 2, VariableRetrievalMode::AllReduceReplicas)
            .numReplicasReturningVariable(8) == 4);
  CHECK(
      VariableSettings(4, 2, VariableRetrievalMode::AllReplicas).numReplicasReturningVariable(8) ==
      8);
}

TEST_CASE("E13 VS(4,2) counts on 8 replicas", "[conformance][E13]") {
  const VariableSettings vs(4, 2);
  CHECK(vs.getGroupCount(8) == 4);
  CHECK(vs.getStride(8) == 4);
  CHECK(vs.getRealGroupSize(8) == 2);
}

TEST_CASE("E14 VS(2,2) group representative", "[conformance][E14]") {
  CHECK(VariableSettings(2, 2).getGroupRepresentative(2) == 4);
}

namespace {
VariableSettings fromGrouping(const ReplicaGrouping& rg) {
  return VariableSettings(rg.getStride(), rg.getGroupSize());
}
}  // namespace

TEST_CASE("E15 shapeOnReplica", "[conformance][E15]") {
  const auto all = fromGrouping(ReplicaGrouping(8));
  CHECK(all.shapeOnReplica({}, 8, "t") == Shape{});
  CHECK(all.shapeOnReplica({1}, 8, "t") == Shape{1});
  CHECK(all.shapeOnReplica({4, 2}, 8, "t") == Shape{4, 2});
  const auto two = fromGrouping(ReplicaGrouping(8, 1, 4));
  CHECK(two.shapeOnReplica({2}, 8, "t") == Shape{});
  CHECK(two.shapeOnReplica({2, 3}, 8, "t") == Shape{3});
}

TEST_CASE("E16 shapeOnHost", "[conformance][E16]") {
  const auto all = fromGrouping(ReplicaGrouping(8));
  CHECK(all.shapeOnHost({}, 8) == Shape{});
  CHECK(all.shapeOnHost({1}, 8) == Shape{1});
  CHECK(all.shapeOnHost({4, 2}, 8) == Shape{4, 2});
  const auto two = fromGrouping(ReplicaGrouping(8, 1, 4));
  CHECK(two.shapeOnHost({}, 8) == Shape{2});
  CHECK(two.shapeOnHost({3}, 8) == Shape{2, 3});
}

TEST_CASE("E17 VS(2,2).groups(8)", "[conformance][E17]") {
  CHECK(VariableSettings(2, 2).groups(8) == Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
}

TEST_CASE("E18 documentation example: R = 4, Consecutive 2", "[conformance][E18]") {
  const CommGroup consecutive2(CommGroupType::Consecutive, 2);
  const VariableSettings one(consecutive2, VariableRetrievalMode::OnePerGroup);
  const VariableSettings all(consecutive2, VariableRetrievalMode::AllReplicas);
  CHECK(one.getGroupCount(4) == 2);
  CHECK(one.numReplicasReturningVariable(4) == 2);
  CHECK(all.numReplicasReturningVariable(4) == 4);
  CHECK(one.shapeOnHost({3, 5}, 4) == Shape{2, 3, 5});  // initializer
  // Read-back buffers: [numReplicasReturningVariable] + base shape.
  CHECK(Shape{one.numReplicasReturningVariable(4), 3, 5} == Shape{2, 3, 5});
  CHECK(Shape{all.numReplicasReturningVariable(4), 3, 5} == Shape{4, 3, 5});
  // Documentation example with base shape [2,3,4]: [2,2,3,4] and [4,2,3,4].
  CHECK(one.shapeOnHost({2, 3, 4}, 4) == Shape{2, 2, 3, 4});
}

TEST_CASE("E18 documentation tables: R = 16", "[conformance][E18]") {
  CHECK(VariableSettings(CommGroup(CommGroupType::Consecutive, 4)).groups(16) ==
        Groups{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}});
  CHECK(VariableSettings(CommGroup(CommGroupType::Orthogonal, 4)).groups(16) ==
        Groups{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}});
  Groups singles;
  for (std::int64_t r = 0; r < 16; ++r) singles.push_back({r});
  CHECK(VariableSettings(CommGroup(CommGroupType::None, 0)).groups(16) == singles);
  // The grouping view agrees with the documentation tables too.
  CHECK(CommGroup(CommGroupType::Orthogonal, 4).toReplicaGrouping(16).getReplicasAt(1) ==
        std::vector<unsigned>{1, 5, 9, 13});
}
