#pragma once
// An ONNX model as the simulator sees it (plain C++, no protobuf in this header): nodes with
// their op type, tensors, integer attributes and PopART placement annotations, every tensor's
// inferred shape. Read with onnx's own protobuf classes, checker and shape inference
// (onnx_reader.cpp, a module onnx_load.cpp opens on the first import); weights are never loaded,
// only the dims of initializers.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ipusim::onnx_import {

/// PopART's node attributes (popart/names.hpp: sVirtualGraphAttribute,
/// sPipelineStageAttribute, sExecutionPhaseAttribute).
inline constexpr const char* kVirtualGraphAttribute = "__ipu_number";
inline constexpr const char* kPipelineStageAttribute = "__pipeline_stage";
inline constexpr const char* kExecutionPhaseAttribute = "__execution_phase";

/// Shape and element type of one tensor (all dims known after import).
struct TensorInfo {
  std::vector<std::int64_t> dims;
  int elem_type = 0;             ///< onnx::TensorProto::DataType
  std::uint32_t elem_bytes = 0;  ///< bytes of one element (0 for strings)
  bool is_float = false;         ///< FLOAT, FLOAT16, BFLOAT16 or DOUBLE
  bool initializer = false;      ///< an initializer (weight or constant)
  std::uint64_t elements() const;
  std::uint64_t bytes() const { return elements() * elem_bytes; }
};

/// One node of the graph, with the attributes the cost model reads.
struct Node {
  std::string name;  ///< the node's name, or "#<index> <op_type>" when it has none
  std::string op_type, domain;
  std::vector<std::string> inputs, outputs;  ///< "" = an omitted optional input
  std::map<std::string, std::int64_t> ints;
  std::map<std::string, std::vector<std::int64_t>> int_lists;
  int ipu = -1, pipeline_stage = -1, execution_phase = -1;  ///< PopART annotations (-1 = none)
  /// Its output is a compile-time constant (shape arithmetic on static shapes and constants),
  /// folded as PopART's ConstExpr ops fold it (popart willow/src/ces/): free, not an op.
  bool constant = false;
};

/// The main graph after shape inference.
struct Graph {
  std::string path;
  std::vector<Node> nodes;  ///< in the file's (topological) order
  std::map<std::string, TensorInfo> tensors;
  std::vector<std::string> inputs;  ///< graph inputs that are not initializers, in order
  std::vector<std::string> outputs;
  std::vector<std::string> initializers;
  std::int64_t opset = 0;  ///< default-domain opset
  /// Samples per run of the graph: the first dim of the first input (1 for a scalar input).
  std::int64_t batch = 1;
  const TensorInfo& tensor(const std::string& name) const;
  bool has_tensor(const std::string& name) const { return tensors.count(name) != 0; }
};

/// Shapes given for graph inputs (PopART's InputShapeInfo, `--input-shape NAME=D0,D1,...`).
using InputShapes = std::map<std::string, std::vector<std::int64_t>>;

/// Reads `path`: parses the ModelProto, refuses op types the simulator does not model, runs
/// onnx's checker and shape inference with `input_shapes` fixing symbolic dims, and checks that
/// every tensor's shape is known. Throws ipusim::ConfigError naming the file, and the node or
/// the input at fault (a missing input shape names the `--input-shape` to give).
Graph load_graph(const std::string& path, const InputShapes& input_shapes);

/// Parses "NAME=D0,D1,..." (ConfigError naming `flag` otherwise) into `shapes`.
void parse_input_shape(const std::string& text, const std::string& flag, InputShapes& shapes);

}  // namespace ipusim::onnx_import
