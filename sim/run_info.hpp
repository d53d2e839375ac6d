#pragma once
// Facts that vary between runs of the same config (kept apart from the report body so
// that everything else is byte-identical): wall time, events, peak RSS, version, host.
#include <chrono>
#include <cstdint>

#include "sim/json.hpp"

namespace ipusim {

/// Count of model events handled (flow starts/ends, step activations); models bump it.
std::uint64_t& model_event_counter();

/// Peak resident set size of this process in MiB.
double peak_rss_MiB();

/// Measures wall time from construction; `to_json()` gives the run_info object.
class RunInfo {
 public:
  RunInfo();
  /// The run_info object; with `num_ipus` > 0 also `peak_rss_bytes_per_ipu` (memory per
  /// simulated IPU endpoint, how the simulator's footprint grows with the system).
  Json to_json(std::uint32_t num_ipus = 0) const;

 private:
  std::chrono::steady_clock::time_point start_;
};

/// The ipusim version string.
const char* ipusim_version();

/// The source revision of this build (`git describe --always --dirty` at configure time,
/// "unknown" when built outside a git checkout).
const char* ipusim_source_revision();

}  // namespace ipusim
