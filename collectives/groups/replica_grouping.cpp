#include "collectives/groups/replica_grouping.hpp"

namespace ipusim::coll {

ReplicaGrouping::ReplicaGrouping(unsigned numReplicas)
    : ReplicaGrouping(numReplicas, 1, numReplicas) {}

void checkReplicaGroupingArguments(unsigned numReplicas, unsigned stride, unsigned groupSize,
                                   const std::string& where) {
  auto fail = [&](const std::string& popartText) {
    // PopART's sentence first (tests and users grep for it), then the values that broke it.
    if (where.empty())
      throw GroupError(popartText + " (numReplicas=" + std::to_string(numReplicas) + ", stride=" +
                       std::to_string(stride) + ", groupSize=" + std::to_string(groupSize) + ")");
    throw GroupError(where + " (numReplicas=" + std::to_string(numReplicas) +
                     ", stride=" + std::to_string(stride) +
                     ", groupSize=" + std::to_string(groupSize) + "): " + popartText);
  };
  if (numReplicas == 0) {
    fail("The number of replicas in a `popart::ReplicaGrouping` must be a positive integer.");
  }
  if (stride == 0) fail("The stride in a `popart::ReplicaGrouping` must be a positive integer.");
  if (groupSize == 0) {
    fail("The group size in a `popart::ReplicaGrouping` must be a positive integer.");
  }
  // 64-bit product: stride * groupSize may exceed 32 bits for absurd inputs. The stride is
  // the one given, even for groups of one (PopART normalises only afterwards).
  const unsigned long long block = static_cast<unsigned long long>(stride) * groupSize;
  if (numReplicas % block != 0) {
    fail(
        "The number of replicas in a `popart::ReplicaGrouping` must be divisible by the "
        "product of the stride and the group size.");
  }
}

ReplicaGrouping::ReplicaGrouping(unsigned numReplicas, unsigned stride, unsigned groupSize)
    : numReplicas_(numReplicas), stride_(stride), groupSize_(groupSize) {
  checkReplicaGroupingArguments(numReplicas, stride, groupSize);
  // A group of one has no meaningful stride; normalising makes equal groupings compare equal.
  if (groupSize == 1 && stride != 1) stride_ = 1;
}

unsigned ReplicaGrouping::getGroupAt(unsigned replica) const {
  checkReplicaIsValid(replica);
  return replica % stride_ + stride_ * (replica / (stride_ * groupSize_));
}

unsigned ReplicaGrouping::getIndexInGroupAt(unsigned replica) const {
  checkReplicaIsValid(replica);
  return (replica - getReplicaAt(getGroupAt(replica))) / stride_;
}

unsigned ReplicaGrouping::getReplicaAt(unsigned group, unsigned index) const {
  checkGroupIsValid(group);
  checkIndexInGroupIsValid(index);
  return (group / stride_) * (stride_ * groupSize_) + group % stride_ + index * stride_;
}

std::vector<unsigned> ReplicaGrouping::getReplicasAt(unsigned group) const {
  checkGroupIsValid(group);
  std::vector<unsigned> members;
  members.reserve(groupSize_);
  const unsigned first = getReplicaAt(group);
  for (unsigned i = 0; i < groupSize_; ++i) members.push_back(first + i * stride_);
  return members;
}

std::vector<std::vector<unsigned>> ReplicaGrouping::getGroups() const {
  std::vector<std::vector<unsigned>> groups;
  groups.reserve(getNumGroups());
  for (unsigned g = 0; g < getNumGroups(); ++g) groups.push_back(getReplicasAt(g));
  return groups;
}

ReplicaGrouping ReplicaGrouping::getTranspose() const {
  if (stride_ == 1) return {numReplicas_, groupSize_, getNumGroups()};
  if (groupSize_ * stride_ == numReplicas_) return {numReplicas_, 1, stride_};
  throw GroupError("The transpose of '" + str() +
                   "' cannot be represented as a `popart::ReplicaGrouping`.");
}

std::string ReplicaGrouping::str() const {
  return "ReplicaGrouping(numReplicas=" + std::to_string(numReplicas_) +
         ", stride=" + std::to_string(stride_) + ", groupSize=" + std::to_string(groupSize_) + ")";
}

bool ReplicaGrouping::operator==(const ReplicaGrouping& other) const {
  return numReplicas_ == other.numReplicas_ && stride_ == other.stride_ &&
         groupSize_ == other.groupSize_;
}

void ReplicaGrouping::checkReplicaIsValid(unsigned replica) const {
  if (replica >= numReplicas_) {
    throw GroupError("The requested replica index is outside the valid range for '" + str() + "'.");
  }
}

void ReplicaGrouping::checkGroupIsValid(unsigned group) const {
  if (group >= getNumGroups()) {
    throw GroupError("The requested group index is outside the valid range for '" + str() + "'.");
  }
}

void ReplicaGrouping::checkIndexInGroupIsValid(unsigned index) const {
  if (index >= groupSize_) {
    throw GroupError("The requested index is outside the valid range for '" + str() + "'.");
  }
}

ReplicaGrouping getTransposedReplicaGroupingWithSuperSet(const ReplicaGrouping& grouping,
                                                         const ReplicaGrouping& superSet) {
  if (grouping.getNumReplicas() != superSet.getNumReplicas()) {
    throw GroupError("Could not calculate a ReplicaGrouping transpose of " + grouping.str() +
                     " within the super-set: " + superSet.str() +
                     ". Expected the number of replicas in the groups to be equal.");
  }
  if (superSet.getNumGroups() == 1) return grouping.getTranspose();
  if ((grouping.getGroupSize() == 1 && superSet.getGroupSize() == 1) || grouping == superSet) {
    return ReplicaGrouping(grouping.getNumReplicas(), 1, 1);
  }
  // Complements inside a partial super-set exist mathematically, but PopART rejects them
  // because nothing downstream supports them.
  throw GroupError("Could not return a supported ReplicaGrouping transpose of " + grouping.str() +
                   " within the super-set: " + superSet.str());
}

}  // namespace ipusim::coll
