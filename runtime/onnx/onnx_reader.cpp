// Reading an ONNX model with onnx's protobuf classes, checker and shape inference (Debian
// libonnx-dev). Initializer data is never read: only dims and element types, so initializers
// stored as external data whose file is absent import as well as embedded ones.
// Built as its own loadable module (libipusim_onnx_reader.so), opened by onnx_load.cpp on the
// first import, so processes that read no ONNX model never load libonnx and libprotobuf.
#include "runtime/onnx/onnx_reader.hpp"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "runtime/onnx/onnx_fold.hpp"
#include "runtime/onnx/onnx_graph.hpp"
#include "runtime/onnx/onnx_ops.hpp"
#include "sim/errors.hpp"

namespace ipusim::onnx_import {
namespace {

/// Bytes per element of an onnx::TensorProto::DataType (0 for strings and unknown types).
std::uint32_t elem_bytes(int t) {
  switch (t) {
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::BOOL:
      return 1;
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
      return 2;
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT32:
      return 4;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::COMPLEX64:
      return 8;
    case onnx::TensorProto::COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

bool is_float_type(int t) {
  return t == onnx::TensorProto::FLOAT || t == onnx::TensorProto::FLOAT16 ||
         t == onnx::TensorProto::BFLOAT16 || t == onnx::TensorProto::DOUBLE;
}

std::string dims_text(const std::vector<std::int64_t>& d) {
  std::string s;
  for (std::int64_t x : d) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw ConfigError(path + ": " + what);
}

std::string node_label(const onnx::NodeProto& n, int index) {
  return n.name().empty() ? "#" + std::to_string(index) + " " + n.op_type() : n.name();
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    fail(path, "not a readable ONNX file (missing, or not a regular file)");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream data;
  data << in.rdbuf();
  if (!in && !in.eof()) fail(path, "cannot read the file");
  return data.str();
}

/// Names of graph inputs that are not initializers (PopART's stream inputs).
std::vector<const onnx::ValueInfoProto*> stream_inputs(const onnx::GraphProto& g) {
  std::set<std::string> inits;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  std::vector<const onnx::ValueInfoProto*> out;
  for (const auto& v : g.input())
    if (!inits.count(v.name())) out.push_back(&v);
  return out;
}

/// Fixes the symbolic dims of the graph inputs from `shapes`, then refuses any input dim
/// still unknown (naming the --input-shape to give).
void apply_input_shapes(const std::string& path, onnx::GraphProto& g, const InputShapes& shapes) {
  std::set<std::string> inits;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  std::string names;
  for (const auto* v : stream_inputs(g)) names += (names.empty() ? "" : ", ") + v->name();
  // A symbolic dimension names one size wherever it appears (the ONNX IR: dim_params that
  // are equal denote the same value), so two inputs that share it must be given it alike.
  std::map<std::string, std::pair<std::int64_t, std::string>> symbol_values;  // -> value, input
  for (const auto& [name, dims] : shapes) {
    onnx::ValueInfoProto* input = nullptr;
    for (auto& v : *g.mutable_input())
      if (v.name() == name && !inits.count(name)) input = &v;
    if (!input)
      fail(path, "--input-shape " + name + ": the graph has no input '" + name +
                     "' (its inputs: " + names + ")");
    auto* shape = input->mutable_type()->mutable_tensor_type()->mutable_shape();
    if (input->type().tensor_type().has_shape() &&
        shape->dim_size() != static_cast<int>(dims.size()))
      fail(path, "--input-shape " + name + "=" + dims_text(dims) + ": input '" + name +
                     "' has rank " + std::to_string(shape->dim_size()) + ", not " +
                     std::to_string(dims.size()));
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (static_cast<int>(i) >= shape->dim_size()) shape->add_dim();
      auto* d = shape->mutable_dim(static_cast<int>(i));
      if (d->has_dim_value() && d->dim_value() != dims[i])
        fail(path, "--input-shape " + name + "=" + dims_text(dims) + ": dimension " +
                       std::to_string(i) + " of input '" + name + "' is fixed at " +
                       std::to_string(d->dim_value()) + " in the model");
      if (d->has_dim_param() && !d->dim_param().empty()) {
        const auto [it, fresh] = symbol_values.emplace(d->dim_param(), std::pair{dims[i], name});
        if (!fresh && it->second.first != dims[i])
          fail(path, "--input-shape " + name + "=" + dims_text(dims) + ": dimension " +
                         std::to_string(i) + " of input '" + name + "' is the symbolic '" +
                         d->dim_param() + "', which input '" + it->second.second + "' sets to " +
                         std::to_string(it->second.first) +
                         " (a symbolic dimension has one value in the whole graph)");
      }
      d->set_dim_value(dims[i]);
    }
  }
  for (const auto* v : stream_inputs(g)) {
    const auto& tt = v->type().tensor_type();
    if (!tt.has_shape())
      fail(path, "input '" + v->name() + "' has no shape: give --input-shape " + v->name() +
                     "=D0,D1,... (in a config: input_shapes)");
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto& d = tt.shape().dim(i);
      if (d.has_dim_value() && d.dim_value() > 0) continue;
      fail(path, "input '" + v->name() + "' dimension " + std::to_string(i) + " is symbolic ('" +
                     d.dim_param() + "'): give --input-shape " + v->name() +
                     "=D0,D1,... (in a config: /workload/model/onnx/input_shapes/" + v->name() +
                     ")");
    }
  }
}

/// A ValueInfo's element type and dims; false if any dim is unknown.
bool read_type(const onnx::ValueInfoProto& v, TensorInfo& t) {
  if (!v.type().has_tensor_type()) return false;
  const auto& tt = v.type().tensor_type();
  t.elem_type = tt.elem_type();
  t.elem_bytes = elem_bytes(t.elem_type);
  t.is_float = is_float_type(t.elem_type);
  if (!tt.has_shape()) return false;
  t.dims.clear();
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return false;
    t.dims.push_back(d.dim_value());
  }
  return true;
}

/// A copy of the model the checker can verify without the weights: initializers stored as
/// external data (whose file may be absent) become graph inputs of the same type and shape
/// (onnx's checker otherwise insists that the data file exists).
onnx::ModelProto without_external_data(const onnx::ModelProto& model) {
  onnx::ModelProto m = model;
  onnx::GraphProto* g = m.mutable_graph();
  std::set<std::string> inputs;
  for (const auto& v : g->input()) inputs.insert(v.name());
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (const auto& t : g->initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) {
      *kept.Add() = t;
      continue;
    }
    if (inputs.count(t.name())) continue;
    auto* tt = g->add_input()->mutable_type()->mutable_tensor_type();
    g->mutable_input(g->input_size() - 1)->set_name(t.name());
    tt->set_elem_type(t.data_type());
    for (std::int64_t d : t.dims()) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  g->mutable_initializer()->Swap(&kept);
  return m;
}

/// The model's opset for `domain` ("ai.onnx" = the default one), or "none imported".
std::string opset_text(const onnx::ModelProto& m, const std::string& domain) {
  const bool deflt = domain.empty() || domain == "ai.onnx";
  for (const auto& op : m.opset_import())
    if (op.domain() == domain || (deflt && (op.domain().empty() || op.domain() == "ai.onnx")))
      return (deflt ? "" : op.domain() + " ") + std::to_string(op.version());
  return "none imported";
}

Node read_node(const onnx::NodeProto& p, int index) {
  Node n;
  n.name = node_label(p, index);
  n.op_type = p.op_type();
  n.domain = p.domain();
  n.inputs.assign(p.input().begin(), p.input().end());
  n.outputs.assign(p.output().begin(), p.output().end());
  for (const auto& a : p.attribute()) {
    if (a.type() == onnx::AttributeProto::INT) n.ints[a.name()] = a.i();
    if (a.type() == onnx::AttributeProto::INTS)
      n.int_lists[a.name()].assign(a.ints().begin(), a.ints().end());
  }
  auto annotation = [&](const char* key) {
    return n.ints.count(key) ? static_cast<int>(n.ints.at(key)) : -1;
  };
  n.ipu = annotation(kVirtualGraphAttribute);
  n.pipeline_stage = annotation(kPipelineStageAttribute);
  n.execution_phase = annotation(kExecutionPhaseAttribute);
  return n;
}

/// The whole import; the module's one entry point below wraps it.
Graph read_graph(const std::string& path, const InputShapes& input_shapes) {
  onnx::ModelProto model;
  {
    const std::string data = read_file(path);
    if (!model.ParseFromString(data))
      fail(path,
           "not an ONNX model: the protobuf ModelProto does not parse (a truncated file, or "
           "another format)");
  }
  if (!model.has_graph() || model.graph().node_size() == 0)
    fail(path, "not an ONNX model: it has no graph nodes");
  const onnx::GraphProto& gp = model.graph();
  for (int i = 0; i < gp.node_size(); ++i) {
    const auto& n = gp.node(i);
    if (!is_supported(n.op_type(), n.domain()))
      fail(path, "node '" + node_label(n, i) + "': op type '" +
                     (n.domain().empty() ? "" : n.domain() + "::") + n.op_type() + "' (opset " +
                     opset_text(model, n.domain()) +
                     ") is not modelled by the simulator; supported (default domain): " +
                     supported_ops_text());
  }
  apply_input_shapes(path, *model.mutable_graph(), input_shapes);
  try {
    onnx::checker::check_model(without_external_data(model));
  } catch (const std::exception& e) {
    fail(path, std::string("the ONNX checker refuses the model: ") + e.what());
  }
  onnx::ModelProto inferred;
  try {
    inferred = infer_shapes_folding(model);
  } catch (const std::exception& e) {
    fail(path, std::string("shape inference failed: ") + e.what());
  }
  Graph g;
  g.path = path;
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") g.opset = op.version();
  for (const auto& t : gp.initializer()) {
    TensorInfo& info = g.tensors[t.name()];
    info.dims.assign(t.dims().begin(), t.dims().end());
    info.elem_type = t.data_type();
    info.elem_bytes = elem_bytes(info.elem_type);
    info.is_float = is_float_type(info.elem_type);
    info.initializer = true;
    g.initializers.push_back(t.name());
  }
  for (const auto* v : stream_inputs(gp)) {
    read_type(*v, g.tensors[v->name()]);
    g.inputs.push_back(v->name());
  }
  for (const auto* list : {&inferred.graph().value_info(), &inferred.graph().output()})
    for (const auto& v : *list) {
      TensorInfo t;
      if (!g.tensors.count(v.name()) && read_type(v, t)) g.tensors[v.name()] = t;
    }
  for (const auto& v : gp.output()) g.outputs.push_back(v.name());
  std::string input_names;
  for (const std::string& in : g.inputs) input_names += (input_names.empty() ? "" : ", ") + in;
  // Tensors something reads: a node, or the caller (graph outputs).
  std::set<std::string> read;
  for (const auto& n : gp.node()) read.insert(n.input().begin(), n.input().end());
  for (const auto& v : gp.output()) read.insert(v.name());
  for (int i = 0; i < gp.node_size(); ++i) {
    Node n = read_node(gp.node(i), i);
    n.constant = n.op_type != "Constant" && inferred.graph().node(i).op_type() == "Constant";
    for (std::string& out : n.outputs) {
      if (out.empty() || g.tensors.count(out)) continue;
      // An output nothing reads is dropped, as an omitted optional output: BatchNormalization-9
      // in training mode (torch's export below opset 14) writes the running and saved mean and
      // variance, whose shapes onnx's inference leaves unset; no cost depends on them.
      if (!read.count(out)) {
        out.clear();
        continue;
      }
      fail(path, "node '" + n.name + "' (" + n.op_type + "): the shape of output '" + out +
                     "' cannot be inferred; give every input's shape with --input-shape "
                     "NAME=D0,D1,... (in a config: "
                     "/workload/model/onnx/input_shapes; inputs: " +
                     input_names + ")");
    }
    for (const std::string& in : n.inputs)
      if (!in.empty() && !g.tensors.count(in))
        fail(path, "node '" + n.name + "' (" + n.op_type + ") reads '" + in +
                       "', which no node, input or initializer defines");
    g.nodes.push_back(std::move(n));
  }
  if (!g.inputs.empty() && !g.tensor(g.inputs[0]).dims.empty())
    g.batch = std::max<std::int64_t>(1, g.tensor(g.inputs[0]).dims[0]);
  return g;
}

}  // namespace

}  // namespace ipusim::onnx_import

extern "C" __attribute__((visibility("default"))) void ipusim_onnx_read_graph(
    const std::string& path, const ipusim::onnx_import::InputShapes& input_shapes,
    ipusim::onnx_import::Graph& out) {
  out = ipusim::onnx_import::read_graph(path, input_shapes);
}
