#include "runtime/ir/ir_json.hpp"

#include <set>

#include "collectives/groups/comm_group_spec.hpp"
#include "collectives/schedule/schedule.hpp"
#include "models/ipu/compute.hpp"
#include "sim/param_spec_helpers.hpp"
#include "sim/params.hpp"

namespace ipusim::rt {
namespace {

std::vector<std::string> string_list(ConfigNode& n, const std::string& key) {
  const Json j = n.get_json(key);
  std::vector<std::string> out;
  if (j.is_null()) return out;
  if (!j.is_array()) n.fail(key, "expected a list of tensor names");
  for (const Json& e : j) {
    if (!e.is_string()) n.fail(key, "expected a list of tensor names, got " + e.dump());
    out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace

Model read_explicit_model(ConfigNode& model_node) {
  Model m;
  for (ConfigNode n : model_node.children("tensors")) {
    Tensor t;
    t.name = n.get_string("name");
    if (t.name.empty()) n.fail("name", "every tensor needs a name");
    const Json shape = n.get_json("shape");
    if (!shape.is_array()) n.fail("shape", "expected a list of positive dimensions");
    for (const Json& d : shape) {
      if (!d.is_number_integer() || d.get<std::int64_t>() <= 0)
        n.fail("shape", "expected positive integers, got " + d.dump());
      t.shape.push_back(d.get<std::int64_t>());
    }
    try {
      t.dtype = parse_ir_dtype(n.get_enum("dtype"));
      t.kind = parse_tensor_kind(n.get_enum("kind"));
      t.variable_settings = n.get_string("variable_settings");
      (void)coll::parse_comm_group_spec(t.variable_settings);
    } catch (const std::invalid_argument& e) {
      n.fail("variable_settings", e.what());
    }
    t.per_micro_batch = n.get_bool("per_micro_batch");
    n.finish();
    try {
      m.add_tensor(t);
    } catch (const std::invalid_argument& e) {
      n.fail("name", e.what());
    }
  }
  for (ConfigNode n : model_node.children("ops")) {
    ModelOp o;
    o.name = n.get_string("name");
    const std::string type = n.get_enum("type");
    o.type = type == "collective"     ? OpType::Collective
             : type == "remote_load"  ? OpType::RemoteLoad
             : type == "remote_store" ? OpType::RemoteStore
             : type == "host_load"    ? OpType::HostLoad
             : type == "host_store"   ? OpType::HostStore
                                      : OpType::Compute;
    const std::string pass = n.get_enum("pass");
    o.pass = pass == "backward" ? Pass::Backward
                                : (pass == "optimizer" ? Pass::Optimizer : Pass::Forward);
    o.forward_phase = static_cast<int>(n.get_int("forward_phase"));
    o.phase = static_cast<int>(n.get_int("phase"));
    o.vgraph = static_cast<int>(n.get_int("vgraph"));
    o.pipeline_stage = static_cast<int>(n.get_int("pipelineStage"));
    o.inputs = string_list(n, "inputs");
    o.outputs = string_list(n, "outputs");
    for (const auto* list : {&o.inputs, &o.outputs})
      for (const auto& t : *list)
        if (!m.has_tensor(t))
          n.fail(list == &o.inputs ? "inputs" : "outputs", "unknown tensor '" + t + "'");
    o.flops = n.get_double("flops");
    const Json mm = n.get_json("matmul");
    if (!mm.is_null()) {
      if (!mm.is_array() || mm.size() != 3 || !mm[0].is_number() || !mm[1].is_number() ||
          !mm[2].is_number())
        n.fail("matmul", "expected [m, k, n]");
      o.gemm = {mm[0].get<std::int64_t>(), mm[1].get<std::int64_t>(), mm[2].get<std::int64_t>(), 1};
      o.flops = o.gemm.flops();
    }
    o.bytes = n.get_uint("bytes");
    o.unit = parse_compute_unit(n.get_enum("unit"));
    o.op_class = parse_op_class(n.get_enum("op_class"));
    if (!n.has("op_class") && o.unit == ComputeUnit::Vector) o.op_class = OpClass::Elementwise;
    o.stash_bytes = n.get_uint("stash_bytes");
    o.dtype = parse_ir_dtype(n.get_enum("dtype"));
    o.temp_bytes = n.get_uint("temp_bytes");
    o.per_micro_batch = n.get_bool("per_micro_batch");
    o.collective_op = n.get_enum("collective_op");
    o.comm_group = n.get_string("comm_group");
    try {
      (void)coll::parse_comm_group_spec(o.comm_group);
    } catch (const std::invalid_argument& e) {
      n.fail("comm_group", e.what());
    }
    o.collective_bytes = n.get_uint("collective_bytes");
    n.finish();
    if (o.forward_phase < 0 && o.phase < 0) n.fail("forward_phase", "give forward_phase or phase");
    m.ops.push_back(o);
  }
  return m;
}

void register_ir_json_params() {
  using namespace ipusim::spec;
  const std::string t = "/workload/model/tensors/*/", o = "/workload/model/ops/*/";
  ParamRegistry::instance().add({
      text(t + "name", "", "Tensor name (unique)"),
      raw(t + "shape", Json(), "Per-replica shape, e.g. [1024, 4096]"),
      choice(t + "dtype", "float16", {"float16", "float32"}, "Element type"),
      choice(t + "kind", "activation",
             {"weight", "activation", "gradient", "optimizer_state", "accumulator"},
             "Tensor category"),
      text(t + "variable_settings", "all",
           "VariableSettings comm group: all | none | consecutive:K | orthogonal:K"),
      flag(t + "per_micro_batch", false, "Activations: one copy per batch-serialised micro-batch"),
      text(o + "name", "", "Op name"),
      choice(o + "type", "compute",
             {"compute", "collective", "remote_load", "remote_store", "host_load", "host_store"},
             "What the op does"),
      choice(o + "pass", "forward", {"forward", "backward", "optimizer"},
             "Part of the step (backward/optimizer phase = 2P-2-forward_phase)"),
      integer(o + "forward_phase", "", -1, -1, {},
              "Forward phase of the op (or of its forward counterpart)"),
      integer(o + "phase", "", -1, -1, {}, "Explicit execution phase (-1 = derive)"),
      integer(o + "vgraph", "", -1, -1, 63,
              "Explicit virtual graph: PopART virtualGraph (-1 = phase % stages; pipelining: "
              "required)"),
      integer(o + "pipelineStage", "", -1, -1, 255,
              "PopART pipelineStage of a forward op and its backward (-1 = its virtual graph)"),
      choice(o + "op_class", "matmul",
             {"matmul", "convolution", "norm", "softmax", "elementwise", "embedding", "optimizer",
              "loss"},
             "Compute-model class (unit vector without op_class: elementwise)"),
      integer(o + "stash_bytes", "B", 0, 0, {},
              "Forward ops: activation bytes the backward reads, per micro-batch (pipeline stash)"),
      raw(o + "inputs", Json(), "Input tensor names"),
      raw(o + "outputs", Json(), "Output tensor names"),
      real(o + "flops", "flop", 0.0, 0.0, {}, "Floating-point operations per replica"),
      raw(o + "matmul", Json(), "[m, k, n]: flops = 2 m k n (overrides flops)"),
      integer(o + "bytes", "B", 0, 0, {}, "Bytes read and written (vector-bound ops)"),
      choice(o + "unit", "amp", {"amp", "vector"}, "Execution unit"),
      choice(o + "dtype", "float16", {"float16", "float32"}, "Compute dtype"),
      integer(o + "temp_bytes", "B", 0, 0, {}, "Working memory while it runs (per IPU)"),
      flag(o + "per_micro_batch", true, "Runs once per batch-serialisation step"),
      choice(o + "collective_op", "allreduce", {"allreduce", "reduce_scatter", "all_gather"},
             "Collective op"),
      text(o + "comm_group", "all", "Collective group: all | consecutive:K | orthogonal:K"),
      integer(o + "collective_bytes", "B", 0, 0, {},
              "Collective / transfer / host stream bytes per replica"),
  });
}

}  // namespace ipusim::rt
