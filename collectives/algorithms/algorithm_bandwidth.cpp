#include "collectives/algorithms/algorithm_bandwidth.hpp"

#include <stdexcept>

namespace ipusim::coll {

std::uint64_t nccl_size_bytes(CollectiveOp op, std::uint64_t input_bytes_per_replica,
                              std::uint32_t group_size) {
  return op == CollectiveOp::AllGather ? input_bytes_per_replica * group_size
                                       : input_bytes_per_replica;
}

double algorithm_bandwidth(std::uint64_t size_bytes, double seconds) {
  if (!(seconds > 0.0)) throw std::invalid_argument("algorithm_bandwidth needs a positive time");
  return static_cast<double>(size_bytes) / seconds;
}

double bus_bandwidth_factor(CollectiveOp op, std::uint32_t group_size) {
  if (group_size == 0) throw std::invalid_argument("bus_bandwidth needs a group size >= 1");
  const double n = group_size;
  switch (op) {
    case CollectiveOp::AllReduce:
      return 2.0 * (n - 1.0) / n;
    case CollectiveOp::Broadcast:
      return 1.0;
    default:
      return (n - 1.0) / n;
  }
}

double bus_bandwidth(CollectiveOp op, double algorithm_bandwidth_bytes_per_s,
                     std::uint32_t group_size) {
  return algorithm_bandwidth_bytes_per_s * bus_bandwidth_factor(op, group_size);
}

}  // namespace ipusim::coll
