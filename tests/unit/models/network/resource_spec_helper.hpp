#pragma once
// Shared by the flow-engine unit tests: a resource spec from name, capacity and latency.
#include "models/network/flow_engine.hpp"

namespace ipusim::test {

/// A resource of `cap_Bpns` bytes per ns (= GB/s) and `latency_ns` per traversal.
inline ResourceSpec res(const char* name, double cap_Bpns, double latency_ns) {
  ResourceSpec r;
  r.name = name;
  r.capacity_Bpns = cap_Bpns;
  r.latency_ns = latency_ns;
  return r;
}

}  // namespace ipusim::test
