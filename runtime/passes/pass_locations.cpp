#include "runtime/passes/pass_locations.hpp"

#include "collectives/groups/comm_group_spec.hpp"
#include "collectives/groups/variable_settings.hpp"
#include "collectives/sharding/rts.hpp"

namespace ipusim::rt {
namespace {

coll::TensorKind coll_kind(TensorKind k) {
  switch (k) {
    case TensorKind::Weight:
      return coll::TensorKind::Weight;
    case TensorKind::OptimizerState:
      return coll::TensorKind::OptimizerState;
    case TensorKind::Accumulator:
      return coll::TensorKind::Accumulator;
    default:
      return coll::TensorKind::Activation;
  }
}

ResolvedTensor resolve_one(const Tensor& t, const SessionOptions& s) {
  ResolvedTensor r;
  const unsigned R = s.replicatedGraphCount;
  const std::uint64_t n = t.elements();
  r.full_bytes = t.bytes();
  r.shard_bytes = r.full_bytes;
  r.shard_elems = n;
  const coll::VariableSettings vs(coll::parse_comm_group_spec(t.variable_settings));
  if (t.kind == TensorKind::Weight || t.kind == TensorKind::OptimizerState ||
      t.kind == TensorKind::Accumulator || t.kind == TensorKind::Gradient) {
    const coll::ReplicaGrouping g = vs.getReplicaGrouping(R);
    if (g.getGroupSize() > 1) r.variable_group = g;
  }
  if (t.kind == TensorKind::Gradient) {
    r.reason = "gradients stay on chip";
    return r;
  }
  const LocationSettings& cat = s.settings_for(t.kind);
  auto ov = s.tensorLocationSettingsOverride.find(t.name);
  const TensorLocation loc = ov != s.tensorLocationSettingsOverride.end()
                                 ? ov->second
                                 : (t.location ? *t.location : cat.location);
  r.off_chip = loc.storage == Storage::OffChip && n >= cat.minElementsForOffChip;
  r.load = loc.loadTileSet;
  r.storage = loc.loadTileSet == TileSet::Compute ? TileSet::Compute : loc.storageTileSet;
  r.domain = loc.shardingDomain;
  if (t.kind == TensorKind::Activation) {
    r.reason = "activations are never sharded";
    return r;
  }
  if (loc.shardingDomain == "variable") {
    // popxl / popxl-addons: shard over the variable's own grouping when the size divides.
    const coll::ReplicaGrouping g = vs.getReplicaGrouping(R);
    const unsigned k = g.getGroupSize();
    if (!loc.replicatedTensorSharding) {
      r.reason = "RTS off";
    } else if (k <= 1) {
      r.reason = "the variable grouping has one replica";
    } else if (n < cat.minElementsForReplicatedTensorSharding) {
      r.reason = "fewer elements than minElementsForReplicatedTensorSharding";
    } else if (n % k != 0) {
      r.reason = "size does not divide by the group size (popxl-addons rule)";
    } else {
      r.sharded = true;
      r.shard_factor = k;
      r.shard_group = g;
      r.reason = "sharded over the variable grouping";
    }
  } else {
    coll::RtsTensorSettings rs;
    rs.replicatedTensorSharding = loc.replicatedTensorSharding;
    rs.minElementsForReplicatedTensorSharding = cat.minElementsForReplicatedTensorSharding;
    rs.shardingDomain = coll::parse_comm_group_spec(loc.shardingDomain);
    const coll::ShardingDecision d =
        coll::decideReplicatedTensorSharding(coll_kind(t.kind), n, R, rs, vs);
    r.reason = d.reason;
    if (d.sharded) {
      r.sharded = true;
      r.shard_factor = d.shardFactor;
      for (const coll::RtsCollective& c : coll::rtsWeightCollectives(R, rs.shardingDomain, vs)) {
        if (c.op == coll::CollectiveOp::AllGather) r.shard_group = c.grouping;
        if (c.op == coll::CollectiveOp::AllReduce) r.complementary = c.grouping;
      }
      if (!r.shard_group) r.shard_group = coll::shardingDomainGrouping(rs.shardingDomain, R);
    }
  }
  if (r.sharded) {
    r.shard_elems = coll::rtsShardElems(n, r.shard_factor);
    r.shard_bytes = r.shard_elems * dtype_bytes(t.dtype);
  }
  return r;
}

}  // namespace

std::map<std::string, ResolvedTensor> resolve_locations(const Model& model,
                                                        const SessionOptions& session) {
  std::map<std::string, ResolvedTensor> out;
  for (const Tensor& t : model.tensors) {
    try {
      out[t.name] = resolve_one(t, session);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("tensor '" + t.name + "': " + e.what());
    }
  }
  return out;
}

}  // namespace ipusim::rt
