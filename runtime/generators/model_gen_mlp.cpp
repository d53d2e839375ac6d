#include <stdexcept>
#include <string>

#include "runtime/generators/model_gen.hpp"

namespace ipusim::rt {

Model generate_mlp(const MlpSpec& spec) {
  if (spec.layer_sizes.size() < 2)
    throw std::invalid_argument("an MLP needs at least 2 layer sizes");
  Model m;
  const int layers = static_cast<int>(spec.layer_sizes.size()) - 1;
  m.forward_phases = layers;
  auto act = [&](const std::string& name, std::int64_t width) {
    Tensor t;
    t.name = name;
    t.shape = {spec.micro_batch, width};
    t.dtype = spec.dtype;
    t.kind = TensorKind::Activation;
    t.per_micro_batch = true;
    m.add_tensor(t);
  };
  for (int i = 1; i < layers; ++i) {
    act("x" + std::to_string(i), spec.layer_sizes[i]);
    act("dx" + std::to_string(i), spec.layer_sizes[i]);
  }
  ModelOp in;
  in.name = "input";
  in.type = OpType::HostLoad;
  in.forward_phase = 0;
  in.collective_bytes =
      static_cast<std::uint64_t>(spec.micro_batch * spec.layer_sizes[0]) * dtype_bytes(spec.dtype);
  m.ops.push_back(in);
  for (int i = 0; i < layers; ++i) {
    const std::int64_t a = spec.layer_sizes[i], b = spec.layer_sizes[i + 1];
    const std::string l = "fc" + std::to_string(i + 1);
    for (auto [suffix, shape] :
         {std::pair<const char*, std::vector<std::int64_t>>{"/w", {a, b}}, {"/b", {b}}}) {
      Tensor w;
      w.name = l + suffix;
      w.shape = shape;
      w.dtype = spec.dtype;
      w.kind = TensorKind::Weight;
      m.add_tensor(w);
    }
    const double flops = 2.0 * static_cast<double>(spec.micro_batch * a * b);
    ModelOp f;
    f.name = l + "/fwd";
    f.forward_phase = i;
    f.flops = flops;
    f.dtype = spec.dtype;
    f.inputs = {l + "/w", l + "/b"};
    if (i > 0) f.inputs.push_back("x" + std::to_string(i));
    if (i + 1 < layers) f.outputs = {"x" + std::to_string(i + 1)};
    m.ops.push_back(f);
  }
  for (int i = layers - 1; i >= 0; --i) {
    const std::int64_t a = spec.layer_sizes[i], b = spec.layer_sizes[i + 1];
    const std::string l = "fc" + std::to_string(i + 1);
    ModelOp g;
    g.name = l + "/bwd";
    g.pass = Pass::Backward;
    g.forward_phase = i;
    g.flops = 4.0 * static_cast<double>(spec.micro_batch * a * b);
    g.dtype = spec.dtype;
    g.inputs = {l + "/w"};
    if (i > 0) g.inputs.push_back("x" + std::to_string(i));
    if (i + 1 < layers) g.inputs.push_back("dx" + std::to_string(i + 1));
    if (i > 0) g.outputs = {"dx" + std::to_string(i)};
    m.ops.push_back(g);
    add_optimizer(m, l + "/w", i, spec.optimizer);
    add_optimizer(m, l + "/b", i, spec.optimizer);
    if (spec.optimizer.accumulate) {
      m.ops[m.ops.size() - 3].outputs.push_back(l + "/w/accum");
      m.ops[m.ops.size() - 3].outputs.push_back(l + "/b/accum");
    }
  }
  return m;
}

}  // namespace ipusim::rt
