#pragma once
// The fuzzed entry points, shared by the libFuzzer targets (tests/fuzz/fuzz_target.cpp,
// built only with -DIPUSIM_FUZZ=ON) and by the corpus replay test (a normal CTest), so that
// every input in tests/fuzz/corpus/ keeps running through exactly the same code in CI.
// Each entry returns normally for accepted input and for bad input rejected with a
// ConfigError (exit 2 in the CLI); anything else (another exception, a sanitizer report,
// a crash) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

namespace ipusim::fuzz {

/// Config loader with `$include`s and `--set`: the input is split at NUL bytes into the
/// main config, up to three included files (a.json, b.json, c.json, in a private folder)
/// and a final part of newline-separated `--set` assignments.
int fuzz_config(const std::uint8_t* data, std::size_t size);

/// `ipusim cbr`: byte 0 = replicas - 1 (mod 64), byte 1 = grain - 1 (mod 8), the rest is
/// the tile mapping JSON; parsed, size-checked and, when small enough, laid out.
int fuzz_cbr(const std::uint8_t* data, std::size_t size);

/// The sweep spec: parsed, counted and (up to 256 points) expanded.
int fuzz_sweep(const std::uint8_t* data, std::size_t size);

/// The explicit training-graph reader: the input is `/workload/model` (tensors and ops).
int fuzz_graph(const std::uint8_t* data, std::size_t size);

/// The ONNX importer: the input is an ONNX file (ModelProto bytes), imported with no input
/// shapes, summarised and built into a model (training on its last output when it has one).
int fuzz_onnx(const std::uint8_t* data, std::size_t size);

/// The signature of every entry point (libFuzzer's LLVMFuzzerTestOneInput).
using Entry = int (*)(const std::uint8_t*, std::size_t);

}  // namespace ipusim::fuzz
