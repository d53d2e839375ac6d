#pragma once
// Guards before work (issue 15): a run first estimates the memory and the kernel events it
// will need and is refused (ConfigError, exit 2) when the estimate is above
// `/sim/max_memory_bytes` (default 80 % of the memory this process may use) or
// `/sim/max_events`, with the estimate and what to change, instead of running for hours or
// being killed by the kernel's OOM killer with nothing written. No Graphcore knowledge: the
// workloads make the estimates (runtime/workloads/training/work_estimate.hpp).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ipusim {

class ConfigNode;
struct SimOptions;

/// Default kernel-event limit (`/sim/max_events`): about an hour of wall time at the ~3 M
/// events/s measured for training and microbenchmark runs on the 2-core CI machine
/// (docs/speed.md). ASSUMPTION.
inline constexpr double kDefaultMaxEvents = 1e10;

/// The limits of one run.
struct ResourceLimits {
  double max_memory_bytes = 0;    ///< refuse runs estimated above this
  bool memory_is_default = true;  ///< true: 80 % of available_memory_bytes()
  double max_events = 0;          ///< refuse runs estimated above this many kernel events
};

/// What a run is estimated to need. Estimates are lower bounds of what the data structures
/// named in `memory_parts` take (counts × bytes per item, measured on the presets), so a
/// refusal never turns away a run that would have fitted.
struct WorkEstimate {
  std::vector<std::pair<std::string, double>> memory_parts;  ///< (what, bytes)
  double events = 0;                                         ///< kernel events (lower bound)
  std::string events_what;  ///< how the events were counted, e.g. "1e12 transfers x 2"
  std::string key;          ///< config key (relative to the node checked) that sizes the run
  std::string advice;       ///< what to change, e.g. "fewer layers"

  /// Sum of the memory parts in bytes.
  double memory_bytes() const;
};

/// Memory this process may still use, in bytes: MemAvailable of /proc/meminfo (else free
/// pages from sysconf), capped by RLIMIT_AS minus what the process already maps.
double available_memory_bytes();

/// Makes the limits of `/sim` (max_memory_bytes, max_events) the process-wide limits.
void read_resource_limits(const SimOptions& sim);

/// The process-wide limits (defaults until read_resource_limits() is called).
const ResourceLimits& resource_limits();
/// Replaces the process-wide limits (tests).
void set_resource_limits(const ResourceLimits& limits);

/// Throws ConfigError when `estimate` is above the process-wide limits; the message names
/// the file and JSON path of `node`/`estimate.key`, the estimate with its parts, the limit
/// and what to change.
void check_work_estimate(const WorkEstimate& estimate, const ConfigNode& node);

/// "1.50 GiB" style text for a byte count.
std::string format_bytes(double bytes);

}  // namespace ipusim
