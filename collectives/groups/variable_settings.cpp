#include "collectives/groups/variable_settings.hpp"

#include <numeric>

namespace ipusim::coll {
namespace {

GroupError zeroSizeError(CommGroupType type) {
  return GroupError("Attempting to use 0 as a CommGroupSize, groups of type " + to_string(type) +
                    " must have legal size.");
}

bool isValidMode(VariableRetrievalMode mode) {
  return mode == VariableRetrievalMode::OnePerGroup ||
         mode == VariableRetrievalMode::AllReduceReplicas ||
         mode == VariableRetrievalMode::AllReplicas;
}

bool isValidType(CommGroupType type) {
  return static_cast<unsigned>(type) <= static_cast<unsigned>(CommGroupType::None);
}

// Shared by both forms: strip the group dimension when there is more than one group.
Shape stripGroupDim(const Shape& hostShape, unsigned numGroups, const std::string& name) {
  if (numGroups == 1) return hostShape;
  if (hostShape.empty()) {
    throw GroupError("Tensor '" + name +
                     "' should have at least one dimension when used with "
                     "`popart::VariableSettings` with more than 1 replica groups.");
  }
  if (hostShape[0] != static_cast<std::int64_t>(numGroups)) {
    throw GroupError("Return mismatch with possibly appended outer dimension (" +
                     std::to_string(hostShape[0]) + ") of Tensor: \"" + name +
                     "\". should match numGroups: " + std::to_string(numGroups));
  }
  return Shape(hostShape.begin() + 1, hostShape.end());
}

}  // namespace

std::string to_string(VariableRetrievalMode mode) {
  switch (mode) {
    case VariableRetrievalMode::OnePerGroup:
      return "OnePerGroup";
    case VariableRetrievalMode::AllReduceReplicas:
      return "AllReduceReplicas";
    case VariableRetrievalMode::AllReplicas:
      return "AllReplicas";
  }
  return "Undefined VariableRetrievalMode: " + std::to_string(static_cast<unsigned>(mode));
}

VariableSettings::VariableSettings() = default;

VariableSettings::VariableSettings(const CommGroup& domain)
    : VariableSettings(domain, VariableRetrievalMode::OnePerGroup) {}

VariableSettings::VariableSettings(VariableRetrievalMode mode)
    : VariableSettings(CommGroup(), mode) {}

VariableSettings::VariableSettings(const CommGroup& domain, VariableRetrievalMode mode)
    : useCommGroup_(true),
      commGroupType_(domain.type),
      groupSize_(domain.replicaGroupSize),
      retrievalMode_(mode) {
  verify();
}

VariableSettings::VariableSettings(unsigned stride, unsigned groupSize)
    : VariableSettings(stride, groupSize, VariableRetrievalMode::OnePerGroup) {}

VariableSettings::VariableSettings(unsigned stride, unsigned groupSize, VariableRetrievalMode mode)
    : useCommGroup_(false), stride_(stride), groupSize_(groupSize), retrievalMode_(mode) {
  verify();
}

void VariableSettings::verify() {
  // PopART counts the CommGroup-form problems and reports only their number.
  int errors = 0;
  if (useCommGroup_) {
    if (!isValidType(commGroupType_)) ++errors;
    if (commGroupType_ != CommGroupType::All && commGroupType_ != CommGroupType::None &&
        groupSize_ < 1) {
      ++errors;
    }
  } else {
    if (stride_ == 0) {
      throw GroupError("The stride in a `popart::VariableSettings` must be a positive integer.");
    }
    if (groupSize_ == 0) {
      throw GroupError(
          "The group size in a `popart::VariableSettings` must be a positive integer.");
    }
    if (groupSize_ == 1 && stride_ != 1) stride_ = 1;
  }
  if (!isValidMode(retrievalMode_)) ++errors;
  if (errors > 0) {
    throw GroupError("VariableSettings had " + std::to_string(errors) + " errors!");
  }
}

CommGroup VariableSettings::getSharedVariableDomain() const {
  if (!useCommGroup_) {
    throw GroupError(
        "The variable settings were not initialised using a `popart::CommGroup` instance.");
  }
  return CommGroup(commGroupType_, groupSize_);
}

ReplicaGrouping VariableSettings::getReplicaGrouping(unsigned numReplicas) const {
  if (useCommGroup_) return getSharedVariableDomain().toReplicaGrouping(numReplicas);
  return ReplicaGrouping(numReplicas, stride_, groupSize_);
}

unsigned VariableSettings::numReplicasReturningVariable(unsigned replicaCount) const {
  if (!useCommGroup_) {
    const ReplicaGrouping grouping = getReplicaGrouping(replicaCount);
    return retrievalMode_ == VariableRetrievalMode::AllReplicas ? grouping.getNumReplicas()
                                                                : grouping.getNumGroups();
  }
  if (retrievalMode_ == VariableRetrievalMode::AllReplicas ||
      commGroupType_ == CommGroupType::None || groupSize_ == 1) {
    return replicaCount;
  }
  if (commGroupType_ != CommGroupType::All && groupSize_ < 1) throw zeroSizeError(commGroupType_);
  if (commGroupType_ == CommGroupType::All) return 1;
  return replicaCount / groupSize_;  // Consecutive, Orthogonal
}

unsigned VariableSettings::getGroupCount(unsigned replicaCount) const {
  if (!useCommGroup_) return getReplicaGrouping(replicaCount).getNumGroups();
  // Checked before the type: even (All, 1) yields one group per replica (PopART quirk).
  if (commGroupType_ == CommGroupType::None || groupSize_ == 1) return replicaCount;
  switch (commGroupType_) {
    case CommGroupType::All:
      return 1;
    case CommGroupType::Consecutive:
    case CommGroupType::Orthogonal:
      if (groupSize_ == 0) throw zeroSizeError(commGroupType_);
      return replicaCount / groupSize_;
    case CommGroupType::None:
      return replicaCount;
  }
  throw GroupError("Bad CommGroupType " + to_string(commGroupType_) + " in VariableSetting.");
}

unsigned VariableSettings::getStride(unsigned replicaCount) const {
  if (!useCommGroup_) return getReplicaGrouping(replicaCount).getStride();
  switch (commGroupType_) {
    case CommGroupType::All:
    case CommGroupType::None:
    case CommGroupType::Consecutive:
      return 1;
    case CommGroupType::Orthogonal:
      if (groupSize_ == 0) throw zeroSizeError(commGroupType_);
      return replicaCount / groupSize_;
  }
  throw GroupError("Bad CommGroupType " + to_string(commGroupType_) + " in VariableSetting.");
}

unsigned VariableSettings::getRealGroupSize(unsigned replicaCount) const {
  if (!useCommGroup_) return getReplicaGrouping(replicaCount).getGroupSize();
  switch (commGroupType_) {
    case CommGroupType::All:
      return replicaCount;
    case CommGroupType::None:
      return 1;
    case CommGroupType::Consecutive:
    case CommGroupType::Orthogonal:
      return groupSize_;
  }
  throw GroupError("Bad CommGroupType " + to_string(commGroupType_) + " in VariableSetting.");
}

unsigned VariableSettings::getGroupRepresentative(unsigned group) const {
  if (!useCommGroup_) {
    // Any replica count large enough for `group` to exist gives the same answer.
    const unsigned numReplicas = groupSize_ * stride_ * (group + 1);
    return ReplicaGrouping(numReplicas, stride_, groupSize_).getReplicaAt(group);
  }
  switch (commGroupType_) {
    case CommGroupType::All:
      return 0;
    case CommGroupType::Consecutive:
      return groupSize_ * group;
    case CommGroupType::Orthogonal:
    case CommGroupType::None:
      return group;
  }
  throw GroupError("Bad CommGroupType " + to_string(commGroupType_) + " in VariableSetting.");
}

Shape VariableSettings::shapeOnReplica(const Shape& hostShape, unsigned replicaCount,
                                       const std::string& name) const {
  return stripGroupDim(hostShape, getGroupCount(replicaCount), name);
}

Shape VariableSettings::shapeOnHost(const Shape& replicaShape, unsigned replicaCount) const {
  const unsigned numGroups = getGroupCount(replicaCount);
  if (numGroups == 1) return replicaShape;
  Shape host{static_cast<std::int64_t>(numGroups)};
  host.insert(host.end(), replicaShape.begin(), replicaShape.end());
  return host;
}

std::vector<std::vector<std::int64_t>> VariableSettings::groups(unsigned replicaCount) const {
  std::vector<std::vector<std::int64_t>> result;
  if (!useCommGroup_) {
    for (const auto& members : getReplicaGrouping(replicaCount).getGroups()) {
      result.emplace_back(members.begin(), members.end());
    }
    return result;
  }
  if (commGroupType_ == CommGroupType::All) {
    std::vector<std::int64_t> all(replicaCount);
    std::iota(all.begin(), all.end(), 0);
    result.push_back(std::move(all));
    return result;
  }
  if (commGroupType_ == CommGroupType::None) {
    for (unsigned r = 0; r < replicaCount; ++r) result.push_back({static_cast<std::int64_t>(r)});
    return result;
  }
  const unsigned numGroups = getGroupCount(replicaCount);
  const unsigned step = getStride(replicaCount);
  const unsigned size = getRealGroupSize(replicaCount);
  for (unsigned g = 0; g < numGroups; ++g) {
    std::vector<std::int64_t> members;
    const std::int64_t first = getGroupRepresentative(g);
    for (unsigned i = 0; i < size; ++i) members.push_back(first + std::int64_t{i} * step);
    result.push_back(std::move(members));
  }
  return result;
}

std::string VariableSettings::str() const {
  std::string s = "VariableSettings(";
  s += useCommGroup_ ? "commGroupType=" + to_string(commGroupType_)
                     : "stide=" + std::to_string(stride_);
  s += ", groupSize=" + std::to_string(groupSize_);
  s += ", retrievalMode=" + to_string(retrievalMode_) + ")";
  return s;
}

bool VariableSettings::operator==(const VariableSettings& other) const {
  if (useCommGroup_ != other.useCommGroup_) return false;
  if (useCommGroup_) {
    return commGroupType_ == other.commGroupType_ && groupSize_ == other.groupSize_ &&
           retrievalMode_ == other.retrievalMode_;
  }
  return stride_ == other.stride_ && groupSize_ == other.groupSize_ &&
         retrievalMode_ == other.retrievalMode_;
}

}  // namespace ipusim::coll
