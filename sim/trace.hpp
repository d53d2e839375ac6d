#pragma once
// Chrome / Perfetto trace-event writer (https://ui.perfetto.dev opens the result).
// One process per IPU (or per link tier), named threads per activity; complete ("X")
// events only, so begin/end are always balanced.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/json.hpp"

namespace ipusim {

/// Collects trace events in memory and writes trace.json. Disabled unless enabled().
class TraceWriter {
 public:
  /// The process-wide writer.
  static TraceWriter& instance();
  void enable(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  /// A complete event on track (`process`, `thread`) from start_ns lasting dur_ns.
  void complete(const std::string& process, const std::string& thread, const std::string& name,
                double start_ns, double dur_ns, const Json& args = Json());
  /// Number of events recorded so far.
  std::size_t size() const { return events_.size(); }
  /// Writes {"traceEvents": [...], "displayTimeUnit": "ns"} with metadata names.
  void write(const std::string& path) const;

 private:
  int pid_of(const std::string& process);
  int tid_of(int pid, const std::string& thread);
  bool enabled_ = false;
  std::map<std::string, int> pids_;
  std::map<std::pair<int, std::string>, int> tids_;
  std::vector<Json> events_;
};

}  // namespace ipusim
