#pragma once
// Functional (real-data) execution of a schedule, and a schedule-free reference result.
#include <cstdint>
#include <vector>

#include "collectives/schedule/schedule.hpp"

namespace ipusim::coll {

/// Per-replica vectors of values, indexed by global replica id.
using ReplicaBuffers = std::vector<std::vector<double>>;

/// Plays `schedule` on real data: places each member's input (schedule.elements_per_replica
/// values, rounded to the dtype) in a zero-padded working buffer, plays every superstep
/// (all reads see the buffers as at the start of the step; copies or reductions are rounded
/// to the dtype at every write), divides by the group size for Mean, and returns each
/// member's output (empty for replicas in no group). `inputs` is indexed by replica id and
/// must cover schedule.num_replicas; throws std::invalid_argument otherwise.
ReplicaBuffers run_functional(const Schedule& schedule, const ReplicaBuffers& inputs);

/// The expected result computed without any schedule: a straight element-wise reduction
/// per group in double precision, rounded to the dtype once at the end (inputs are rounded
/// to the dtype first). Same semantics and output shapes as run_functional.
ReplicaBuffers direct_reference(CollectiveOp op, ReduceOp reduce, DType dtype,
                                const std::vector<std::vector<std::uint32_t>>& groups,
                                const ReplicaBuffers& inputs);

/// Combines two values with a reduction operator (Mean combines like Add; Local keeps `a`).
double combine(ReduceOp op, double a, double b);

}  // namespace ipusim::coll
