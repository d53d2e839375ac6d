#include "runtime/ir/ir_model.hpp"

#include <stdexcept>

namespace ipusim::rt {

std::uint32_t dtype_bytes(DType t) { return t == DType::Float16 ? 2u : 4u; }
std::string to_string(DType t) { return t == DType::Float16 ? "float16" : "float32"; }
DType parse_ir_dtype(const std::string& s) {
  if (s == "float16") return DType::Float16;
  if (s == "float32") return DType::Float32;
  throw std::invalid_argument("expected float16 or float32, got '" + s + "'");
}

std::string to_string(TensorKind k) {
  switch (k) {
    case TensorKind::Weight:
      return "weight";
    case TensorKind::Activation:
      return "activation";
    case TensorKind::Gradient:
      return "gradient";
    case TensorKind::OptimizerState:
      return "optimizer_state";
    case TensorKind::Accumulator:
      return "accumulator";
  }
  return "?";
}

TensorKind parse_tensor_kind(const std::string& s) {
  for (TensorKind k : {TensorKind::Weight, TensorKind::Activation, TensorKind::Gradient,
                       TensorKind::OptimizerState, TensorKind::Accumulator}) {
    if (to_string(k) == s) return k;
  }
  throw std::invalid_argument(
      "expected weight, activation, gradient, optimizer_state or accumulator, got '" + s + "'");
}

std::string to_string(OpClass c) {
  switch (c) {
    case OpClass::Matmul:
      return "matmul";
    case OpClass::Convolution:
      return "convolution";
    case OpClass::Norm:
      return "norm";
    case OpClass::Softmax:
      return "softmax";
    case OpClass::Elementwise:
      return "elementwise";
    case OpClass::Embedding:
      return "embedding";
    case OpClass::Optimizer:
      return "optimizer";
    case OpClass::Loss:
      return "loss";
  }
  return "?";
}

OpClass parse_op_class(const std::string& s) {
  for (OpClass c : {OpClass::Matmul, OpClass::Convolution, OpClass::Norm, OpClass::Softmax,
                    OpClass::Elementwise, OpClass::Embedding, OpClass::Optimizer, OpClass::Loss}) {
    if (to_string(c) == s) return c;
  }
  throw std::invalid_argument(
      "expected matmul, convolution, norm, softmax, elementwise, embedding, optimizer or loss, got "
      "'" +
      s + "'");
}

std::string to_string(Pass p) {
  return p == Pass::Forward ? "forward" : (p == Pass::Backward ? "backward" : "optimizer");
}

std::string to_string(OpType t) {
  switch (t) {
    case OpType::Compute:
      return "compute";
    case OpType::Collective:
      return "collective";
    case OpType::RemoteLoad:
      return "remote_load";
    case OpType::RemoteStore:
      return "remote_store";
    case OpType::HostLoad:
      return "host_load";
    case OpType::HostStore:
      return "host_store";
  }
  return "?";
}

std::uint64_t Tensor::elements() const {
  std::uint64_t n = 1;
  for (std::int64_t d : shape) n *= static_cast<std::uint64_t>(d);
  return n;
}

void Model::add_tensor(Tensor t) {
  if (index_.count(t.name)) throw std::invalid_argument("tensor '" + t.name + "' is defined twice");
  index_[t.name] = tensors.size();
  tensors.push_back(std::move(t));
}

const Tensor& Model::tensor(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) throw std::invalid_argument("unknown tensor '" + name + "'");
  return tensors[it->second];
}

Tensor& Model::tensor(const std::string& name) {
  auto it = index_.find(name);
  if (it == index_.end()) throw std::invalid_argument("unknown tensor '" + name + "'");
  return tensors[it->second];
}

}  // namespace ipusim::rt
