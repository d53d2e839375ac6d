#include "collectives/sharding/rts.hpp"

#include <cstring>

namespace ipusim::coll {
namespace {

std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

ShardingDecision notSharded(std::uint64_t numElems, std::string reason) {
  ShardingDecision d;
  d.shardElems = numElems;
  d.reason = std::move(reason);
  return d;
}

std::uint64_t numElemsOf(const Shape& shape) {
  std::uint64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) throw RtsError("negative dimension in shape");
    n *= static_cast<std::uint64_t>(d);
  }
  return n;
}

// Grouping of the variable plus the checks shared by both host-layout directions.
ReplicaGrouping checkHostLayout(const CollectiveBalancedHostRearrangement& cbr,
                                const VariableSettings& variable, unsigned replicationFactor) {
  const ReplicaGrouping grouping = variable.getReplicaGrouping(replicationFactor);
  const unsigned shards = cbr.replicationFactor;
  if (shards == 0 || grouping.getGroupSize() % shards != 0) {
    throw RtsError("RTS host layout: " + std::to_string(shards) +
                   " shards do not divide the variable group size " +
                   std::to_string(grouping.getGroupSize()) + " of " + grouping.str());
  }
  return grouping;
}

}  // namespace

std::string to_string(TensorKind kind) {
  switch (kind) {
    case TensorKind::Weight:
      return "weight";
    case TensorKind::OptimizerState:
      return "optimizer_state";
    case TensorKind::Accumulator:
      return "accumulator";
    case TensorKind::Activation:
      return "activation";
  }
  return "unknown";
}

std::uint64_t rtsShardElems(std::uint64_t numElems, unsigned shardFactor) {
  if (shardFactor == 0) throw RtsError("RTS shard factor must be positive");
  return ceilDiv(numElems, shardFactor);
}

std::uint64_t rtsPaddingElems(std::uint64_t numElems, unsigned shardFactor) {
  return rtsShardElems(numElems, shardFactor) * shardFactor - numElems;
}

ReplicaGrouping shardingDomainGrouping(const CommGroup& domain, unsigned replicationFactor) {
  if (replicationFactor == 0) throw RtsError("RTS: replication factor must be positive");
  const std::string R = std::to_string(replicationFactor);
  switch (domain.type) {
    case CommGroupType::All:
      return ReplicaGrouping(replicationFactor, 1, replicationFactor);
    case CommGroupType::None:
      return ReplicaGrouping(replicationFactor, 1, 1);
    case CommGroupType::Consecutive: {
      const unsigned k = domain.replicaGroupSize;
      if (k == 0) {
        // StreamingMemoryOpInserter would quietly use R here, but the collectives built from
        // the same CommGroup (RG(R,1,0)) are invalid, so reject instead of guessing.
        throw RtsError("invalid RTS sharding domain " + domain.str() +
                       ": a Consecutive domain needs a positive replicaGroupSize (use All to "
                       "shard over all " +
                       R + " replicas)");
      }
      if (k > replicationFactor) {
        throw RtsError("invalid RTS sharding domain " + domain.str() + ": group size " +
                       std::to_string(k) + " exceeds the replication factor " + R);
      }
      if (replicationFactor % k != 0) {
        throw RtsError("invalid RTS sharding domain " + domain.str() + ": group size " +
                       std::to_string(k) + " does not divide the replication factor " + R);
      }
      return ReplicaGrouping(replicationFactor, 1, k);
    }
    case CommGroupType::Orthogonal:
      throw RtsError(
          "unsupported RTS sharding domain " + domain.str() +
          ": Orthogonal sharding domains are ambiguous upstream. PopART's collectives read "
          "Orthogonal k as R/k groups of k replicas (shard factor k), but its "
          "StreamingMemoryOpInserter sizes the shard with factor R/k (the legacy GCL "
          "reading); the two agree only when k*k == R, and PopART's own tests exclude "
          "Orthogonal with sharding. Use All or Consecutive.");
  }
  throw RtsError("invalid RTS sharding domain " + domain.str());
}

unsigned shardingDomainShardFactor(const CommGroup& domain, unsigned replicationFactor) {
  return shardingDomainGrouping(domain, replicationFactor).getGroupSize();
}

ShardingDecision decideReplicatedTensorSharding(TensorKind kind, std::uint64_t numElems,
                                                unsigned replicationFactor,
                                                const RtsTensorSettings& settings,
                                                const VariableSettings& variable) {
  if (kind == TensorKind::Activation) return notSharded(numElems, "activations are never sharded");
  if (!settings.replicatedTensorSharding) {
    return notSharded(numElems, "replicated tensor sharding is off for " + to_string(kind));
  }
  if (replicationFactor <= 1) {
    return notSharded(numElems, "Unable to shard tensor due to lack of replication");
  }
  // Validate before the size test so a bad domain is reported even for small tensors.
  const unsigned factor = shardingDomainShardFactor(settings.shardingDomain, replicationFactor);
  if ((variable.isUsingCommGroup() &&
       variable.getSharedVariableDomain().type == CommGroupType::None) ||
      variable.getReplicaGrouping(replicationFactor).getGroupSize() == 1) {
    return notSharded(numElems, "the variable has one copy per replica (domain None)");
  }
  if (numElems < settings.minElementsForReplicatedTensorSharding) {
    return notSharded(
        numElems, std::to_string(numElems) + " elements < minElementsForReplicatedTensorSharding " +
                      std::to_string(settings.minElementsForReplicatedTensorSharding));
  }
  if (factor <= 1) {
    return notSharded(numElems, "the sharding domain " + settings.shardingDomain.str() +
                                    " holds one replica per group");
  }
  ShardingDecision d;
  d.sharded = true;
  d.shardFactor = factor;
  d.shardElems = rtsShardElems(numElems, factor);
  d.paddingElems = rtsPaddingElems(numElems, factor);
  d.reason = "sharded over " + std::to_string(factor) + " replicas";
  return d;
}

bool keepsComplementaryAllReduce(const ReplicaGrouping& c) {
  return c.getGroupSize() > 1 && c.getGroupSize() != c.getNumReplicas() &&
         (c.getStride() == 1 || c.getStride() == c.getNumGroups());
}

std::vector<RtsCollective> rtsWeightCollectives(unsigned replicationFactor,
                                                const CommGroup& shardingDomain,
                                                const VariableSettings& variable) {
  const ReplicaGrouping domain = shardingDomainGrouping(shardingDomain, replicationFactor);
  std::vector<RtsCollective> result;
  if (domain.getGroupSize() <= 1) return result;  // nothing is sharded

  const ReplicaGrouping variableGrouping = variable.getReplicaGrouping(replicationFactor);
  std::optional<ReplicaGrouping> complement;
  try {
    complement = getTransposedReplicaGroupingWithSuperSet(domain, variableGrouping);
  } catch (const GroupError& e) {
    throw RtsError("RTS sharding domain " + shardingDomain.str() +
                   " is not supported for a variable grouped as " + variableGrouping.str() + ": " +
                   e.what());
  }
  result.push_back({CollectiveOp::AllGather, domain,
                    "forward: gather the full weight from its shards (after RemoteLoad)"});
  result.push_back({CollectiveOp::ReduceScatter, domain,
                    "backward: reduce-scatter the gradient onto the shards (replaces the "
                    "data-parallel AllReduce)"});
  if (keepsComplementaryAllReduce(*complement)) {
    result.push_back({CollectiveOp::AllReduce, *complement,
                      "backward: all-reduce the gradient shards across the replicas that "
                      "hold the same shard"});
  }
  return result;
}

unsigned popxlShardOver(const ReplicaGrouping& variableGrouping,
                        std::optional<unsigned> shardOver) {
  const unsigned groupSize = variableGrouping.getGroupSize();
  const unsigned k = shardOver.value_or(groupSize);
  if (k == 0) throw RtsError("shard_over must be positive");
  if (k > groupSize) {
    throw RtsError("shard_over (" + std::to_string(k) +
                   ") must not exceed the replica grouping's group size (" +
                   std::to_string(groupSize) + ") of " + variableGrouping.str());
  }
  if (groupSize % k != 0) {
    throw RtsError("shard_over (" + std::to_string(k) +
                   ") must divide the replica grouping's group size (" + std::to_string(groupSize) +
                   ") of " + variableGrouping.str());
  }
  return k;
}

Shape popxlShardedBufferShape(const Shape& hostShape, const ReplicaGrouping& variableGrouping,
                              std::optional<unsigned> shardOver) {
  const unsigned k = popxlShardOver(variableGrouping, shardOver);
  Shape shape = hostShape;
  if (variableGrouping.getNumGroups() > 1) {
    if (shape.empty()) throw RtsError("a grouped variable needs a leading group dimension");
    shape.erase(shape.begin());
  }
  return {static_cast<std::int64_t>(rtsShardElems(numElemsOf(shape), k))};
}

std::vector<std::vector<std::uint8_t>> rtsShardsFromHost(
    const void* hostData, std::size_t elemBytes, const CollectiveBalancedHostRearrangement& cbr,
    const VariableSettings& variable, unsigned replicationFactor) {
  const ReplicaGrouping grouping = checkHostLayout(cbr, variable, replicationFactor);
  const unsigned shards = cbr.replicationFactor;
  const std::size_t refBytes = cbr.getNumReferenceElems() * elemBytes;
  const std::size_t shardBytes = cbr.totalElementsPerReplica * elemBytes;

  std::vector<std::vector<std::uint8_t>> replicaShards(replicationFactor);
  std::vector<std::uint8_t> gathered(cbr.getNumRearrangedTensorElems() * elemBytes);
  const auto* host = static_cast<const std::uint8_t*>(hostData);
  for (unsigned g = 0; g < grouping.getNumGroups(); ++g) {
    cbr.rearrangeForCollective(host + g * refBytes, gathered.data(), elemBytes);
    for (unsigned m = 0; m < grouping.getGroupSize(); ++m) {
      const std::uint8_t* shard = gathered.data() + (m % shards) * shardBytes;
      replicaShards[grouping.getReplicaAt(g, m)].assign(shard, shard + shardBytes);
    }
  }
  return replicaShards;
}

HostTensor rtsHostFromShards(const std::vector<std::vector<std::uint8_t>>& replicaShards,
                             std::size_t elemBytes, const CollectiveBalancedHostRearrangement& cbr,
                             const VariableSettings& variable, unsigned replicationFactor,
                             const Shape& replicaShape) {
  const ReplicaGrouping grouping = checkHostLayout(cbr, variable, replicationFactor);
  const std::uint64_t n = cbr.getNumReferenceElems();
  if (numElemsOf(replicaShape) != n) {
    throw RtsError("RTS read-back: replica shape has " + std::to_string(numElemsOf(replicaShape)) +
                   " elements but the CBR layout holds " + std::to_string(n));
  }
  if (replicaShards.size() != replicationFactor) {
    throw RtsError("RTS read-back: expected " + std::to_string(replicationFactor) +
                   " replica shards, got " + std::to_string(replicaShards.size()));
  }
  const std::size_t shardBytes = cbr.totalElementsPerReplica * elemBytes;
  const std::size_t refBytes = n * elemBytes;
  const bool allReplicas = variable.getRetrievalMode() == VariableRetrievalMode::AllReplicas;
  const unsigned copies = allReplicas ? replicationFactor : grouping.getNumGroups();

  HostTensor out;
  if (copies > 1) out.shape.push_back(copies);
  out.shape.insert(out.shape.end(), replicaShape.begin(), replicaShape.end());
  out.bytes.assign(copies * refBytes, 0);

  std::vector<std::uint8_t> gathered(cbr.getNumRearrangedTensorElems() * elemBytes);
  for (unsigned g = 0; g < grouping.getNumGroups(); ++g) {
    for (unsigned m = 0; m < cbr.replicationFactor; ++m) {
      const auto& shard = replicaShards[grouping.getReplicaAt(g, m)];
      if (shard.size() != shardBytes) {
        throw RtsError("RTS read-back: shard of replica " +
                       std::to_string(grouping.getReplicaAt(g, m)) + " has " +
                       std::to_string(shard.size()) + " bytes, expected " +
                       std::to_string(shardBytes));
      }
      if (shardBytes > 0) std::memcpy(gathered.data() + m * shardBytes, shard.data(), shardBytes);
    }
    if (!allReplicas) {
      cbr.undoRearrangeForCollective(gathered.data(), out.bytes.data() + g * refBytes, elemBytes);
      continue;
    }
    // AllReplicas: PopART reads the group once and copies it into every member's slot.
    for (unsigned m = 0; m < grouping.getGroupSize(); ++m) {
      cbr.undoRearrangeForCollective(
          gathered.data(), out.bytes.data() + grouping.getReplicaAt(g, m) * refBytes, elemBytes);
    }
  }
  return out;
}

}  // namespace ipusim::coll
