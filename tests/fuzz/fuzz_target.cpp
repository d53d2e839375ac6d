// libFuzzer driver: IPUSIM_FUZZ_TARGET (config, cbr, sweep, graph, onnx) is compiled in.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ipusim::fuzz::IPUSIM_FUZZ_ENTRY(data, size);
}

// libsystemc.so (linked through ipusim::sim) defines main() and needs sc_main; libFuzzer's
// main() is the one linked into the executable, so this is never called.
extern "C" int sc_main(int, char**) { return 0; }
