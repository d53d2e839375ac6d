// The plain C++ parts of an imported ONNX graph (no protobuf here): tensor sizes, lookups and
// the `--input-shape` parser. Reading a file is onnx_reader.cpp, opened by onnx_load.cpp.
#include "runtime/onnx/onnx_graph.hpp"

#include <sstream>
#include <stdexcept>

#include "sim/errors.hpp"

namespace ipusim::onnx_import {

std::uint64_t TensorInfo::elements() const {
  std::uint64_t n = 1;
  for (std::int64_t d : dims) n *= static_cast<std::uint64_t>(d);
  return n;
}

const TensorInfo& Graph::tensor(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end()) throw std::invalid_argument(path + ": unknown tensor '" + name + "'");
  return it->second;
}

void parse_input_shape(const std::string& text, const std::string& flag, InputShapes& shapes) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw ConfigError(flag + " " + text + ": expected NAME=D0,D1,... (positive dimensions)");
  std::vector<std::int64_t> dims;
  std::stringstream ss(text.substr(eq + 1));
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || v <= 0)
      throw ConfigError(flag + " " + text + ": dimension '" + item + "' is not a positive integer");
    dims.push_back(v);
  }
  // A second, different shape for one input would silently replace the first.
  const auto [it, fresh] = shapes.emplace(text.substr(0, eq), dims);
  if (!fresh && it->second != dims)
    throw ConfigError(flag + " " + text + ": input '" + it->first +
                      "' is already given another shape (one " + flag + " per input)");
}

}  // namespace ipusim::onnx_import
