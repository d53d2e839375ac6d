#include "runtime/workloads/workload_kinds.hpp"

#include "runtime/workloads/collective/collective_workload.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark_params.hpp"
#include "runtime/workloads/sharded_tensor/sharded_tensor_workload.hpp"
#include "runtime/workloads/training/training_workload.hpp"

namespace ipusim {

NamedTable<WorkloadKind>& workload_kind_table() {
  static NamedTable<WorkloadKind> table;
  return table;
}

void register_workload_kinds() {
  NamedTable<WorkloadKind>& table = workload_kind_table();
  // The order is the order of the names in error messages and --help.
  table.add({"microbenchmark", "microbenchmark steps", make_microbenchmark_workload,
             register_microbenchmark_params});
  table.add({"collective", "one collective", make_collective_workload, register_collective_params});
  table.add({"sharded_tensor", "one RTS-sharded tensor's collectives", make_sharded_tensor_workload,
             register_sharded_tensor_params});
  table.add(
      {"training", "a replicated training step", make_training_workload, register_training_params});
  // Inference reads the training kind's parameters (make_training_workload tells the two apart).
  table.add({"inference", "inference batches of an ONNX model (PopART's InferenceSession)",
             make_training_workload, nullptr});
}

std::string workload_kinds_help() {
  register_workload_kinds();
  return named_table_help(workload_kind_table());
}

}  // namespace ipusim
