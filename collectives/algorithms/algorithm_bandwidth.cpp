#include "collectives/algorithms/algorithm_bandwidth.hpp"

#include <stdexcept>

namespace ipusim::coll {

double algorithm_bandwidth(std::uint64_t bytes_per_ipu, double seconds) {
  if (!(seconds > 0.0)) throw std::invalid_argument("algorithm_bandwidth needs a positive time");
  return static_cast<double>(bytes_per_ipu) / seconds;
}

double bus_bandwidth_factor(CollectiveOp op, std::uint32_t group_size) {
  if (group_size == 0) throw std::invalid_argument("bus_bandwidth needs a group size >= 1");
  const double n = group_size;
  switch (op) {
    case CollectiveOp::AllReduce: return 2.0 * (n - 1.0) / n;
    case CollectiveOp::Broadcast: return 1.0;
    default: return (n - 1.0) / n;
  }
}

double bus_bandwidth(CollectiveOp op, double algorithm_bandwidth_bytes_per_s,
                     std::uint32_t group_size) {
  return algorithm_bandwidth_bytes_per_s * bus_bandwidth_factor(op, group_size);
}

}  // namespace ipusim::coll
