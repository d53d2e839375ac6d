#pragma once
// Bandwidth reporting convention (reference §5, PLRC tools/replicated_collectives.cpp;
// the same "bus bandwidth" factors NCCL uses).
#include <cstdint>

#include "collectives/schedule/schedule.hpp"

namespace ipusim::coll {

/// Algorithm bandwidth in bytes/s: bytes per IPU (elements * dtype bytes) over the time.
double algorithm_bandwidth(std::uint64_t bytes_per_ipu, double seconds);

/// Bus-bandwidth factor for a group of n: (n-1)/n for AllGather, ReduceScatter and AllToAll,
/// 2(n-1)/n for AllReduce, 1 for Broadcast (NCCL's convention; §5 does not cover it).
double bus_bandwidth_factor(CollectiveOp op, std::uint32_t group_size);

/// Bus bandwidth = algorithm bandwidth * bus_bandwidth_factor(op, group_size).
double bus_bandwidth(CollectiveOp op, double algorithm_bandwidth_bytes_per_s,
                     std::uint32_t group_size);

}  // namespace ipusim::coll
