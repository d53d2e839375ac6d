// The ONNX op table: class, flops per element and backward factor of every op type the
// simulator models, plus the shape arithmetic of the AMP ops (MatMul, Gemm, Conv).
#include "runtime/onnx/onnx_ops.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ipusim::onnx_import {
namespace {

/// How an op type's cost is computed. `Elementwise`-like rules cost `flops_per_element` per
/// output element (per input element for reductions) and read every input, write every output.
enum class Rule {
  Free,
  Move,
  PerOutput,
  PerInput,
  Pool,
  GlobalPool,
  BatchNorm,
  Gather,
  MatMul,
  Gemm,
  Conv,
  Recurrent
};

struct OpRule {
  Rule rule;
  CostClass cls;
  double flops_per_element;
  double backward_factor;  ///< backward vector work / forward (ASSUMPTION: counted operations)
};

// Element-wise counts are operations per element (ASSUMPTION, as the generators count them):
// a linear op (add, multiply, select) 1 with an equally cheap backward; a non-linear one
// (exp, erf, divide, ...) 1 with a backward twice its forward (it multiplies by the
// derivative). Norms and softmax use the generators' counts: batch norm 5 per element
// (mean, variance 2, scale and shift 2) with a backward of 9 (model_gen_cnn.cpp), layer norm
// 8 with a backward of 16, softmax 5 (max, subtract, exp, sum, divide) with a backward of 5.
const std::map<std::string, OpRule>& table() {
  static const std::map<std::string, OpRule> t = [] {
    std::map<std::string, OpRule> m;
    // Poplar transposes, slices and reshapes are views of the same tensor (no copy).
    for (const char* op :
         {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Transpose", "Slice", "Split",
          "Constant", "Shape", "ConstantOfShape", "Range", "Size"})
      m[op] = {Rule::Free, CostClass::Free, 0, 0};
    for (const char* op : {"Concat", "Expand", "Tile", "Pad", "GatherElements", "ScatterND",
                           "ScatterElements", "DepthToSpace", "SpaceToDepth"})
      m[op] = {Rule::Move, CostClass::DataMovement, 0, 1};
    for (const char* op :
         {"Add",       "Sub",   "Mul",   "Sum",  "Max",     "Min",         "Mean",           "Relu",
          "LeakyRelu", "PRelu", "Clip",  "Abs",  "Neg",     "Sign",        "Floor",          "Ceil",
          "Round",     "Where", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And",
          "Or",        "Not",   "Xor",   "Cast", "Dropout"})
      m[op] = {Rule::PerOutput, CostClass::Elementwise, 1, 1};
    for (const char* op :
         {"Div", "Sqrt", "Reciprocal", "Exp", "Log", "Pow", "Sigmoid", "Tanh", "Erf", "HardSigmoid",
          "HardSwish", "Softplus", "Elu", "Selu", "Sin", "Cos", "Gelu"})
      m[op] = {Rule::PerOutput, CostClass::Elementwise, 1, 2};
    for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceSumSquare",
                           "ReduceL2", "ReduceProd"})
      m[op] = {Rule::PerInput, CostClass::Elementwise, 1, 1};
    m["MaxPool"] = {Rule::Pool, CostClass::Elementwise, 1, 1};
    m["AveragePool"] = {Rule::Pool, CostClass::Elementwise, 1, 1};
    m["GlobalAveragePool"] = {Rule::GlobalPool, CostClass::Elementwise, 1, 1};
    m["GlobalMaxPool"] = {Rule::GlobalPool, CostClass::Elementwise, 1, 1};
    m["BatchNormalization"] = {Rule::BatchNorm, CostClass::Norm, 5, 9.0 / 5.0};
    m["InstanceNormalization"] = {Rule::BatchNorm, CostClass::Norm, 5, 9.0 / 5.0};
    m["LayerNormalization"] = {Rule::BatchNorm, CostClass::Norm, 8, 2};
    m["Softmax"] = {Rule::PerOutput, CostClass::Softmax, 5, 1};
    m["LogSoftmax"] = {Rule::PerOutput, CostClass::Softmax, 5, 1};
    m["SoftmaxCrossEntropyLoss"] = {Rule::PerInput, CostClass::Loss, 5, 2.0 / 5.0};
    m["NegativeLogLikelihoodLoss"] = {Rule::PerInput, CostClass::Loss, 1, 2};
    m["Gather"] = {Rule::Gather, CostClass::DataMovement, 0, 1};
    m["MatMul"] = {Rule::MatMul, CostClass::Matmul, 0, 1};
    m["Gemm"] = {Rule::Gemm, CostClass::Matmul, 0, 1};
    m["Conv"] = {Rule::Conv, CostClass::Convolution, 0, 1};
    // Recurrences: flops_per_element is the gates' element-wise operations per hidden unit and
    // step (ASSUMPTION, one per elementary operation as above): LSTM 17 (input + recurrent
    // product 4, bias 4, 3 sigmoids, 2 tanh, c = f c + i g 3, h = o tanh(c) 1), GRU 13 (sums
    // and biases 6, 2 sigmoids, r (h R) 1, tanh 1, h = (1 - z) n + z h 3), RNN 3 (sum, bias,
    // tanh); a backward of twice that, as for the non-linear element-wise ops.
    m["LSTM"] = {Rule::Recurrent, CostClass::Matmul, 17, 2};
    m["GRU"] = {Rule::Recurrent, CostClass::Matmul, 13, 2};
    m["RNN"] = {Rule::Recurrent, CostClass::Matmul, 3, 2};
    return m;
  }();
  return t;
}

std::int64_t product(const std::vector<std::int64_t>& d, std::size_t from, std::size_t to) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < to && i < d.size(); ++i) p *= d[i];
  return p;
}

/// Bytes of every named input and output.
std::uint64_t io_bytes(const Node& n, const Graph& g) {
  std::uint64_t b = 0;
  for (const auto* list : {&n.inputs, &n.outputs})
    for (const std::string& t : *list)
      if (!t.empty() && g.has_tensor(t)) b += g.tensor(t).bytes();
  return b;
}

double elements(const Graph& g, const std::string& t) {
  return t.empty() ? 0.0 : static_cast<double>(g.tensor(t).elements());
}

/// Inputs that are activations or trainable float tensors (not integer indices or shapes).
std::vector<int> float_inputs(const Node& n, const Graph& g) {
  std::vector<int> out;
  for (std::size_t i = 0; i < n.inputs.size(); ++i)
    if (!n.inputs[i].empty() && g.tensor(n.inputs[i]).is_float) out.push_back(static_cast<int>(i));
  return out;
}

GemmDims matmul_dims(const Node& n, const Graph& g) {
  const auto& a = g.tensor(n.inputs.at(0)).dims;
  const auto& b = g.tensor(n.inputs.at(1)).dims;
  const auto& y = g.tensor(n.outputs.at(0)).dims;
  if (a.empty() || b.empty()) throw std::invalid_argument("MatMul operands must not be scalars");
  GemmDims d;
  d.k = a.back();
  // numpy matmul: a 1-D operand is a row (A) or a column (B) vector, removed from the output.
  d.m = a.size() >= 2 ? a[a.size() - 2] : 1;
  d.n = b.size() >= 2 ? b.back() : 1;
  const std::size_t batch_rank = y.size() - (a.size() >= 2 ? 1 : 0) - (b.size() >= 2 ? 1 : 0);
  d.groups = product(y, 0, batch_rank);
  // A weight (2-D B) shared by every batch entry: one GEMM over all of them (m = batch x rows).
  if (b.size() <= 2) {
    d.m *= d.groups;
    d.groups = 1;
  }
  return d;
}

}  // namespace

std::string to_string(CostClass c) {
  switch (c) {
    case CostClass::Free:
      return "free";
    case CostClass::DataMovement:
      return "data_movement";
    case CostClass::Elementwise:
      return "elementwise";
    case CostClass::Norm:
      return "norm";
    case CostClass::Softmax:
      return "softmax";
    case CostClass::Matmul:
      return "matmul";
    case CostClass::Convolution:
      return "convolution";
    case CostClass::Embedding:
      return "embedding";
    case CostClass::Loss:
      return "loss";
  }
  return "?";
}

bool is_view(const std::string& op_type) {
  static const std::set<std::string> views = {"Reshape",  "Flatten",   "Squeeze", "Unsqueeze",
                                              "Identity", "Transpose", "Slice",   "Split"};
  return views.count(op_type) != 0;
}

bool is_supported(const std::string& op_type, const std::string& domain) {
  return (domain.empty() || domain == "ai.onnx") && table().count(op_type) != 0;
}

std::string supported_ops_text() {
  std::string s;
  for (const auto& [op, rule] : table()) s += (s.empty() ? "" : ", ") + op;
  return s;
}

NodeCost node_cost(const Node& n, const Graph& g) {
  NodeCost c;
  if (n.constant) return c;  // folded at compile time: free, no gradient
  const OpRule& r = table().at(n.op_type);
  c.cls = r.cls;
  c.backward_factor = r.backward_factor;
  c.differentiable_inputs = float_inputs(n, g);
  const std::string out = n.outputs.empty() ? "" : n.outputs[0];
  switch (r.rule) {
    case Rule::Free:
      c.differentiable_inputs.clear();
      return c;
    case Rule::Move:
      c.bytes = io_bytes(n, g);
      return c;
    case Rule::PerOutput:
      c.vector_flops = r.flops_per_element * elements(g, out);
      c.bytes = io_bytes(n, g);
      return c;
    case Rule::PerInput:
      c.vector_flops = r.flops_per_element * elements(g, n.inputs.at(0));
      c.bytes = io_bytes(n, g);
      return c;
    case Rule::Pool: {
      auto it = n.int_lists.find("kernel_shape");
      const double window = it == n.int_lists.end()
                                ? 1.0
                                : static_cast<double>(product(it->second, 0, it->second.size()));
      c.vector_flops = window * elements(g, out);
      c.bytes = io_bytes(n, g);
      return c;
    }
    case Rule::GlobalPool:
      c.vector_flops = elements(g, n.inputs.at(0)) + elements(g, out);
      c.bytes = io_bytes(n, g);
      return c;
    case Rule::BatchNorm: {
      // Reads x twice (statistics, then normalise) and writes y: 3 x the activation.
      const std::uint64_t x = g.tensor(n.inputs.at(0)).bytes();
      c.vector_flops = r.flops_per_element * elements(g, n.inputs.at(0));
      c.bytes = 3 * x;
      if (n.op_type == "BatchNormalization")
        c.differentiable_inputs = {0, 1, 2};  // not the running statistics
      return c;
    }
    case Rule::Gather: {
      c.differentiable_inputs = {0};
      c.bytes = 2 * g.tensor(out).bytes();
      // A lookup in a trainable table is an embedding (its backward scatter-adds into the table).
      if (g.tensor(n.inputs.at(0)).initializer && g.tensor(n.inputs.at(0)).is_float)
        c.cls = CostClass::Embedding;
      return c;
    }
    case Rule::MatMul:
      c.gemm = matmul_dims(n, g);
      c.differentiable_inputs = {0, 1};
      return c;
    case Rule::Gemm: {
      const auto& a = g.tensor(n.inputs.at(0)).dims;
      const auto& y = g.tensor(out).dims;
      if (a.size() != 2 || y.size() != 2) throw std::invalid_argument("Gemm operands must be 2-D");
      const bool trans_a = n.ints.count("transA") && n.ints.at("transA") != 0;
      c.gemm = {y[0], trans_a ? a[0] : a[1], y[1], 1};
      c.differentiable_inputs = float_inputs(n, g);
      if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
        c.vector_flops = elements(g, out);  // the bias add
        c.bytes = 2 * g.tensor(out).bytes() + g.tensor(n.inputs[2]).bytes();
      }
      return c;
    }
    case Rule::Conv: {
      const auto& w = g.tensor(n.inputs.at(1)).dims;
      const auto& y = g.tensor(out).dims;
      if (w.size() < 3 || y.size() != w.size())
        throw std::invalid_argument("Conv weight and output must be [N|M, C, spatial...]");
      const std::int64_t group =
          n.ints.count("group") ? std::max<std::int64_t>(1, n.ints.at("group")) : 1;
      // im2col view: m = batch x output pixels, k = Cin/group x kernel, n = Cout/group.
      c.gemm = {y[0] * product(y, 2, y.size()), product(w, 1, w.size()), w[0] / group, group};
      c.gemm.kernel_h = product(w, 2, w.size() - 1);
      c.gemm.kernel_w = w.back();
      if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
        c.vector_flops = elements(g, out);
        c.bytes = 2 * g.tensor(out).bytes() + g.tensor(n.inputs[2]).bytes();
      }
      return c;
    }
    case Rule::Recurrent: {
      // X [T, B, I] (layout 1: [B, T, I]), W [D, G H, I], R [D, G H, H]: G gates of H units
      // in D directions (run side by side: groups).
      const auto& x = g.tensor(n.inputs.at(0)).dims;
      const auto& w = g.tensor(n.inputs.at(1)).dims;
      const auto& rw = g.tensor(n.inputs.at(2)).dims;
      if (x.size() != 3 || w.size() != 3 || rw.size() != 3 || rw[2] <= 0)
        throw std::invalid_argument("X, W and R must be 3-D");
      const bool batch_first = n.ints.count("layout") && n.ints.at("layout") == 1;
      const std::int64_t steps = batch_first ? x[1] : x[0], batch = batch_first ? x[0] : x[1];
      const std::int64_t hidden = rw[2], dirs = w[0];
      c.gemm = {steps * batch, x[2], w[1], dirs};
      c.steps = steps;
      c.step_gemm = {batch, hidden, w[1], dirs};
      const double units = static_cast<double>(batch * hidden * dirs);
      c.step_vector_flops = r.flops_per_element * units;
      // Per step the gates read their pre-activations (G H per unit) and the states, and
      // write the new states: (G + 3) H values per sample and direction.
      c.step_bytes = static_cast<std::uint64_t>((w[1] / hidden + 3) * units) *
                     g.tensor(n.inputs.at(0)).elem_bytes;
      c.differentiable_inputs.clear();
      for (int k : {0, 1, 2, 3})
        if (static_cast<std::size_t>(k) < n.inputs.size() && !n.inputs[k].empty())
          c.differentiable_inputs.push_back(k);
      return c;
    }
  }
  return c;
}

std::set<std::string> trainable_weights(const Graph& g) {
  std::set<std::string> used;
  for (const Node& n : g.nodes) {
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      const std::string& t = n.inputs[i];
      if (t.empty() || !g.has_tensor(t)) continue;
      const TensorInfo& info = g.tensor(t);
      if (!info.initializer || !info.is_float || info.dims.empty()) continue;
      // BatchNormalization inputs 3 and 4 are the running mean and variance: state, not weights.
      if (!(n.op_type == "BatchNormalization" && i >= 3)) used.insert(t);
    }
  }
  return used;
}

}  // namespace ipusim::onnx_import
