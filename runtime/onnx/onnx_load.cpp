// load_graph: opens the ONNX reading module (libipusim_onnx_reader.so) on the first import and
// calls it. libonnx, libonnx_proto and libprotobuf are needed only by that module, so a process
// that reads no ONNX model (every `run` of a JSON workload, `collective`, `validate`'s children)
// neither relocates their ~10 000 symbols nor runs protobuf's descriptor registration at load:
// callgrind of `ipusim --version`, 19.4 M instructions with them linked in (main 574bacd).
#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/onnx/onnx_graph.hpp"
#include "runtime/onnx/onnx_reader.hpp"

namespace ipusim::onnx_import {
namespace {

/// Where the module may be, in order: beside the executable or shared object that holds this
/// code (the build tree puts the module beside tools/ipusim), in ../lib/ipusim relative to it (the
/// `bin/` + `lib/ipusim/` install layout), and the build tree's own path (unit tests and tools run
/// from elsewhere in the build tree).
std::vector<std::string> candidate_paths() {
  std::vector<std::string> paths;
  std::vector<std::filesystem::path> dirs;
  std::error_code ec;
  // dladdr names the main program by its argv[0] (maybe relative, or found on PATH): for the
  // executable /proc/self/exe is the reliable name; dladdr adds a shared object holding this code.
  const std::filesystem::path exe = std::filesystem::canonical("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path());
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&candidate_paths), &info) != 0 && info.dli_fname &&
      info.dli_fname[0] == '/') {
    const std::filesystem::path self = std::filesystem::canonical(info.dli_fname, ec);
    if (!ec && (dirs.empty() || self.parent_path() != dirs.front()))
      dirs.push_back(self.parent_path());
  }
  for (const auto& d : dirs) {
    paths.push_back((d / kReaderModuleName).string());
    paths.push_back((d / ".." / "lib" / "ipusim" / kReaderModuleName).string());
  }
  paths.push_back(IPUSIM_ONNX_READER_BUILD_PATH);
  return paths;
}

/// Opens the module once per process (thread-safe) and returns its entry point.
ReadGraphFn reader() {
  static std::once_flag once;
  static ReadGraphFn fn = nullptr;
  static std::string error;
  std::call_once(once, [] {
    for (const std::string& p : candidate_paths()) {
      if (!std::filesystem::exists(p)) {
        error += "\n  " + p + ": absent";
        continue;
      }
      void* handle = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        error += "\n  " + p + ": " + dlerror();
        continue;
      }
      fn = reinterpret_cast<ReadGraphFn>(dlsym(handle, kReaderEntryPoint));
      if (fn) return;
      error += "\n  " + p + ": no symbol " + kReaderEntryPoint;
    }
  });
  if (!fn)
    throw std::runtime_error(std::string("ONNX import needs ") + kReaderModuleName +
                             " (the simulator's installation is incomplete); tried:" + error);
  return fn;
}

}  // namespace

Graph load_graph(const std::string& path, const InputShapes& input_shapes) {
  Graph g;
  reader()(path, input_shapes, g);
  return g;
}

}  // namespace ipusim::onnx_import
