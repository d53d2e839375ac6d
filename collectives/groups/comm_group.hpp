#pragma once
// PopART's CommGroup: the legacy (type, size) description of replica groups, with the
// conversions to and from ReplicaGrouping and the deprecated complement helpers.
// Orthogonal k means R/k groups of k replicas, stride R/k (popart commgroup.hpp and docs;
// decision (a) of the reference: the legacy GCL reading "k groups" is not reproduced).
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/groups/replica_grouping.hpp"

namespace ipusim::coll {

/// popart::CommGroupType. Python calls None "Ungrouped".
enum class CommGroupType : unsigned { All = 0, Consecutive = 1, Orthogonal = 2, None = 3 };

/// "All", "Consecutive", "Orthogonal", "None" (PopART's operator<< spelling).
std::string to_string(CommGroupType type);

/// A (type, replicaGroupSize) description of replica groups (popart::CommGroup).
struct CommGroup {
  CommGroupType type = CommGroupType::All;
  unsigned replicaGroupSize = 0;

  /// (All, 0): one group of every replica.
  CommGroup() = default;
  /// A group description; not validated until it is applied to a replica count.
  CommGroup(CommGroupType t, unsigned size) : type(t), replicaGroupSize(size) {}
  /// Converts a grouping (size 1 -> None, size N -> All, stride == #groups -> Orthogonal,
  /// stride 1 -> Consecutive); throws GroupError for any other grouping.
  explicit CommGroup(const ReplicaGrouping& grouping);

  /// The grouping this CommGroup denotes on `numReplicas` replicas.
  ReplicaGrouping toReplicaGrouping(unsigned numReplicas) const;
  /// "CommGroup(type=All, replicaGroupSize=0)".
  std::string str() const;

  /// Compares type and size: (All,0) != (All,1) as in PopART.
  bool operator==(const CommGroup& other) const {
    return type == other.type && replicaGroupSize == other.replicaGroupSize;
  }
  bool operator!=(const CommGroup& other) const { return !(*this == other); }
};

/// Parses the `__collectiveCommGroup = [type, size]` op attribute (empty -> (All,0));
/// None is not accepted there, as in PopART's extractCommGroupFromVector.
CommGroup commGroupFromVector(const std::vector<std::int64_t>& attribute);

/// Deprecated PopART complement on `numReplicas` replicas: Consecutive k -> Orthogonal R/k,
/// Orthogonal k -> Consecutive R/k, None -> All, All -> None.
CommGroup getComplementCommGroup(unsigned numReplicas, const CommGroup& group);

/// Complement inside `superSet`: the plain complement if the super-set is All, None if
/// both are None or equal, otherwise GroupError (unsupported by PopART).
CommGroup getComplementCommGroupWithSuperSet(unsigned numReplicas, const CommGroup& group,
                                             const CommGroup& superSet);

}  // namespace ipusim::coll
