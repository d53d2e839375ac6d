#pragma once
// PopART's VariableSettings: which replicas share one copy of a variable, and how many
// copies the host sees. Two forms exist upstream (a CommGroup, or a stride/group size);
// both are reproduced with PopART's queries, edge rules and error texts.
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/groups/comm_group.hpp"
#include "collectives/groups/replica_grouping.hpp"

namespace ipusim::coll {

/// A tensor shape (PopART's Shape = vector<int64_t>).
using Shape = std::vector<std::int64_t>;

/// How a grouped variable is read back to the host (popart::VariableRetrievalMode).
enum class VariableRetrievalMode : unsigned {
  OnePerGroup = 0,        ///< one copy per group, from the group's first member
  AllReduceReplicas = 1,  ///< documented "CURRENTLY UNSUPPORTED"; counts like OnePerGroup
  AllReplicas = 2         ///< one copy per replica
};

/// "OnePerGroup", "AllReduceReplicas", "AllReplicas".
std::string to_string(VariableRetrievalMode mode);

/// The replica grouping of a variable plus its retrieval mode (popart::VariableSettings).
class VariableSettings {
 public:
  /// CommGroup (All, 0), OnePerGroup; the only constructor that skips verification.
  VariableSettings();
  /// CommGroup form, OnePerGroup.
  explicit VariableSettings(const CommGroup& sharedVariableDomain);
  /// CommGroup (All, 0) with the given mode.
  explicit VariableSettings(VariableRetrievalMode mode);
  /// CommGroup form with the given mode.
  VariableSettings(const CommGroup& sharedVariableDomain, VariableRetrievalMode mode);
  /// Stride form, OnePerGroup; groupSize 1 normalises the stride to 1.
  VariableSettings(unsigned stride, unsigned groupSize);
  /// Stride form with the given mode.
  VariableSettings(unsigned stride, unsigned groupSize, VariableRetrievalMode mode);

  /// True for the CommGroup form, false for the stride form.
  bool isUsingCommGroup() const { return useCommGroup_; }
  /// The CommGroup; GroupError for stride-form settings.
  CommGroup getSharedVariableDomain() const;
  /// The grouping on `numReplicas` replicas (may throw ReplicaGrouping's errors).
  ReplicaGrouping getReplicaGrouping(unsigned numReplicas) const;
  /// How the variable is read back to the host.
  VariableRetrievalMode getRetrievalMode() const { return retrievalMode_; }
  /// Stored CommGroup type (meaningful in CommGroup form only).
  CommGroupType getCommGroupType() const { return commGroupType_; }
  /// Stored stride (stride form only; 0 in CommGroup form).
  unsigned getStride() const { return stride_; }
  /// Stored group size (CommGroup size or stride-form size).
  unsigned getGroupSize() const { return groupSize_; }

  /// Number of copies the host receives on read-back with this retrieval mode.
  unsigned numReplicasReturningVariable(unsigned replicaCount) const;
  /// Number of variable groups on `replicaCount` replicas.
  unsigned getGroupCount(unsigned replicaCount) const;
  /// Distance between consecutive members of a group.
  unsigned getStride(unsigned replicaCount) const;
  /// Members per group.
  unsigned getRealGroupSize(unsigned replicaCount) const;
  /// First replica of `group` (independent of the replica count, as in PopART).
  unsigned getGroupRepresentative(unsigned group) const;

  /// Per-replica shape from the host shape: drops the outer group dimension when there
  /// is more than one group (which must then equal the group count).
  Shape shapeOnReplica(const Shape& hostShape, unsigned replicaCount,
                       const std::string& name) const;
  /// Host (initializer) shape: [groupCount] + replicaShape when there is more than one group.
  Shape shapeOnHost(const Shape& replicaShape, unsigned replicaCount) const;
  /// Members of every group, in group order.
  std::vector<std::vector<std::int64_t>> groups(unsigned replicaCount) const;

  /// "VariableSettings(commGroupType=All, groupSize=0, retrievalMode=OnePerGroup)"; the
  /// stride form keeps PopART's "stide=" misspelling.
  std::string str() const;

  /// Same form and the same (type or stride, size, mode).
  bool operator==(const VariableSettings& other) const;
  bool operator!=(const VariableSettings& other) const { return !(*this == other); }

 private:
  void verify();

  bool useCommGroup_ = true;
  CommGroupType commGroupType_ = CommGroupType::All;
  unsigned stride_ = 0;
  unsigned groupSize_ = 0;
  VariableRetrievalMode retrievalMode_ = VariableRetrievalMode::OnePerGroup;
};

}  // namespace ipusim::coll
