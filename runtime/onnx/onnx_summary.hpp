#pragma once
// What `ipusim import` prints about an ONNX graph (plain C++): nodes, ops by type, trainable
// parameters, forward flops per sample, activation bytes and PopART annotations found.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/onnx/onnx_graph.hpp"

namespace ipusim::onnx_import {

/// How many nodes carry one PopART annotation, and the values they use.
struct AnnotationUse {
  std::size_t nodes = 0;
  std::map<int, std::size_t> nodes_by_value;
};

/// The graph summary. Flops count a multiply-add as 2; "per sample" divides by the batch
/// (the first dim of the first input).
struct Summary {
  std::size_t nodes = 0;
  std::map<std::string, std::size_t> ops_by_type;
  std::map<std::string, std::size_t> nodes_by_class;  ///< CostClass names
  std::uint64_t parameters = 0;                       ///< elements of the trainable weights
  std::size_t weight_tensors = 0;
  std::int64_t batch = 1;
  double forward_flops = 0, forward_flops_per_sample = 0;
  double amp_flops_per_sample = 0;     ///< the MatMul / Gemm / Conv GEMMs alone
  std::uint64_t activation_bytes = 0;  ///< outputs of every node that is not free, whole batch
  std::map<std::string, AnnotationUse> annotations;  ///< by attribute name
};

/// Summarises `graph` (every shape known); ConfigError naming the node whose shapes do not fit its
/// op.
Summary summarise(const Graph& graph);

}  // namespace ipusim::onnx_import
