#pragma once
// PopART's ReplicaGrouping: N replicas split into N/g groups of g members spaced `stride`
// apart. Pure arithmetic, mirrors popart/replicagrouping.hpp (SDK 3.4) including its
// error texts, so that configs rejected by PopART are rejected here with the same reason.
#include <stdexcept>
#include <string>
#include <vector>

namespace ipusim::coll {

/// Invalid replica grouping, CommGroup or VariableSettings; what() contains PopART's text.
class GroupError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// PopART's constructor checks on the arguments as given (N, stride, size > 0 and
/// N % (stride * size) == 0), before any normalisation: a size-1 group with a stride that does
/// not divide N is refused. Throws GroupError with PopART's text, prefixed by `where` (e.g. the
/// flags or JSON path the values came from) and the values when `where` is not empty.
void checkReplicaGroupingArguments(unsigned numReplicas, unsigned stride, unsigned groupSize,
                                   const std::string& where = "");

/// Groups of `groupSize` replicas, members `stride` apart (popart::ReplicaGrouping).
class ReplicaGrouping {
 public:
  /// All replicas in one group: RG(N, 1, N).
  explicit ReplicaGrouping(unsigned numReplicas);
  /// Checks the arguments as given (checkReplicaGroupingArguments), then normalises the
  /// stride to 1 when groupSize == 1, as PopART does.
  ReplicaGrouping(unsigned numReplicas, unsigned stride, unsigned groupSize);

  /// N, the number of replicas grouped.
  unsigned getNumReplicas() const { return numReplicas_; }
  /// Distance between consecutive members (1 after normalisation of size-1 groups).
  unsigned getStride() const { return stride_; }
  /// Members per group.
  unsigned getGroupSize() const { return groupSize_; }
  /// N / groupSize.
  unsigned getNumGroups() const { return numReplicas_ / groupSize_; }

  /// Group that `replica` belongs to: (r mod s) + s * floor(r / (s * g)).
  unsigned getGroupAt(unsigned replica) const;
  /// Position of `replica` inside its group (0 = the group's first member).
  unsigned getIndexInGroupAt(unsigned replica) const;
  /// Global replica id of member `index` of `group`.
  unsigned getReplicaAt(unsigned group, unsigned index = 0) const;
  /// All members of `group`, ascending.
  std::vector<unsigned> getReplicasAt(unsigned group) const;
  /// Every group's member list, in group order.
  std::vector<std::vector<unsigned>> getGroups() const;

  /// Grouping in which replicas sharing a group here never share one; throws if it is not
  /// representable as a constant (stride, size) grouping.
  ReplicaGrouping getTranspose() const;

  /// "ReplicaGrouping(numReplicas=N, stride=s, groupSize=g)" with the normalised stride.
  std::string str() const;

  /// Compares the normalised (N, stride, groupSize) triple.
  bool operator==(const ReplicaGrouping& other) const;
  bool operator!=(const ReplicaGrouping& other) const { return !(*this == other); }

 private:
  void checkReplicaIsValid(unsigned replica) const;
  void checkGroupIsValid(unsigned group) const;
  void checkIndexInGroupIsValid(unsigned index) const;

  unsigned numReplicas_;
  unsigned stride_;
  unsigned groupSize_;
};

/// The grouping complementary to `grouping` inside `superSet` (PopART's
/// getTransposedReplicaGroupingWithSuperSet): the transpose when the super-set is one
/// group, RG(N,1,1) when both are singletons or equal, otherwise an error.
ReplicaGrouping getTransposedReplicaGroupingWithSuperSet(const ReplicaGrouping& grouping,
                                                         const ReplicaGrouping& superSet);

}  // namespace ipusim::coll
