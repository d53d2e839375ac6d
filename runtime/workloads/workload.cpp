#include "runtime/workloads/workload.hpp"

#include <systemc>

#include "runtime/workloads/collective/collective_workload.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark_params.hpp"
#include "runtime/workloads/runtime_params.hpp"
#include "runtime/workloads/sharded_tensor/sharded_tensor_workload.hpp"
#include "runtime/workloads/training/training_workload.hpp"
#include "sim/params.hpp"

namespace ipusim {

void register_runtime_params() {
  ParamRegistry::instance().add({
      {"/workload/kind",
       ParamType::Enum,
       "",
       Json(),
       {},
       {},
       {"microbenchmark", "collective", "sharded_tensor", "training", "inference"},
       "What to simulate: microbenchmark steps, one collective, one RTS-sharded tensor's "
       "collectives, a replicated training step, or "
       "inference batches of an ONNX model (PopART's InferenceSession)"},
  });
  register_microbenchmark_params();
  register_collective_params();
  register_training_params();
  register_sharded_tensor_params();
}

bool run_guarded(const std::function<void()>& body, std::string& failure) {
  try {
    body();
    return true;
  } catch (const std::exception& e) {
    failure = e.what();
    sc_core::sc_stop();
    return false;
  }
}

std::unique_ptr<Workload> make_workload(System& system, ConfigNode node) {
  const std::string kind = node.get_enum("kind");
  if (kind == "collective") return make_collective_workload(system, node);
  if (kind == "training" || kind == "inference") return make_training_workload(system, node);
  if (kind == "sharded_tensor") return make_sharded_tensor_workload(system, node);
  return make_microbenchmark_workload(system, node);
}

}  // namespace ipusim
