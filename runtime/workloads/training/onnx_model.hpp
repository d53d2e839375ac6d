#pragma once
// `/workload/model/onnx`: the user's ONNX model as a training or inference workload (PopART's
// TrainingSession / InferenceSession::createFromOnnxModel): path (relative to the config
// file), input_shapes (PopART's InputShapeInfo), loss, dtype.
#include "runtime/generators/model_gen_optimizer.hpp"
#include "runtime/workloads/training/training_state.hpp"
#include "sim/config.hpp"

namespace ipusim::rt {

/// Imports `/workload/model/onnx` (`onnx_node`) and builds its model; sets st.generator and
/// st.micro_batch (the graph's batch). Errors are ConfigErrors naming the config key and the
/// ONNX file and node.
Model read_onnx_model(ConfigNode& onnx_node, TrainingState& st, const OptimizerSpec& optimizer,
                      bool training);

/// Declares `/workload/model/onnx/...`.
void register_onnx_params();

}  // namespace ipusim::rt
