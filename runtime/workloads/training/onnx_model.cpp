// Reads `/workload/model/onnx` and builds the model with the ONNX generator (onnx_model.hpp).
#include "runtime/workloads/training/onnx_model.hpp"

#include <filesystem>

#include "runtime/generators/model_gen_onnx.hpp"
#include "sim/errors.hpp"
#include "sim/param_spec_helpers.hpp"
#include "sim/params.hpp"

namespace ipusim::rt {

Model read_onnx_model(ConfigNode& n, TrainingState& st, const OptimizerSpec& optimizer,
                      bool training) {
  namespace fs = std::filesystem;
  std::string path = n.get_string("path");
  if (path.empty()) n.fail("path", "give the ONNX model file (relative to the config file)");
  if (fs::path(path).is_relative()) {
    const fs::path origin(n.origin("path"));
    // An override on the command line ("--set ...") has no file: relative to the working directory.
    if (origin.has_parent_path() && origin.string().rfind("--", 0) != 0)
      path = (origin.parent_path() / path).lexically_normal().string();
  }
  onnx_import::InputShapes shapes;
  const Json js = n.get_json("input_shapes");
  if (!js.is_null()) {
    if (!js.is_object())
      n.fail("input_shapes", "expected an object {\"input name\": [D0, D1, ...]}");
    for (auto it = js.begin(); it != js.end(); ++it) {
      if (!it.value().is_array())
        n.fail("input_shapes", "'" + it.key() + "': expected a list of positive dimensions");
      for (const Json& d : it.value()) {
        if (!d.is_number_integer() || d.get<std::int64_t>() <= 0)
          n.fail("input_shapes", "'" + it.key() + "': expected positive integers, got " + d.dump());
        shapes[it.key()].push_back(d.get<std::int64_t>());
      }
    }
  }
  OnnxSpec spec;
  spec.loss = n.get_string("loss");
  spec.dtype = n.get_enum("dtype");
  n.finish();
  if (training && spec.loss.empty())
    n.fail("loss", "a training session needs the loss tensor id (PopART's loss argument)");
  spec.training = training;
  spec.optimizer = optimizer;
  spec.ipus_per_replica = st.session.ipusPerReplica;
  spec.auto_virtual_graph = st.session.virtualGraphMode == VirtualGraphMode::Auto;
  spec.pipeline_recomputation = st.session.autoRecomputation == Recomputation::Pipeline;
  const std::string where = n.path() + ": ";
  try {
    const onnx_import::Graph g = onnx_import::load_graph(path, shapes);
    st.generator = "onnx";
    st.micro_batch = static_cast<std::uint64_t>(g.batch);
    return generate_onnx(g, spec);
  } catch (const ConfigError& e) {
    throw ConfigError(where + e.what());
  }
}

void register_onnx_params() {
  using namespace ipusim::spec;
  const std::string o = "/workload/model/onnx/";
  ParamRegistry::instance().add({
      text(o + "path", "",
           "ONNX model file (relative to the config file); weights are not read (external data may "
           "be absent)"),
      raw(o + "input_shapes", Json(),
          "Shapes of graph inputs with symbolic dims, {\"name\": [D0, D1, ...]} (PopART's "
          "InputShapeInfo); "
          "the first dim of the first input is the micro-batch"),
      text(o + "loss", "", "Training: the loss tensor id (PopART's loss argument)"),
      choice(o + "dtype", "model", {"model", "float16", "float32"},
             "Element type of every float tensor: as stored in the model, or converted (float16: "
             "the model run in half precision)"),
  });
}

}  // namespace ipusim::rt
