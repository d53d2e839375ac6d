#pragma once
// The one entry point of the ONNX reading module (libipusim_onnx_reader.so, onnx_reader.cpp):
// its C name, looked up with dlsym by onnx_load.cpp, and its type. Both sides are built by the
// same compiler from the same headers, so the C++ arguments and exceptions (ipusim::ConfigError)
// cross the boundary unchanged.
#include <string>

#include "runtime/onnx/onnx_graph.hpp"

namespace ipusim::onnx_import {

/// The symbol name of the entry point in the module.
inline constexpr const char* kReaderEntryPoint = "ipusim_onnx_read_graph";

/// The module's file name (found next to the object that holds load_graph, in ../lib/ipusim
/// beside it, or at the build tree's path compiled in).
inline constexpr const char* kReaderModuleName = "libipusim_onnx_reader.so";

/// Reads `path` into `out` exactly as load_graph documents (throws ConfigError on bad input).
using ReadGraphFn = void (*)(const std::string& path, const InputShapes& input_shapes, Graph& out);

}  // namespace ipusim::onnx_import
