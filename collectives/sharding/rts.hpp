#pragma once
// Replicated tensor sharding (RTS) arithmetic, as PopART's streaming-memory transform and
// devicex.cpp apply it: which tensors are sharded, over how many replicas, which
// collectives a sharded weight implies in training, and how host data maps to and from
// the per-replica (CBR-rearranged) shards.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/groups/comm_group.hpp"
#include "collectives/groups/replica_grouping.hpp"
#include "collectives/groups/variable_settings.hpp"
#include "collectives/schedule/schedule.hpp"
#include "collectives/sharding/cbr.hpp"

namespace ipusim::coll {

/// Invalid RTS configuration (sharding domain, shard_over, shard buffers).
class RtsError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// PopART's default `minElementsForReplicatedTensorSharding`.
inline constexpr std::uint64_t kDefaultMinElementsForRts = 8192;

/// Tensor categories with separate TensorLocationSettings in PopART.
enum class TensorKind { Weight, OptimizerState, Accumulator, Activation };
/// "weight", "optimizer_state", "accumulator", "activation".
std::string to_string(TensorKind kind);

/// IR-level shard length: ceil(numElems / shardFactor).
std::uint64_t rtsShardElems(std::uint64_t numElems, unsigned shardFactor);
/// Zero padding the IR-level shards add in total: shardFactor * ceil(n / k) - n.
std::uint64_t rtsPaddingElems(std::uint64_t numElems, unsigned shardFactor);

/// Validates a sharding domain on `replicationFactor` replicas and returns its grouping:
/// All -> RG(R,1,R), Consecutive k -> RG(R,1,k), None -> RG(R,1,1). Rejects Consecutive
/// sizes that are 0, > R or do not divide R, and every Orthogonal domain (upstream
/// disagrees on its shard factor, see shardingDomainShardFactor).
ReplicaGrouping shardingDomainGrouping(const CommGroup& domain, unsigned replicationFactor);

/// Number of shards a sharding domain produces (All -> R, Consecutive k -> k, None -> 1).
/// Orthogonal k is rejected: PopART's collectives read it as k replicas per group while its
/// StreamingMemoryOpInserter sizes the shard for R/k, which agree only when k*k == R.
unsigned shardingDomainShardFactor(const CommGroup& domain, unsigned replicationFactor);

/// Per-category RTS settings (a slice of PopART's TensorLocationSettings).
struct RtsTensorSettings {
  bool replicatedTensorSharding = true;  ///< TensorLocation::replicatedTensorSharding == On
  std::uint64_t minElementsForReplicatedTensorSharding = kDefaultMinElementsForRts;
  CommGroup shardingDomain;  ///< defaults to (All, 0): shard over every replica
};

/// Outcome of the sharding decision for one tensor.
struct ShardingDecision {
  bool sharded = false;
  unsigned shardFactor = 1;        ///< shards (1 when not sharded)
  std::uint64_t shardElems = 0;    ///< ceil(n / shardFactor) (n when not sharded)
  std::uint64_t paddingElems = 0;  ///< total IR-level padding over all shards
  std::string reason;              ///< why it is (not) sharded
};

/// PopART's determineTensorLocation rules: activations never, RTS off or R <= 1 never,
/// variable domain None (one copy per replica) never, fewer than the minimum elements
/// never, sharding domain None (or one replica) never; otherwise sharded by the domain's
/// factor. Throws RtsError for an invalid sharding domain.
ShardingDecision decideReplicatedTensorSharding(TensorKind kind, std::uint64_t numElems,
                                                unsigned replicationFactor,
                                                const RtsTensorSettings& settings,
                                                const VariableSettings& variable = {});

/// One collective RTS inserts for a sharded weight.
struct RtsCollective {
  CollectiveOp op;           ///< AllGather, ReduceScatter or AllReduce
  ReplicaGrouping grouping;  ///< the replicas it runs over
  std::string role;          ///< what it does in the training step
};

/// PopART's rule for keeping the complementary gradient AllReduce on grouping `c`:
/// groupSize > 1 && groupSize != N && (stride == 1 || stride == numGroups).
bool keepsComplementaryAllReduce(const ReplicaGrouping& c);

/// Collectives for one sharded weight in training: AllGather and ReduceScatter over the
/// sharding domain, plus an AllReduce over
/// c = getTransposedReplicaGroupingWithSuperSet(domain, variable grouping) when
/// keepsComplementaryAllReduce(c). Empty when the domain does not shard (None, size 1).
std::vector<RtsCollective> rtsWeightCollectives(unsigned replicationFactor,
                                                const CommGroup& shardingDomain,
                                                const VariableSettings& variable = {});

/// popxl `replica_sharded_buffer` rule: shard_over defaults to the grouping's group size
/// and must not exceed it and must divide it. Returns the effective shard count.
unsigned popxlShardOver(const ReplicaGrouping& variableGrouping,
                        std::optional<unsigned> shardOver = std::nullopt);

/// popxl buffer shape of a sharded variable: (ceil(prod(shape) / shardOver),), where the
/// leading group dimension of `hostShape` is dropped when the grouping has several groups.
Shape popxlShardedBufferShape(const Shape& hostShape, const ReplicaGrouping& variableGrouping,
                              std::optional<unsigned> shardOver = std::nullopt);

/// A row-major host tensor as raw bytes.
struct HostTensor {
  Shape shape;
  std::vector<std::uint8_t> bytes;
};

/// Host -> device for a remote RTS variable (devicex remoteBufferWeightsFromHost):
/// `hostData` holds one reference tensor per variable group (n elements each, group
/// order); returns every replica's shard (S elements, zero padding). Member m of a group
/// receives CBR shard m % cbr.replicationFactor (only stride-1 shard sub-groups inside a
/// variable group are supported upstream).
std::vector<std::vector<std::uint8_t>> rtsShardsFromHost(
    const void* hostData, std::size_t elemBytes, const CollectiveBalancedHostRearrangement& cbr,
    const VariableSettings& variable, unsigned replicationFactor);

/// Device -> host read-back (devicex remoteBufferWeightsToHost): rebuilds each group's
/// full tensor from the shards of its first cbr.replicationFactor members, padding
/// removed. OnePerGroup/AllReduceReplicas: one copy per group (shape = shapeOnHost);
/// AllReplicas: one copy per replica ([R] + replicaShape).
HostTensor rtsHostFromShards(const std::vector<std::vector<std::uint8_t>>& replicaShards,
                             std::size_t elemBytes, const CollectiveBalancedHostRearrangement& cbr,
                             const VariableSettings& variable, unsigned replicationFactor,
                             const Shape& replicaShape);

}  // namespace ipusim::coll
