#pragma once
// Tensor location resolution and RTS (plain C++): for every tensor, whether it lives in
// streaming memory, through which tile set it is loaded, whether it is sharded across
// replicas (PopART determineTensorLocation via collectives/sharding/rts.hpp, or popxl's
// "shard over the variable's grouping"), and the replica groups of its collectives.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectives/groups/replica_grouping.hpp"
#include "runtime/ir/ir_model.hpp"
#include "runtime/ir/training_session.hpp"

namespace ipusim::rt {

/// Where a tensor lives and how it is sharded.
struct ResolvedTensor {
  bool off_chip = false;
  TileSet load = TileSet::Compute;
  TileSet storage = TileSet::Compute;
  bool sharded = false;
  unsigned shard_factor = 1;
  std::uint64_t shard_elems = 0;  ///< ceil(n / shard_factor), n when not sharded
  std::string reason;             ///< why (not) sharded
  std::string domain;             ///< sharding domain spelling
  /// AllGather / ReduceScatter groups (sharded tensors).
  std::optional<coll::ReplicaGrouping> shard_group;
  /// Complementary AllReduce of the gradient (sharded, domain smaller than the variable group).
  std::optional<coll::ReplicaGrouping> complementary;
  /// Replicas sharing the variable (data-parallel gradient AllReduce when not sharded).
  std::optional<coll::ReplicaGrouping> variable_group;
  std::uint64_t full_bytes = 0;   ///< per replica, unsharded
  std::uint64_t shard_bytes = 0;  ///< per replica, the shard (= full when not sharded)
};

/// Resolves every tensor of `model` (std::invalid_argument naming the tensor on a bad
/// sharding domain or VariableSettings).
std::map<std::string, ResolvedTensor> resolve_locations(const Model& model,
                                                        const SessionOptions& session);

}  // namespace ipusim::rt
