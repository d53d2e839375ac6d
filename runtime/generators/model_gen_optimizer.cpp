#include "runtime/generators/model_gen_optimizer.hpp"

#include <stdexcept>

namespace ipusim::rt {

int optimizer_states(const std::string& type) {
  if (type == "sgd" || type == "lars") return 1;
  if (type == "adam" || type == "lamb") return 2;
  throw std::invalid_argument("unknown optimizer '" + type +
                              "' (expected sgd, adam, lamb or lars)");
}

double optimizer_flops_per_element(const std::string& type) {
  if (type == "sgd") return 4;
  if (type == "adam") return 12;
  if (type == "lamb") return 16;
  // LARS (You et al. 2017, as in MLPerf ResNet-50), per element: ||w||^2 2 (mul, add),
  // ||g||^2 2, g + wd*w 2, times the layer's local lr = eta*||w||/(||g||+wd*||w||) 1,
  // momentum v = mu*v + that 2, w -= v 1 = 10. The trust ratio itself (sqrt, divide) is a
  // few flops per tensor, not per element, so it rounds to 0 here.
  if (type == "lars") return 10;
  throw std::invalid_argument("unknown optimizer '" + type +
                              "' (expected sgd, adam, lamb or lars)");
}

std::uint32_t lars_norms(const std::string& type, const std::string& weight) {
  if (type != "lars") return 0;
  // Graphcore's CNN train.py skips LARS scaling for variables whose name contains one of
  // --lars-skip-list (default beta, gamma, bias; plus batch_norm/moving_, which are not
  // trained): those take the plain momentum update, with no norms.
  for (const char* skip : {"beta", "gamma", "bias"})
    if (weight.find(skip) != std::string::npos) return 0;
  return 2;  // ||w|| and ||g|| (tf.norm of the variable and of its gradient)
}

std::uint32_t tf_update_ops(const OptimizerSpec& spec, const std::string& weight) {
  if (!spec.tf_ipu_optimizer) return 1;
  const bool lars = spec.type == "lars";
  if (!lars && spec.type != "sgd") return 1;
  // Why separate ops: TensorFlow's IPU backend fuses an element-wise tree into one popops map
  // (expression outliner) only where each op has one user and is not lowered in place; the
  // momentum and variable updates run in place, a norm's square root has several users (the
  // trust ratio's tests and terms), and nothing fuses across variables (the resource-update
  // clustering is for replicated tensor sharding, which MLPerf ResNet-50 does not use).
  const std::uint32_t normalise = spec.replicated ? 1 : 0;  // ipu_replication_normalise
  std::uint32_t n = normalise;
  n += 1;            // IPUOptimizer.add_WD: grad + weight_decay * loss_scaling * var
  if (lars) n += 1;  // IPUOptimizer: grad / grad_scale (= loss_scaling for LARS)
  if (lars) n += lars_norms(spec.type, weight) > 0 ? 4 : 1;  // LARSOptimizer, see header
  n += 2;  // apply_momentum: accum = m * accum + g; var -= lr * accum
  if (weight.size() >= 6 && weight.compare(weight.size() - 6, 6, "/gamma") == 0)
    n += 2 * (normalise + 1);  // the layer's moving mean and variance (gradient descent)
  return n;
}

std::uint32_t popart_update_ops(const OptimizerSpec& spec, DType weight_dtype) {
  if (!spec.popart_decompose || (spec.type != "adam" && spec.type != "lamb")) return 1;
  std::uint32_t n = 0;
  // gradCast: PopART casts an FP16 gradient (the accumulator's type) when both moments are FP32
  // (scaledOptimizerState off, its default).
  if (weight_dtype == DType::Float16 && spec.state_dtype == DType::Float32) n += 1;
  n += 1;                             // gradUnscale: ScaleOp by the constant gradient scale
  n += 2;                             // accl1, accl2: the moment AccumulateOps
  if (spec.accumulate) n += 1;        // accumUpdate: AccumulatorUpdateOp zeroes the accumulator
  n += 2;                             // AdamUpdaterOp, AdamVarUpdateOp
  if (spec.clip_all_weights) n += 1;  // the gradient times the clip factor (MulOp)
  return n;
}

std::uint32_t popart_update_reductions(const OptimizerSpec& spec) {
  if (!spec.popart_decompose || (spec.type != "adam" && spec.type != "lamb")) return 0;
  return (spec.type == "lamb" ? 2 : 0) + (spec.clip_all_weights ? 1 : 0);
}

void combine_scalar_reductions(Model& model, std::uint64_t buffer_bytes) {
  // The reductions of all the weights' norms are independent once the gradients are reduced,
  // so the combiner's scheduler can take them together up to the buffer size; a reduce-many
  // reduces every output on its own tiles at once, so a cluster costs what one reduction does.
  ModelOp* cluster_start = nullptr;
  std::uint64_t used = 0;
  for (ModelOp& o : model.ops) {
    if (o.pass != Pass::Optimizer || o.scalar_reductions == 0) continue;
    const std::uint64_t out = dtype_bytes(model.tensor(o.inputs[0]).dtype);
    if (buffer_bytes < out) continue;  // an output larger than the buffer runs alone
    const std::uint32_t n = o.scalar_reductions;
    o.scalar_reductions = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (cluster_start == nullptr || used + out > buffer_bytes) {
        cluster_start = &o;
        used = 0;
        ++o.scalar_reductions;
      }
      used += out;
    }
  }
}

void add_optimizer(Model& model, const std::string& weight, int forward_phase,
                   const OptimizerSpec& spec) {
  const Tensor w = model.tensor(weight);
  Tensor g;
  g.name = weight + "/grad";
  g.shape = w.shape;
  g.dtype = w.dtype;
  g.kind = TensorKind::Gradient;
  g.variable_settings = w.variable_settings;
  model.add_tensor(g);
  ModelOp op;
  op.name = weight + "/update";
  op.pass = Pass::Optimizer;
  op.forward_phase = forward_phase;
  op.per_micro_batch = false;
  op.unit = ComputeUnit::Vector;
  op.op_class = OpClass::Optimizer;
  op.dtype = spec.state_dtype;
  op.inputs = {weight, g.name};
  op.outputs = {weight};
  if (spec.accumulate) {
    Tensor a = w;
    a.name = weight + "/accum";
    a.kind = TensorKind::Accumulator;
    a.location.reset();
    model.add_tensor(a);
    op.inputs.push_back(a.name);
    op.outputs.push_back(a.name);  // zeroed after the update
  }
  const char* names[] = {"/state_m", "/state_v"};
  for (int i = 0; i < optimizer_states(spec.type); ++i) {
    Tensor s = w;
    s.name = weight + names[i];
    s.kind = TensorKind::OptimizerState;
    s.dtype = spec.state_dtype;
    s.location.reset();
    model.add_tensor(s);
    op.inputs.push_back(s.name);
    op.outputs.push_back(s.name);
  }
  const double n = static_cast<double>(w.elements());
  op.flops = n * optimizer_flops_per_element(spec.type);
  op.bytes = static_cast<std::uint64_t>(n) * 3 *
                 dtype_bytes(w.dtype) +  // weight read+write, gradient read
             static_cast<std::uint64_t>(n) * dtype_bytes(spec.state_dtype) * 2 *
                 optimizer_states(spec.type);
  // LARS needs the norms before it can update, so it reads the weight and gradient twice.
  if (spec.type == "lars") op.bytes += static_cast<std::uint64_t>(n) * 2 * dtype_bytes(w.dtype);
  op.scalar_reductions = lars_norms(spec.type, weight) + popart_update_reductions(spec);
  // LAMB's two LambSquareOps read the shard under RTS and are all-reduced (SDK 2.1 to 2.5.1).
  // The clipping ReduceSumSquareOp is too only from SDK 2.5 (its RTS handling and the transform
  // before the second streaming-memory pass are not in sdk/poplar/2.3.0): not counted here.
  op.sharded_norms = popart_update_reductions(spec) -
                     (spec.clip_all_weights && popart_update_reductions(spec) > 0 ? 1 : 0);
  op.chained_ops =
      spec.tf_ipu_optimizer ? tf_update_ops(spec, weight) : popart_update_ops(spec, w.dtype);
  model.ops.push_back(op);
}

}  // namespace ipusim::rt
