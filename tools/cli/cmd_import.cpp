// `ipusim import MODEL.onnx [--input-shape NAME=D0,...]... [--json]`: reads an ONNX model as
// PopART takes it (checker, shape inference, no weights loaded) and prints its summary.
#include <cstdio>
#include <iostream>

#include "runtime/onnx/onnx_summary.hpp"
#include "sim/json.hpp"
#include "tools/common/cli_util.hpp"

namespace ipusim::cli {
namespace {

using namespace onnx_import;

Json summary_json(const Graph& g, const Summary& s) {
  Json j = Json::object();
  j["path"] = g.path;
  j["opset"] = g.opset;
  j["ops"] = s.nodes;
  j["ops_by_type"] = s.ops_by_type;
  j["ops_by_class"] = s.nodes_by_class;
  j["parameters"] = s.parameters;
  j["weight_tensors"] = s.weight_tensors;
  j["batch"] = s.batch;
  j["forward_flops"] = s.forward_flops;
  j["forward_flops_per_sample"] = s.forward_flops_per_sample;
  j["matmul_conv_flops_per_sample"] = s.amp_flops_per_sample;
  j["activation_bytes"] = s.activation_bytes;
  Json inputs = Json::array();
  for (const std::string& in : g.inputs)
    inputs.push_back({{"name", in}, {"shape", g.tensor(in).dims}});
  j["inputs"] = inputs;
  Json outputs = Json::array();
  for (const std::string& out : g.outputs)
    outputs.push_back({{"name", out}, {"shape", g.tensor(out).dims}});
  j["outputs"] = outputs;
  Json ann = Json::object();
  for (const auto& [key, use] : s.annotations) {
    Json values = Json::object();
    for (const auto& [v, n] : use.nodes_by_value) values[std::to_string(v)] = n;
    ann[key] = {{"nodes", use.nodes}, {"nodes_by_value", values}};
  }
  j["annotations"] = ann;
  return j;
}

void print_text(const Graph& g, const Summary& s) {
  std::printf("%s (opset %lld)\n", g.path.c_str(), static_cast<long long>(g.opset));
  for (const std::string& in : g.inputs) {
    std::string dims;
    for (std::int64_t d : g.tensor(in).dims) dims += (dims.empty() ? "" : "x") + std::to_string(d);
    std::printf("  input            %s [%s]\n", in.c_str(), dims.c_str());
  }
  std::printf("  ops              %zu\n", s.nodes);
  std::string by_type;
  for (const auto& [op, n] : s.ops_by_type)
    by_type += (by_type.empty() ? "" : ", ") + op + " " + std::to_string(n);
  std::printf("  ops by type      %s\n", by_type.c_str());
  std::printf("  parameters       %llu (%zu weight tensors)\n",
              static_cast<unsigned long long>(s.parameters), s.weight_tensors);
  std::printf("  forward flops    %.6g per sample (%.6g in matmul/conv), batch %lld\n",
              s.forward_flops_per_sample, s.amp_flops_per_sample, static_cast<long long>(s.batch));
  std::printf("  activations      %llu B for the batch\n",
              static_cast<unsigned long long>(s.activation_bytes));
  if (s.annotations.empty())
    std::printf(
        "  annotations      none (PopART: __ipu_number, __pipeline_stage, __execution_phase)\n");
  for (const auto& [key, use] : s.annotations) {
    std::string values;
    for (const auto& [v, n] : use.nodes_by_value)
      values += (values.empty() ? "" : ", ") + std::to_string(v) + ": " + std::to_string(n);
    std::printf("  annotation       %s on %zu nodes (value: nodes %s)\n", key.c_str(), use.nodes,
                values.c_str());
  }
}

}  // namespace

int cmd_import(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts(
      "ipusim import MODEL.onnx [--input-shape NAME=D0,D1,...]... [--json]");
  opts.add_options()("help", "show this help")("model", po::value<std::string>(),
                                               "ONNX model file")(
      "input-shape", po::value<std::vector<std::string>>()->composing(),
      "shape of a graph input with symbolic dims, NAME=D0,D1,... (repeatable; PopART's "
      "InputShapeInfo)")("json", "print JSON");
  po::positional_options_description pos;
  pos.add("model", 1);
  const auto vm = parse_options(opts, pos, args);
  if (vm.count("help") || !vm.count("model")) {
    std::cout << opts << "\n";
    return vm.count("help") ? 0 : 2;
  }
  InputShapes shapes;
  if (vm.count("input-shape"))
    for (const std::string& s : vm["input-shape"].as<std::vector<std::string>>())
      parse_input_shape(s, "--input-shape", shapes);
  // A relative model path not found here is looked up in the checkout, as run's CONFIG is
  // (the README's and docs/onnx.md's commands name tests/onnx/models/...).
  const Graph g = load_graph(resolve_input_path(vm["model"].as<std::string>()), shapes);
  const Summary s = summarise(g);
  if (vm.count("json")) {
    std::cout << summary_json(g, s).dump(2) << "\n";
  } else {
    print_text(g, s);
  }
  return 0;
}

}  // namespace ipusim::cli
