// Shape inference alternated with folding of shape arithmetic (onnx_fold.hpp). The values
// folded are small integer tensors (shapes, indices, sizes): ONNX semantics of each op type
// as the operator docs give them, on rank-0 and rank-1 data, with scalar or equal-shape
// operands for the arithmetic; anything else is left to onnx's inference.
#include "runtime/onnx/onnx_fold.hpp"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ipusim::onnx_import {
namespace {

using onnx::TensorProto;
using Dims = std::vector<std::int64_t>;

/// Shapes and indices have few elements; a larger tensor is data, not worth folding.
constexpr std::int64_t kMaxElements = 4096;

/// An integer-valued tensor (floats only when every value is integral).
struct Value {
  Dims dims;
  std::vector<std::int64_t> data;
  int type = TensorProto::INT64;
};

/// Elements of a shape; -1 for a negative dim, kMaxElements + 1 once past kMaxElements (an
/// adversarial file's dims never overflow).
std::int64_t count(const Dims& d) {
  std::int64_t n = 1;
  for (std::int64_t x : d) {
    if (x < 0) return -1;
    if (x != 0 && n > kMaxElements / x) return kMaxElements + 1;
    n *= x;
  }
  return n;
}

bool is_int(int t) {
  return t == TensorProto::INT64 || t == TensorProto::INT32 || t == TensorProto::INT16 ||
         t == TensorProto::INT8 || t == TensorProto::UINT8 || t == TensorProto::UINT16 ||
         t == TensorProto::BOOL;
}
bool foldable_type(int t) {
  return is_int(t) || t == TensorProto::FLOAT || t == TensorProto::DOUBLE;
}

template <typename T>
bool raw(const TensorProto& t, std::int64_t n, std::vector<std::int64_t>& out) {
  if (t.raw_data().size() != static_cast<std::size_t>(n) * sizeof(T)) return false;
  for (std::int64_t i = 0; i < n; ++i) {
    T x;
    std::memcpy(&x, t.raw_data().data() + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
    const double d = static_cast<double>(x);
    if (d != std::floor(d) || std::abs(d) > 1e15) return false;  // integral, and fits int64
    out.push_back(static_cast<std::int64_t>(x));
  }
  return true;
}

/// A tensor's values, if embedded, small, of an integer (or integral float) type.
std::optional<Value> from_tensor(const TensorProto& t) {
  Value v{{t.dims().begin(), t.dims().end()}, {}, t.data_type()};
  const std::int64_t n = count(v.dims);
  if (t.data_location() == TensorProto::EXTERNAL || n < 0 || n > kMaxElements ||
      !foldable_type(v.type))
    return std::nullopt;
  bool ok = true;
  if (!t.raw_data().empty()) {
    switch (v.type) {
      case TensorProto::INT64:
        ok = raw<std::int64_t>(t, n, v.data);
        break;
      case TensorProto::INT32:
        ok = raw<std::int32_t>(t, n, v.data);
        break;
      case TensorProto::FLOAT:
        ok = raw<float>(t, n, v.data);
        break;
      case TensorProto::DOUBLE:
        ok = raw<double>(t, n, v.data);
        break;
      default:
        ok = v.type == TensorProto::INT16 || v.type == TensorProto::UINT16
                 ? raw<std::int16_t>(t, n, v.data)
                 : raw<std::uint8_t>(t, n, v.data);
    }
  } else if (v.type == TensorProto::INT64) {
    v.data.assign(t.int64_data().begin(), t.int64_data().end());
  } else if (v.type == TensorProto::FLOAT || v.type == TensorProto::DOUBLE) {
    std::vector<double> xs(t.float_data().begin(), t.float_data().end());
    xs.insert(xs.end(), t.double_data().begin(), t.double_data().end());
    for (double x : xs) {
      ok = ok && x == std::floor(x) && std::abs(x) < 1e15;
      v.data.push_back(static_cast<std::int64_t>(x));
    }
  } else {
    v.data.assign(t.int32_data().begin(), t.int32_data().end());
  }
  if (!ok || static_cast<std::int64_t>(v.data.size()) != n) return std::nullopt;
  return v;
}

TensorProto to_tensor(const Value& v) {
  TensorProto t;
  t.set_data_type(v.type);
  for (std::int64_t d : v.dims) t.add_dims(d);
  for (std::int64_t x : v.data) {
    if (v.type == TensorProto::INT64)
      t.add_int64_data(x);
    else if (v.type == TensorProto::FLOAT)
      t.add_float_data(static_cast<float>(x));
    else if (v.type == TensorProto::DOUBLE)
      t.add_double_data(static_cast<double>(x));
    else
      t.add_int32_data(static_cast<std::int32_t>(x));
  }
  return t;
}

const onnx::AttributeProto* attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
std::int64_t int_attr(const onnx::NodeProto& n, const char* name, std::int64_t def) {
  const auto* a = attr(n, name);
  return a ? a->i() : def;
}
/// An INTS attribute, or else the values of input `input` (opset 13 moved axes to inputs).
std::optional<Dims> ints(const onnx::NodeProto& n, const char* name,
                         const std::vector<const Value*>& in, std::size_t input) {
  if (const auto* a = attr(n, name)) return Dims(a->ints().begin(), a->ints().end());
  if (input < in.size() && in[input]) return in[input]->data;
  return std::nullopt;
}

std::int64_t norm_axis(std::int64_t axis, std::int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// Element-wise over operands of equal shape or a single element (numpy broadcasting's cases
/// that shape arithmetic uses).
template <typename F>
std::optional<Value> elementwise(const std::vector<const Value*>& in, std::size_t arity, int type,
                                 F f) {
  if (in.empty() || (arity > 0 && in.size() != arity)) return std::nullopt;
  const Value* big = nullptr;
  for (const Value* v : in) {
    if (!v) return std::nullopt;
    if (!big || v->data.size() > big->data.size()) big = v;
  }
  for (const Value* v : in)
    if (v->data.size() != 1 && v->dims != big->dims) return std::nullopt;
  Value out{big->dims, {}, type};
  for (std::size_t i = 0; i < big->data.size(); ++i) {
    std::vector<std::int64_t> xs;
    for (const Value* v : in) xs.push_back(v->data[v->data.size() == 1 ? 0 : i]);
    const auto r = f(xs);
    if (!r) return std::nullopt;
    out.data.push_back(*r);
  }
  return out;
}

std::optional<Value> slice(const onnx::NodeProto& n, const std::vector<const Value*>& in) {
  if (!in[0] || in[0]->dims.size() != 1) return std::nullopt;
  const auto starts = ints(n, "starts", in, 1), ends = ints(n, "ends", in, 2);
  const auto axes = ints(n, "axes", in, 3), steps = ints(n, "steps", in, 4);
  if (!starts || !ends || starts->size() != 1 || ends->size() != 1) return std::nullopt;
  if ((axes && (axes->size() != 1 || norm_axis((*axes)[0], 1) != 0)) ||
      (steps && steps->size() != 1))
    return std::nullopt;
  const std::int64_t dim = in[0]->dims[0], step = steps ? (*steps)[0] : 1;
  if (step == 0 || dim == 0) return std::nullopt;
  auto clampi = [&](std::int64_t x, std::int64_t lo, std::int64_t hi) {
    return std::clamp(x < 0 ? x + dim : x, lo, hi);
  };
  std::int64_t b = step > 0 ? clampi((*starts)[0], 0, dim) : clampi((*starts)[0], 0, dim - 1);
  const std::int64_t e = step > 0 ? clampi((*ends)[0], 0, dim) : clampi((*ends)[0], -1, dim - 1);
  Value out{{0}, {}, in[0]->type};
  for (; step > 0 ? b < e : b > e; b += step) out.data.push_back(in[0]->data[b]);
  out.dims[0] = static_cast<std::int64_t>(out.data.size());
  return out;
}

std::optional<Value> reshape(const std::vector<const Value*>& in) {
  if (in.size() < 2 || !in[0] || !in[1]) return std::nullopt;
  Dims d = in[1]->data;
  std::int64_t known = 1, infer = -1;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i] == 0 && i < in[0]->dims.size()) d[i] = in[0]->dims[i];
    if (d[i] < -1 || d[i] > kMaxElements) return std::nullopt;
    if (d[i] == -1)
      infer = static_cast<std::int64_t>(i);
    else
      known *= d[i];
  }
  const std::int64_t total = static_cast<std::int64_t>(in[0]->data.size());
  if (infer >= 0 && known > 0) d[static_cast<std::size_t>(infer)] = total / known;
  if (count(d) != total) return std::nullopt;
  return Value{d, in[0]->data, in[0]->type};
}

/// The value of node `n`'s single output, if it is a small integer tensor computable from the
/// known values `in` (nullptr = unknown or omitted) and the known shapes of its inputs.
std::optional<Value> eval(const onnx::NodeProto& n, const std::vector<const Value*>& in,
                          const std::map<std::string, Dims>& shapes) {
  const std::string& op = n.op_type();
  auto first = [&]() -> const Value* { return in.empty() ? nullptr : in[0]; };
  if (op == "Constant") {
    if (const auto* a = attr(n, "value")) return from_tensor(a->t());
    if (const auto* a = attr(n, "value_int")) return Value{{}, {a->i()}, TensorProto::INT64};
    if (const auto* a = attr(n, "value_ints"))
      return Value{{a->ints_size()}, {a->ints().begin(), a->ints().end()}, TensorProto::INT64};
    return std::nullopt;
  }
  if (op == "Shape" || op == "Size") {
    if (n.input_size() < 1) return std::nullopt;
    auto it = shapes.find(n.input(0));
    if (it == shapes.end()) return std::nullopt;
    const Dims& d = it->second;
    const auto rank = static_cast<std::int64_t>(d.size());
    if (op == "Size") {  // the true element count (count() saturates at kMaxElements)
      std::int64_t size = 1;
      for (std::int64_t x : d)
        if (__builtin_mul_overflow(size, x, &size)) return std::nullopt;
      return Value{{}, {size}, TensorProto::INT64};
    }
    const std::int64_t b =
        std::clamp(norm_axis(int_attr(n, "start", 0), rank), std::int64_t{0}, rank);
    const std::int64_t e = std::clamp(norm_axis(int_attr(n, "end", rank), rank), b, rank);
    return Value{{e - b}, Dims(d.begin() + b, d.begin() + e), TensorProto::INT64};
  }
  if (op == "Identity") return first() ? std::optional<Value>(*first()) : std::nullopt;
  if (op == "Gather") {
    if (in.size() < 2 || !in[0] || !in[1] || in[0]->dims.size() != 1) return std::nullopt;
    Value out{in[1]->dims, {}, in[0]->type};
    for (std::int64_t i : in[1]->data) {
      const std::int64_t j = norm_axis(i, in[0]->dims[0]);
      if (j < 0 || j >= in[0]->dims[0]) return std::nullopt;
      out.data.push_back(in[0]->data[static_cast<std::size_t>(j)]);
    }
    return out;
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    const auto axes = ints(n, "axes", in, 1);
    if (!first() || (op == "Unsqueeze" && !axes)) return std::nullopt;
    Value out = *first();
    const auto rank = static_cast<std::int64_t>(out.dims.size());
    if (op == "Unsqueeze") {
      Dims a = *axes;
      for (auto& x : a) x = norm_axis(x, rank + static_cast<std::int64_t>(a.size()));
      std::sort(a.begin(), a.end());
      for (std::int64_t x : a)
        if (x < 0 || x > static_cast<std::int64_t>(out.dims.size()))
          return std::nullopt;
        else
          out.dims.insert(out.dims.begin() + x, 1);
      return out;
    }
    Dims kept;
    for (std::int64_t i = 0; i < rank; ++i) {
      const bool listed = axes && std::any_of(axes->begin(), axes->end(), [&](std::int64_t x) {
                            return norm_axis(x, rank) == i;
                          });
      if (!(axes ? listed : out.dims[static_cast<std::size_t>(i)] == 1))
        kept.push_back(out.dims[static_cast<std::size_t>(i)]);
    }
    out.dims = kept;
    return out;
  }
  if (op == "Concat") {
    Value out{{0}, {}, TensorProto::INT64};
    for (const Value* v : in) {
      if (!v || v->dims.size() != 1) return std::nullopt;
      out.type = v->type;
      out.data.insert(out.data.end(), v->data.begin(), v->data.end());
    }
    out.dims[0] = static_cast<std::int64_t>(out.data.size());
    return out;
  }
  if (op == "Slice") return slice(n, in);
  if (op == "Reshape") return reshape(in);
  if (op == "Cast") {
    const int to = static_cast<int>(int_attr(n, "to", 0));
    if (!first() || !foldable_type(to)) return std::nullopt;
    Value out = *first();
    out.type = to;
    if (to == TensorProto::BOOL)
      for (auto& x : out.data) x = x != 0;
    return out;
  }
  if (op == "ConstantOfShape") {
    const std::int64_t elements = first() ? count(first()->data) : -1;
    if (elements < 0 || elements > kMaxElements) return std::nullopt;
    Value fill{{}, {0}, TensorProto::FLOAT};
    if (const auto* a = attr(n, "value")) {
      const auto v = from_tensor(a->t());
      if (!v || v->data.size() != 1) return std::nullopt;
      fill = *v;
    }
    return Value{first()->data,
                 std::vector<std::int64_t>(static_cast<std::size_t>(elements), fill.data[0]),
                 fill.type};
  }
  if (op == "Range") {
    for (const Value* v : in)
      if (!v || v->data.size() != 1) return std::nullopt;
    if (in.size() != 3 || in[2]->data[0] == 0) return std::nullopt;
    const std::int64_t s = in[0]->data[0], l = in[1]->data[0], d = in[2]->data[0];
    Value out{{0}, {}, in[0]->type};
    std::int64_t x = s;
    while (d > 0 ? x < l : x > l) {
      if (static_cast<std::int64_t>(out.data.size()) >= kMaxElements) return std::nullopt;
      out.data.push_back(x);
      if (__builtin_add_overflow(x, d, &x)) break;
    }
    out.dims[0] = static_cast<std::int64_t>(out.data.size());
    return out;
  }
  using R = std::optional<std::int64_t>;
  const int type = first() ? first()->type : TensorProto::INT64;
  // Integer arithmetic; an overflow (a hostile file) is left unfolded.
  if (op == "Add")
    return elementwise(in, 2, type, [](auto& x) -> R {
      std::int64_t r = 0;
      return __builtin_add_overflow(x[0], x[1], &r) ? R{} : R{r};
    });
  if (op == "Sub")
    return elementwise(in, 2, type, [](auto& x) -> R {
      std::int64_t r = 0;
      return __builtin_sub_overflow(x[0], x[1], &r) ? R{} : R{r};
    });
  if (op == "Mul")
    return elementwise(in, 2, type, [](auto& x) -> R {
      std::int64_t r = 0;
      return __builtin_mul_overflow(x[0], x[1], &r) ? R{} : R{r};
    });
  if (op == "Div")  // integer division truncates; a float quotient must stay integral
    return elementwise(in, 2, type, [type](auto& x) -> R {
      if (x[1] == 0 || (x[1] == -1 && x[0] == INT64_MIN) || (!is_int(type) && x[0] % x[1] != 0))
        return std::nullopt;
      return x[0] / x[1];
    });
  if (op == "Neg" || op == "Abs")
    return elementwise(in, 1, type, [&op](auto& x) -> R {
      if (x[0] == INT64_MIN) return std::nullopt;
      return op == "Neg" || x[0] < 0 ? -x[0] : x[0];
    });
  if (op == "Max")
    return elementwise(in, 0, type,
                       [](auto& x) -> R { return *std::max_element(x.begin(), x.end()); });
  if (op == "Min")
    return elementwise(in, 0, type,
                       [](auto& x) -> R { return *std::min_element(x.begin(), x.end()); });
  if (op == "Equal")
    return elementwise(in, 2, TensorProto::BOOL, [](auto& x) -> R { return x[0] == x[1]; });
  if (op == "Less")
    return elementwise(in, 2, TensorProto::BOOL, [](auto& x) -> R { return x[0] < x[1]; });
  if (op == "Greater")
    return elementwise(in, 2, TensorProto::BOOL, [](auto& x) -> R { return x[0] > x[1]; });
  if (op == "Where" && in.size() == 3 && in[1])
    return elementwise(in, 3, in[1]->type, [](auto& x) -> R { return x[0] ? x[1] : x[2]; });
  return std::nullopt;
}

/// Dims of every tensor whose shape is fully known: inputs, initializers, inferred values.
std::map<std::string, Dims> known_shapes(const onnx::GraphProto& g) {
  std::map<std::string, Dims> out;
  for (const auto& t : g.initializer()) out[t.name()] = Dims(t.dims().begin(), t.dims().end());
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
    for (const auto& v : *list) {
      if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
      Dims d;
      bool all = true;
      for (const auto& x : v.type().tensor_type().shape().dim()) {
        all = all && x.has_dim_value() && x.dim_value() >= 0;
        d.push_back(x.dim_value());
      }
      if (all) out[v.name()] = d;
    }
  return out;
}

}  // namespace

onnx::ModelProto infer_shapes_folding(const onnx::ModelProto& model) {
  onnx::ModelProto m = model;
  const onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/1,
                                            /*enable_data_propagation=*/true);
  // Each round folds what the shapes known so far allow; a chain that needs a shape the
  // previous fold made inferable takes one more round (a transformer: about one per layer).
  for (int round = 0; round < 1000; ++round) {
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), options);
    const auto shapes = known_shapes(m.graph());
    std::map<std::string, Value> values;
    for (const auto& t : m.graph().initializer())
      if (auto v = from_tensor(t)) values[t.name()] = *v;
    bool folded = false;
    for (auto& node : *m.mutable_graph()->mutable_node()) {
      if (node.output_size() != 1 || !(node.domain().empty() || node.domain() == "ai.onnx"))
        continue;
      std::vector<const Value*> in;
      for (const auto& name : node.input()) {
        auto it = values.find(name);
        in.push_back(it == values.end() ? nullptr : &it->second);
      }
      const auto v = eval(node, in, shapes);
      if (!v || count(v->dims) > kMaxElements ||
          count(v->dims) != static_cast<std::int64_t>(v->data.size()))
        continue;
      values[node.output(0)] = *v;
      if (node.op_type() == "Constant") continue;
      onnx::NodeProto c;
      c.set_name(node.name());
      c.set_op_type("Constant");
      c.add_output(node.output(0));
      auto* a = c.add_attribute();
      a->set_name("value");
      a->set_type(onnx::AttributeProto::TENSOR);
      *a->mutable_t() = to_tensor(*v);
      node = c;
      folded = true;
    }
    if (!folded) break;
  }
  return m;
}

}  // namespace ipusim::onnx_import
