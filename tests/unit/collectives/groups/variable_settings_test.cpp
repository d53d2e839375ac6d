// VariableSettings: the CommGroup-form table of the reference (§1.5) on R = 16, edge rules,
// errors, printing, and agreement between the two forms.
#include "collectives/groups/variable_settings.hpp"

#include <catch2/catch.hpp>
#include <numeric>
#include <vector>

using namespace ipusim::coll;
using Catch::Matchers::Contains;
using Groups = std::vector<std::vector<std::int64_t>>;
using Mode = VariableRetrievalMode;

TEST_CASE("CommGroup-form table on 16 replicas", "[groups]") {
  struct Row {
    CommGroup group;
    unsigned count, stride, size, rep2, returningOne, returningAll;
  };
  // Columns of the reference table (§1.5) evaluated with R = 16, k = 4, group 2.
  const Row rows[] = {
      {CommGroup(CommGroupType::All, 0), 1, 1, 16, 0, 1, 16},
      {CommGroup(CommGroupType::Consecutive, 4), 4, 1, 4, 8, 4, 16},
      {CommGroup(CommGroupType::Orthogonal, 4), 4, 4, 4, 2, 4, 16},
      {CommGroup(CommGroupType::None, 0), 16, 1, 1, 2, 16, 16},
  };
  for (const auto& row : rows) {
    INFO(row.group.str());
    const VariableSettings one(row.group, Mode::OnePerGroup);
    const VariableSettings all(row.group, Mode::AllReplicas);
    CHECK(one.getGroupCount(16) == row.count);
    CHECK(one.getStride(16) == row.stride);
    CHECK(one.getRealGroupSize(16) == row.size);
    CHECK(one.getGroupRepresentative(2) == row.rep2);
    CHECK(one.numReplicasReturningVariable(16) == row.returningOne);
    CHECK(VariableSettings(row.group, Mode::AllReduceReplicas).numReplicasReturningVariable(16) ==
          row.returningOne);
    CHECK(all.numReplicasReturningVariable(16) == row.returningAll);
  }
  std::vector<std::int64_t> everyone(16);
  std::iota(everyone.begin(), everyone.end(), 0);
  CHECK(VariableSettings().groups(16) == Groups{everyone});
}

TEST_CASE("group size 1 means one group per replica, whatever the type", "[groups]") {
  CHECK(VariableSettings(CommGroup(CommGroupType::Consecutive, 1)).getGroupCount(8) == 8);
  CHECK(
      VariableSettings(CommGroup(CommGroupType::Consecutive, 1)).numReplicasReturningVariable(8) ==
      8);
  // Upstream inconsistency kept on purpose: (All, 1) has 8 groups but a group size of 8.
  CHECK(VariableSettings(CommGroup(CommGroupType::All, 1)).getGroupCount(8) == 8);
  CHECK(VariableSettings(CommGroup(CommGroupType::All, 1)).getRealGroupSize(8) == 8);
}

TEST_CASE("VariableSettings errors", "[groups]") {
  CHECK_THROWS_WITH(VariableSettings(CommGroup(CommGroupType::Consecutive, 0)),
                    Contains("VariableSettings had 1 errors!"));
  CHECK_THROWS_WITH(VariableSettings(CommGroup(CommGroupType::Orthogonal, 0)),
                    Contains("VariableSettings had 1 errors!"));
  CHECK_NOTHROW(VariableSettings(CommGroup(CommGroupType::None, 0)));
  CHECK_THROWS_WITH(VariableSettings(0, 2),
                    Contains("The stride in a `popart::VariableSettings` must be a positive "
                             "integer."));
  CHECK_THROWS_WITH(VariableSettings(2, 0),
                    Contains("The group size in a `popart::VariableSettings` must be a positive "
                             "integer."));
  CHECK_THROWS_WITH(VariableSettings(2, 4).getSharedVariableDomain(),
                    Contains("The variable settings were not initialised using a "
                             "`popart::CommGroup` instance."));
  // Stride-form queries go through ReplicaGrouping, so an indivisible R fails there.
  CHECK_THROWS_WITH(VariableSettings(1, 3).getGroupCount(8), Contains("must be divisible"));
}

TEST_CASE("shapeOnReplica errors", "[groups]") {
  const VariableSettings byStride(1, 4);  // 2 groups on 8 replicas
  CHECK_THROWS_WITH(byStride.shapeOnReplica({}, 8, "w"),
                    Contains("Tensor 'w' should have at least one dimension when used with "
                             "`popart::VariableSettings` with more than 1 replica groups."));
  CHECK_THROWS_WITH(byStride.shapeOnReplica({3, 5}, 8, "w"),
                    Contains("Return mismatch with possibly appended outer dimension (3) of "
                             "Tensor: \"w\". should match numGroups: 2"));
  const VariableSettings byGroup(CommGroup(CommGroupType::Consecutive, 4));
  CHECK_THROWS_WITH(byGroup.shapeOnReplica({3, 5}, 8, "w"), Contains("should match numGroups: 2"));
  CHECK(byGroup.shapeOnReplica({2, 3, 5}, 8, "w") == Shape{3, 5});
}

TEST_CASE("VariableSettings printing, normalisation and equality", "[groups]") {
  CHECK(VariableSettings().str() ==
        "VariableSettings(commGroupType=All, groupSize=0, retrievalMode=OnePerGroup)");
  CHECK(VariableSettings(2, 4, Mode::AllReplicas).str() ==
        "VariableSettings(stide=2, groupSize=4, retrievalMode=AllReplicas)");
  CHECK(VariableSettings(4, 1).getStride() == 1);  // group size 1 normalises the stride
  CHECK(VariableSettings(4, 1) == VariableSettings(1, 1));
  CHECK(VariableSettings(CommGroup(CommGroupType::Consecutive, 2)) != VariableSettings(1, 2));
  CHECK(VariableSettings(1, 2, Mode::AllReplicas) != VariableSettings(1, 2));
  CHECK(VariableSettings(Mode::AllReplicas).getSharedVariableDomain() == CommGroup());
}

TEST_CASE("stride form and CommGroup form agree where both exist", "[groups]") {
  for (unsigned n = 1; n <= 24; ++n) {
    for (unsigned s = 1; s <= n; ++s) {
      for (unsigned g = 2; g <= n; ++g) {  // g = 1 hits the (All,1)-style quirks
        if (n % (s * g) != 0) continue;
        const ReplicaGrouping rg(n, s, g);
        CommGroup cg;
        try {
          cg = CommGroup(rg);
        } catch (const GroupError&) {
          continue;
        }
        const VariableSettings byStride(s, g);
        const VariableSettings byGroup(cg);
        INFO(rg.str() << " as " << cg.str());
        CHECK(byStride.getGroupCount(n) == byGroup.getGroupCount(n));
        CHECK(byStride.getStride(n) == byGroup.getStride(n));
        CHECK(byStride.getRealGroupSize(n) == byGroup.getRealGroupSize(n));
        CHECK(byStride.groups(n) == byGroup.groups(n));
        CHECK(byStride.numReplicasReturningVariable(n) == byGroup.numReplicasReturningVariable(n));
        for (unsigned group = 0; group < rg.getNumGroups(); ++group) {
          CHECK(byStride.getGroupRepresentative(group) == byGroup.getGroupRepresentative(group));
        }
      }
    }
  }
}
