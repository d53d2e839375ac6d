// The summary of an imported ONNX graph (see onnx_summary.hpp).
#include "runtime/onnx/onnx_summary.hpp"

#include "runtime/onnx/onnx_ops.hpp"
#include "sim/errors.hpp"

namespace ipusim::onnx_import {

Summary summarise(const Graph& g) {
  Summary s;
  s.nodes = g.nodes.size();
  s.batch = g.batch;
  for (const std::string& w : trainable_weights(g)) {
    s.parameters += g.tensor(w).elements();
    ++s.weight_tensors;
  }
  double amp = 0;
  for (const Node& n : g.nodes) {
    ++s.ops_by_type[n.op_type];
    NodeCost c;
    try {
      c = node_cost(n, g);
    } catch (const std::exception& e) {
      throw ConfigError(g.path + ": node '" + n.name + "' (" + n.op_type + "): " + e.what());
    }
    ++s.nodes_by_class[to_string(c.cls)];
    s.forward_flops += c.flops();
    amp += c.amp_flops();
    if (c.cls != CostClass::Free)
      for (const std::string& out : n.outputs)
        if (!out.empty()) s.activation_bytes += g.tensor(out).bytes();
    for (auto [key, value] : {std::pair<const char*, int>{kVirtualGraphAttribute, n.ipu},
                              {kPipelineStageAttribute, n.pipeline_stage},
                              {kExecutionPhaseAttribute, n.execution_phase}}) {
      if (value < 0) continue;
      AnnotationUse& u = s.annotations[key];
      ++u.nodes;
      ++u.nodes_by_value[value];
    }
  }
  s.forward_flops_per_sample = s.forward_flops / static_cast<double>(s.batch);
  s.amp_flops_per_sample = amp / static_cast<double>(s.batch);
  return s;
}

}  // namespace ipusim::onnx_import
