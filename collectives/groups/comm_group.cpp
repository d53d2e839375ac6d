#include "collectives/groups/comm_group.hpp"

#include <limits>

namespace ipusim::coll {

std::string to_string(CommGroupType type) {
  switch (type) {
    case CommGroupType::All:
      return "All";
    case CommGroupType::Consecutive:
      return "Consecutive";
    case CommGroupType::Orthogonal:
      return "Orthogonal";
    case CommGroupType::None:
      return "None";
  }
  return "Invalid CommGroup " + std::to_string(static_cast<unsigned>(type));
}

CommGroup::CommGroup(const ReplicaGrouping& grouping) {
  // Order matters: RG(N,1,N) would also satisfy "stride == 1", but must become All.
  if (grouping.getGroupSize() == 1) {
    type = CommGroupType::None;
    replicaGroupSize = 0;
  } else if (grouping.getGroupSize() == grouping.getNumReplicas()) {
    type = CommGroupType::All;
    replicaGroupSize = 0;
  } else if (grouping.getStride() == grouping.getNumGroups()) {
    type = CommGroupType::Orthogonal;
    replicaGroupSize = grouping.getGroupSize();
  } else if (grouping.getStride() == 1) {
    type = CommGroupType::Consecutive;
    replicaGroupSize = grouping.getGroupSize();
  } else {
    throw GroupError("The '" + grouping.str() + "' cannot be converted to a `popart::CommGroup`.");
  }
}

ReplicaGrouping CommGroup::toReplicaGrouping(unsigned numReplicas) const {
  switch (type) {
    case CommGroupType::All:
      return {numReplicas, 1, numReplicas};
    case CommGroupType::Consecutive:
      return {numReplicas, 1, replicaGroupSize};
    case CommGroupType::Orthogonal:
      // PopART divides by the size unchecked; report it the way VariableSettings does.
      if (replicaGroupSize == 0) {
        throw GroupError(
            "Attempting to use 0 as a CommGroupSize, groups of type Orthogonal must have "
            "legal size.");
      }
      return {numReplicas, numReplicas / replicaGroupSize, replicaGroupSize};
    case CommGroupType::None:
      return {numReplicas, 1, 1};
  }
  throw GroupError("Invalid type '" + to_string(type) + "' for a CommGroup.");
}

std::string CommGroup::str() const {
  return "CommGroup(type=" + to_string(type) +
         ", replicaGroupSize=" + std::to_string(replicaGroupSize) + ")";
}

CommGroup commGroupFromVector(const std::vector<std::int64_t>& attribute) {
  if (attribute.empty()) return CommGroup();
  if (attribute.size() != 2) throw GroupError("Invalid commGroup data for collective op");
  const std::int64_t typeArg = attribute[0];
  if (typeArg != static_cast<std::int64_t>(CommGroupType::All) &&
      typeArg != static_cast<std::int64_t>(CommGroupType::Consecutive) &&
      typeArg != static_cast<std::int64_t>(CommGroupType::Orthogonal)) {
    throw GroupError("Unknown commGroup type for collective op");
  }
  // Same unsigned reinterpretation as PopART, so negative sizes are "too large".
  if (static_cast<std::uint64_t>(attribute[1]) > std::numeric_limits<unsigned>::max()) {
    throw GroupError("Replica group size in commGroup is too large");
  }
  return CommGroup(static_cast<CommGroupType>(typeArg), static_cast<unsigned>(attribute[1]));
}

CommGroup getComplementCommGroup(unsigned numReplicas, const CommGroup& group) {
  switch (group.type) {
    case CommGroupType::Consecutive:
    case CommGroupType::Orthogonal:
      if (group.replicaGroupSize == 0) {
        throw GroupError("Attempting to use 0 as a CommGroupSize, groups of type " +
                         to_string(group.type) + " must have legal size.");
      }
      return CommGroup(group.type == CommGroupType::Consecutive ? CommGroupType::Orthogonal
                                                                : CommGroupType::Consecutive,
                       numReplicas / group.replicaGroupSize);
    case CommGroupType::None:
      return CommGroup(CommGroupType::All, 0);
    case CommGroupType::All:
      break;
  }
  return CommGroup(CommGroupType::None, 0);
}

CommGroup getComplementCommGroupWithSuperSet(unsigned numReplicas, const CommGroup& group,
                                             const CommGroup& superSet) {
  if (superSet.type == CommGroupType::All) return getComplementCommGroup(numReplicas, group);
  if ((superSet.type == CommGroupType::None && group.type == CommGroupType::None) ||
      group == superSet) {
    return CommGroup(CommGroupType::None, 0);
  }
  throw GroupError("Could not return a supported CommGroup complement of " + group.str() +
                   " within the super-set: " + superSet.str());
}

}  // namespace ipusim::coll
