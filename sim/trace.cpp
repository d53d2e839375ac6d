#include "sim/trace.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "sim/config.hpp"
#include "sim/errors.hpp"
#include "sim/output_file.hpp"
#include "sim/progress.hpp"

namespace ipusim {
namespace {

/// Trace-event timestamps are microseconds; 6 decimals keep the simulator's 1 ps resolution.
std::string us(double ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6f", ns / 1000.0);
  return buf;
}

std::string quoted(const std::string& s) { return Json(s).dump(); }

/// The IPU number of a process named "ipuN", or -1.
long ipu_of_process(const std::string& process) {
  if (process.size() < 4 || process.compare(0, 3, "ipu") != 0) return -1;
  char* end = nullptr;
  const long v = std::strtol(process.c_str() + 3, &end, 10);
  return (end && *end == '\0') ? v : -1;
}

std::uint64_t parse_u64(const std::string& text, const std::string& what) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
      text.size() > 18) {
    throw ConfigError(what + ": '" + text + "' is not a non-negative integer");
  }
  return std::stoull(text);
}

double parse_ns(const std::string& text, const std::string& what) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || !end || *end != '\0' || !(v >= 0) || v > 1e18) {
    throw ConfigError(what + ": '" + text + "' is not a time in ns >= 0");
  }
  return v;
}

/// The filters to narrow a trace, for the size warnings.
std::string narrow_hint() {
  return "narrow it with --trace-ipus LIST, --trace-window START_NS:END_NS, --trace-tiers " +
         trace_tier_names(",") + " or cap it with --trace-max-bytes N";
}

/// Registered tier names; index i + 1 is tier i + 1 (0 is kNoTraceTier).
std::vector<std::string>& tier_names() {
  static std::vector<std::string> names;
  return names;
}

}  // namespace

std::string trace_size_warning(double bytes, double events, const TraceFilter& filter) {
  if (filter.has_window()) return "";
  const bool capped = filter.max_bytes > 0 && static_cast<double>(filter.max_bytes) < bytes;
  if ((capped ? static_cast<double>(filter.max_bytes) : bytes) <= kTraceWarnBytes) return "";
  char buf[160];
  std::snprintf(
      buf, sizeof buf,
      "ipusim: warning: the trace will be about %.2f GB (%.3g events, estimated before the run)",
      bytes / 1e9, events);
  std::string text = buf;
  if (capped) text += "; it will stop at --trace-max-bytes " + std::to_string(filter.max_bytes);
  return text + "; " + narrow_hint();
}

TraceTier trace_tier(const std::string& name) {
  std::vector<std::string>& names = tier_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<TraceTier>(it - names.begin() + 1);
  if (names.size() >= 255) throw std::logic_error("more than 255 trace tiers");
  names.push_back(name);
  return static_cast<TraceTier>(names.size());
}

std::string trace_tier_names(const std::string& separator) {
  std::string out;
  for (const std::string& n : tier_names()) out += (out.empty() ? "" : separator) + n;
  return out;
}

TraceTier parse_trace_tier(const std::string& name) {
  const std::vector<std::string>& names = tier_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<TraceTier>(it - names.begin() + 1);
  std::string msg = "--trace-tiers: unknown tier '" + name + "' (" + trace_tier_names(", ") + ")";
  const std::string guess = closest_match(name, names);
  if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
  throw ConfigError(msg);
}

void TraceFilter::set_ipus(const std::string& list) {
  ipus_text = list;
  std::size_t pos = 0;
  while (pos <= list.size()) {
    const std::size_t comma = list.find(',', pos);
    const std::string item =
        list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const std::size_t dash = item.find('-');
    if (dash == std::string::npos) {
      ipus.insert(static_cast<std::uint32_t>(parse_u64(item, "--trace-ipus")));
    } else {
      const std::uint64_t lo = parse_u64(item.substr(0, dash), "--trace-ipus");
      const std::uint64_t hi = parse_u64(item.substr(dash + 1), "--trace-ipus");
      if (hi < lo || hi - lo > 65536) throw ConfigError("--trace-ipus: bad range '" + item + "'");
      for (std::uint64_t i = lo; i <= hi; ++i) ipus.insert(static_cast<std::uint32_t>(i));
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
}

void TraceFilter::check_ipus_exist(std::uint32_t num_ipus) const {
  if (ipus.empty() || *ipus.rbegin() < num_ipus) return;
  throw ConfigError("--trace-ipus " + ipus_text + ": IPU " + std::to_string(*ipus.rbegin()) +
                    " does not exist: the system has " + std::to_string(num_ipus) +
                    " IPUs (valid: 0-" + std::to_string(num_ipus - 1) + ")");
}

void TraceFilter::set_window(const std::string& spec) {
  const std::size_t colon = spec.find(':');
  if (colon == std::string::npos)
    throw ConfigError("--trace-window: expected START_NS:END_NS, got '" + spec + "'");
  window_start_ns = parse_ns(spec.substr(0, colon), "--trace-window");
  const std::string end = spec.substr(colon + 1);
  window_end_ns = end.empty() ? -1 : parse_ns(end, "--trace-window");
  if (window_end_ns >= 0 && window_end_ns <= window_start_ns) {
    throw ConfigError("--trace-window: END_NS must be after START_NS in '" + spec + "'");
  }
}

void TraceFilter::set_tiers(const std::string& list) {
  std::size_t pos = 0;
  for (;;) {
    const std::size_t comma = list.find(',', pos);
    tiers.insert(parse_trace_tier(
        list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos)));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
}

TraceWriter& TraceWriter::instance() {
  static TraceWriter writer;
  return writer;
}

void TraceWriter::open(const std::string& path, const TraceFilter& filter) {
  close();
  // Streamed to a temporary name in the same folder and renamed at close(), like every other
  // output file: a failed or interrupted run never leaves a truncated trace.json behind.
  const std::filesystem::path p(path);
  path_ = path;
  tmp_path_ =
      (p.parent_path() / ("." + p.filename().string() + ".tmp." + std::to_string(::getpid())))
          .string();
  file_ = std::fopen(tmp_path_.c_str(), "w");
  if (!file_) throw WriteError("cannot write trace file '" + path + "': " + std::strerror(errno));
  // A fixed 1 MiB buffer: the writer's memory does not depend on the trace length.
  buffer_.assign(1 << 20, '\0');
  std::setvbuf(file_, buffer_.data(), _IOFBF, buffer_.size());
  filter_ = filter;
  enabled_ = true;
  truncated_ = false;
  warned_ = false;
  first_event_ = true;
  bytes_ = 0;
  events_ = 0;
  has_estimate_ = false;
  estimate_events_ = estimate_bytes_ = 0;
  pids_.clear();
  tracks_.clear();
  const std::string head = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  std::fputs(head.c_str(), file_);
  bytes_ += head.size();
}

void TraceWriter::close() {
  const std::string error = try_close();
  if (!error.empty()) throw WriteError(error);
}

std::string TraceWriter::try_close() {
  if (!file_) return {};
  if (truncated_) {
    // Where the cap stopped the trace: a global instant event, and a note on stderr.
    const std::string note =
        "{\"name\": \"trace stopped: --trace-max-bytes " + std::to_string(filter_.max_bytes) +
        " reached\", \"ph\": \"i\", \"s\": \"g\", \"pid\": 0, \"tid\": 0, \"ts\": " +
        us(last_ts_ns_) + "}";
    std::fputs(first_event_ ? "" : ",\n", file_);
    std::fputs(note.c_str(), file_);
    std::cerr << "ipusim: trace stopped at --trace-max-bytes " << filter_.max_bytes << " ("
              << events_ << " events, up to simulated time " << last_ts_ns_
              << " ns); narrow it with --trace-window, "
              << "--trace-ipus or --trace-tiers\n";
  }
  std::fputs("\n]", file_);
  if (has_estimate_) {
    // The pre-run estimate next to the events, so that it can be checked against the file.
    std::fprintf(
        file_,
        ", \"otherData\": {\"ipusim_estimated_events\": %.0f, \"ipusim_estimated_bytes\": %.0f}",
        estimate_events_, estimate_bytes_);
  }
  std::fputs("}\n", file_);
  bool ok = std::fflush(file_) == 0 && !std::ferror(file_);
  int err = ok ? 0 : errno;
  if (ok && ::fsync(fileno(file_)) != 0) {
    ok = false;
    err = errno;
  }
  if (std::fclose(file_) != 0 && ok) {
    ok = false;
    err = errno;
  }
  file_ = nullptr;
  buffer_.clear();
  buffer_.shrink_to_fit();
  enabled_ = false;
  if (ok && std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    std::remove(tmp_path_.c_str());
    return "cannot write trace file '" + path_ + "': " + std::strerror(err ? err : EIO);
  }
  return {};
}

void TraceWriter::add_estimate(double events, double bytes) {
  if (!enabled_) return;
  has_estimate_ = true;
  estimate_events_ += events;
  estimate_bytes_ += bytes;
  if (warned_) return;
  const std::string warning = trace_size_warning(estimate_bytes_, estimate_events_, filter_);
  if (warning.empty()) return;
  warned_ = true;
  std::cerr << warning << "\n";
}

bool TraceWriter::ipu_selected(std::uint32_t ipu) const {
  return filter_.ipus.empty() || filter_.ipus.count(ipu) > 0;
}

bool TraceWriter::keep(const std::string& process, double start_ns, double end_ns,
                       TraceTier tier) const {
  if (!enabled_ || truncated_) return false;
  if (end_ns < filter_.window_start_ns) return false;
  if (filter_.window_end_ns >= 0 && start_ns > filter_.window_end_ns) return false;
  if (tier != kNoTraceTier && !filter_.tiers.empty() && filter_.tiers.count(tier) == 0)
    return false;
  if (!filter_.ipus.empty()) {
    const long ipu = ipu_of_process(process);
    if (ipu >= 0 && filter_.ipus.count(static_cast<std::uint32_t>(ipu)) == 0) return false;
  }
  return true;
}

void TraceWriter::emit(const std::string& text) {
  if (!file_ || truncated_) return;
  const std::uint64_t len = text.size() + 2;
  if (filter_.max_bytes > 0 && bytes_ + len > filter_.max_bytes) {
    truncated_ = true;
    return;
  }
  if (!first_event_) std::fputs(",\n", file_);
  first_event_ = false;
  std::fputs(text.c_str(), file_);
  const std::uint64_t before = bytes_;
  bytes_ += len;
  // Without an estimate from before the run (workloads that do not register one) or with a
  // --trace-window (whose share of the run was unknown then), extrapolate the part of the
  // run done so far; warn once above 1 GiB.
  constexpr std::uint64_t kCheckEvery = 16ull << 20;
  if (bytes_ / kCheckEvery != before / kCheckEvery && !warned_ &&
      (!has_estimate_ || filter_.has_window())) {
    const double frac = RunProgress::instance().fraction_done();
    // Below 1 % of the run the extrapolation is mostly noise (set-up phases are atypical).
    if (frac >= 0.01 && static_cast<double>(bytes_) / frac > kTraceWarnBytes) {
      warned_ = true;
      std::cerr << "ipusim: warning: the trace will be about "
                << static_cast<std::uint64_t>(static_cast<double>(bytes_) / frac / 1e6) << " MB ("
                << bytes_ / 1000000 << " MB written at " << static_cast<int>(frac * 100)
                << " % of the run); " << narrow_hint() << "\n";
    }
  }
}

int TraceWriter::pid_of(const std::string& process) {
  auto it = pids_.find(process);
  if (it != pids_.end()) return it->second;
  const int pid = static_cast<int>(pids_.size()) + 1;
  pids_[process] = pid;
  // IPUs sort by number; other processes after them in first-seen order.
  const long ipu = ipu_of_process(process);
  const long sort = ipu >= 0 ? ipu : 1000000 + pid;
  emit("{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " + std::to_string(pid) +
       ", \"args\": {\"name\": " + quoted(process) + "}}");
  emit("{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": " + std::to_string(pid) +
       ", \"args\": {\"sort_index\": " + std::to_string(sort) + "}}");
  return pid;
}

TraceWriter::Track& TraceWriter::track_of(int pid, const std::string& thread) {
  auto it = tracks_.find({pid, thread});
  if (it != tracks_.end()) return it->second;
  Track& t = tracks_[{pid, thread}];
  t.tid = static_cast<int>(tracks_.size());
  if (thread.compare(0, 8, "counter:") == 0) return t;  // counters are named by their events
  emit("{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " + std::to_string(pid) +
       ", \"tid\": " + std::to_string(t.tid) + ", \"args\": {\"name\": " + quoted(thread) + "}}");
  return t;
}

void TraceWriter::complete(const std::string& process, const std::string& thread,
                           const std::string& name, double start_ns, double dur_ns,
                           const Json& args, TraceTier tier) {
  const double end_ns = start_ns + dur_ns;
  if (!keep(process, start_ns, end_ns, tier)) return;
  ++events_;
  if (!file_) return;
  const int pid = pid_of(process);
  Track& t = track_of(pid, thread);
  // Slices on a thread must nest or follow each other. Events arrive when an activity ends,
  // so only the last top-level slice (and the end of the one before) is needed to check that
  // the new slice follows it or encloses it; anything else goes to an async track.
  bool ok = false;
  if (t.root_end < 0 || start_ns >= t.root_end) {
    t.prev_end = t.root_end;
    t.root_start = start_ns;
    t.root_end = end_ns;
    ok = true;
  } else if (start_ns <= t.root_start && end_ns >= t.root_end && start_ns >= t.prev_end) {
    t.root_start = start_ns;
    t.root_end = end_ns;
    ok = true;
  }
  if (!ok) {
    emit_async(pid, thread, name, start_ns, dur_ns, args);
    return;
  }
  last_ts_ns_ = start_ns;
  std::string e = "{\"name\": " + quoted(name) +
                  ", \"ph\": \"X\", \"pid\": " + std::to_string(pid) +
                  ", \"tid\": " + std::to_string(t.tid) + ", \"ts\": " + us(start_ns) +
                  ", \"dur\": " + us(dur_ns);
  if (!args.is_null()) e += ", \"args\": " + args.dump();
  e += "}";
  emit(e);
}

void TraceWriter::async_slice(const std::string& process, const std::string& track,
                              const std::string& name, double start_ns, double dur_ns,
                              const Json& args, TraceTier tier) {
  if (!keep(process, start_ns, start_ns + dur_ns, tier)) return;
  ++events_;
  if (!file_) return;
  emit_async(pid_of(process), track, name, start_ns, dur_ns, args);
}

void TraceWriter::emit_async(int pid, const std::string& track, const std::string& name,
                             double start_ns, double dur_ns, const Json& args) {
  // A "b"/"e" pair with its own id: Perfetto puts overlapping async slices on separate rows of
  // the process's async track group named by `cat` + name.
  last_ts_ns_ = start_ns;
  const std::string id = std::to_string(next_async_id_++);
  const std::string common = "\"cat\": " + quoted(track) + ", \"name\": " + quoted(name) +
                             ", \"id\": " + id + ", \"pid\": " + std::to_string(pid) +
                             ", \"tid\": 0";
  std::string b = "{" + common + ", \"ph\": \"b\", \"ts\": " + us(start_ns);
  if (!args.is_null()) b += ", \"args\": " + args.dump();
  b += "}";
  emit(b);
  emit("{" + common + ", \"ph\": \"e\", \"ts\": " + us(start_ns + dur_ns) + "}");
}

void TraceWriter::counter(const std::string& process, const std::string& track, double ts_ns,
                          double value, TraceTier tier) {
  if (!keep(process, ts_ns, ts_ns, tier)) return;
  if (!file_) return;
  const int pid = pid_of(process);
  Track& t = track_of(pid, "counter:" + track);
  if (ts_ns < t.last_counter_ns) return;  // counters must be monotonic in time
  t.last_counter_ns = ts_ns;
  char v[40];
  std::snprintf(v, sizeof v, "%.6g", value);
  emit("{\"name\": " + quoted(track) + ", \"ph\": \"C\", \"pid\": " + std::to_string(pid) +
       ", \"ts\": " + us(ts_ns) + ", \"args\": {\"value\": " + v + "}}");
}

}  // namespace ipusim
