#pragma once
// The `sharded_tensor` workload kind: one replicated-tensor-sharded (RTS) weight and the
// collectives PopART inserts for it in a training step (AllGather over the sharding domain,
// ReduceScatter of its gradient over the domain, AllReduce over the orthogonal replicas when
// the domain is smaller than the replication factor), with CBR's layout deciding the
// per-tile exchange cost. Reports per-replica memory and time per collective and link tier,
// so sharding domains can be compared (in-Pod on IPU-Links vs all replicas over GW-Links).
#include <memory>

#include "runtime/workloads/workload.hpp"

namespace ipusim {

/// Builds the workload from `/workload` (kind == "sharded_tensor").
std::unique_ptr<Workload> make_sharded_tensor_workload(System& system, ConfigNode node);

/// Declares the `/workload/...` parameters of this kind.
void register_sharded_tensor_params();

}  // namespace ipusim
