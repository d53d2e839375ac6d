#pragma once
// Internal to runtime/workloads/microbenchmark/: one step as parsed and played, and the step-kind
// helpers that playing (microbenchmark.cpp) and reporting (microbenchmark_report.cpp) share.
#include <cstdint>
#include <string>
#include <vector>

#include "models/system/host_stream.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark.hpp"

namespace ipusim {

/// One step of `/workload/steps` (or of a concurrent group): what it does and, after the run,
/// when it ran and what it moved.
struct Microbenchmark::Step {
  Kind kind = Kind::Transfer;
  std::string name;
  std::uint64_t repeat = 1;
  std::uint32_t src = 0, dst = 0, ipu = 0;
  TransferRequest req;  ///< route and bytes of network steps
  LinkTier tier = LinkTier::Local;
  std::string buffer;
  ExchangeSpec exchange;
  ComputeSpec compute;
  std::vector<std::uint32_t> sync_ipus;
  std::vector<Step> children;
  // tile_transfer and host_buffer_* steps.
  std::uint32_t tiles = 0;
  std::uint64_t bytes_per_tile = 0;  ///< tile_transfer: per tile; host_buffer_*: per transfer
  bool bidirectional = false;
  HostStreamTiming host;
  // Results.
  double start_ns = 0, end_ns = 0;
  std::uint64_t moved_bytes = 0;
  std::uint64_t cycles = 0;
  std::uint64_t done = 0;
};

namespace mb {

/// The `kind` name of a step kind ("transfer", "exchange", ...).
const char* kind_name(Microbenchmark::Kind k);
/// True for the steps that are network transfers (the network times them).
bool is_network(Microbenchmark::Kind k);
/// Breakdown category of a leaf step.
std::string category(Microbenchmark::Kind k, LinkTier tier);

}  // namespace mb
}  // namespace ipusim
