#include <unistd.h>

#include <cstdio>
#include <string>

#include "runtime/generators/model_gen_onnx.hpp"
#include "runtime/onnx/onnx_summary.hpp"
#include "sim/errors.hpp"
#include "tests/fuzz/fuzz_entries.hpp"

// The ONNX importer entry lives apart: it needs ipusim::runtime (and through it libonnx).
namespace ipusim::fuzz {

int fuzz_onnx(const std::uint8_t* data, std::size_t size) {
  // load_graph reads a file, as the CLI does: the input goes to a private temporary file.
  char path[] = "/tmp/ipusim_fuzz_onnx_XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) return 0;
  const bool written = ::write(fd, data, size) == static_cast<ssize_t>(size);
  ::close(fd);
  try {
    if (written) {
      const onnx_import::Graph g = onnx_import::load_graph(path, {});
      (void)onnx_import::summarise(g);
      rt::OnnxSpec spec;
      spec.training = !g.outputs.empty();
      if (spec.training) spec.loss = g.outputs.back();
      (void)rt::generate_onnx(g, spec);
    }
  } catch (const ConfigError&) {
  }
  std::remove(path);
  return 0;
}

}  // namespace ipusim::fuzz
