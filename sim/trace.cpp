#include "sim/trace.hpp"

#include <fstream>

#include "sim/errors.hpp"
#include "sim/output_file.hpp"

namespace ipusim {

TraceWriter& TraceWriter::instance() {
  static TraceWriter writer;
  return writer;
}

int TraceWriter::pid_of(const std::string& process) {
  auto it = pids_.find(process);
  if (it != pids_.end()) return it->second;
  const int pid = static_cast<int>(pids_.size()) + 1;
  pids_[process] = pid;
  return pid;
}

int TraceWriter::tid_of(int pid, const std::string& thread) {
  const auto key = std::make_pair(pid, thread);
  auto it = tids_.find(key);
  if (it != tids_.end()) return it->second;
  const int tid = static_cast<int>(tids_.size()) + 1;
  tids_[key] = tid;
  return tid;
}

void TraceWriter::complete(const std::string& process, const std::string& thread,
                           const std::string& name, double start_ns, double dur_ns,
                           const Json& args) {
  if (!enabled_) return;
  const int pid = pid_of(process);
  const int tid = tid_of(pid, thread);
  // Trace-event timestamps are in microseconds.
  Json e = {{"name", name}, {"ph", "X"}, {"pid", pid}, {"tid", tid},
            {"ts", start_ns / 1000.0}, {"dur", dur_ns / 1000.0}};
  if (!args.is_null()) e["args"] = args;
  events_.push_back(std::move(e));
}

void TraceWriter::write(const std::string& path) const {
  Json events = Json::array();
  for (const auto& [name, pid] : pids_) {
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}});
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
  }
  for (const auto& [key, tid] : tids_) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", key.first}, {"tid", tid},
                      {"args", {{"name", key.second}}}});
  }
  for (const auto& e : events_) events.push_back(e);
  // Atomic (temp file + rename): a full disk gives exit 3 naming the file, never a truncated trace.
  write_file_atomic(path, [&](std::ostream& out) {
    out << Json{{"traceEvents", events}, {"displayTimeUnit", "ns"}} << "\n";
  });
}

}  // namespace ipusim
