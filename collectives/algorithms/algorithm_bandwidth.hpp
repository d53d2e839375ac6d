#pragma once
// Bandwidth reporting convention: nccl-tests' (doc/PERFORMANCE.md), which Graphcore's
// collectives benchmark shares for AllReduce/ReduceScatter/AllGather (reference §5):
//   size  = the bytes nccl-tests prints: the output buffer per rank for AllGather (group size x
//           input), the input buffer per rank for every other op (ReduceScatter: the whole
//           tensor before scattering);
//   algbw = size / time;  busbw = algbw x factor(op, n).
#include <cstdint>

#include "collectives/schedule/schedule.hpp"

namespace ipusim::coll {

/// nccl-tests' "size" of a collective whose input per replica is `input_bytes_per_replica`:
/// group_size x input for AllGather (its output buffer), the input for every other op.
std::uint64_t nccl_size_bytes(CollectiveOp op, std::uint64_t input_bytes_per_replica,
                              std::uint32_t group_size);

/// Algorithm bandwidth in bytes/s: the nccl-tests size (nccl_size_bytes) over the time.
double algorithm_bandwidth(std::uint64_t size_bytes, double seconds);

/// Bus-bandwidth factor for a group of n (nccl-tests): 2(n-1)/n for AllReduce; (n-1)/n for
/// ReduceScatter, AllGather and AllToAll; 1 for Broadcast.
double bus_bandwidth_factor(CollectiveOp op, std::uint32_t group_size);

/// Bus bandwidth = algorithm bandwidth * bus_bandwidth_factor(op, group_size).
double bus_bandwidth(CollectiveOp op, double algorithm_bandwidth_bytes_per_s,
                     std::uint32_t group_size);

}  // namespace ipusim::coll
