#pragma once
// Streaming Chrome / Perfetto trace-event writer (https://ui.perfetto.dev opens the result).
//
// Events go to the file as they are produced (through a fixed-size stdio buffer), so memory
// does not grow with the trace: only one record per track (names, ids, the last top-level
// slice) is kept. Track layout (see docs/pages_and_traces.md "Traces"):
//   - one process per IPU ("ipuN"), one thread per lane; slices on a thread nest or follow
//     each other ("X" events). A slice that would overlap its thread's slices without nesting
//     becomes an async slice of the same process instead (Perfetto gives overlapping async
//     slices rows of their own).
//   - shared resources (links, DDR, a collective's phase track) are always async slices
//     ("b"/"e" pairs with a unique id), because concurrent transfers overlap on them.
//   - counter tracks ("C" events) in the "utilisation" process: each link tier's and the DDRs'
//     utilisation (fraction of their capacity in use), written in time order.
// Filters (IPUs, a time window, tiers) drop events before they are formatted, and a byte cap
// stops writing (the file stays valid JSON and says where it stopped). Workloads register
// an estimate of the trace before the run (add_estimate): above 1 GiB the writer says so on
// stderr at once, with the filters to use; the estimate is recorded in the file's otherData.
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/json.hpp"

namespace ipusim {

/// The tier an event belongs to, for `--trace-tiers`: an index into the tier names the
/// layers above register (sim/ knows none). kNoTraceTier events are always kept.
using TraceTier = std::uint8_t;
inline constexpr TraceTier kNoTraceTier = 0;

/// The tier named `name`, registered on first use. The models register theirs explicitly at
/// start-up (register_model_params), which fixes the order in listings.
TraceTier trace_tier(const std::string& name);
/// The registered tier names in registration order, joined by `separator`.
std::string trace_tier_names(const std::string& separator);
/// Parses a registered tier name; throws ConfigError listing the names otherwise.
TraceTier parse_trace_tier(const std::string& name);

/// What to keep in a trace (defaults: everything).
struct TraceFilter {
  std::set<std::uint32_t> ipus;  ///< empty: every IPU
  std::string ipus_text;         ///< the `--trace-ipus` list as given, for messages
  double window_start_ns = 0;
  double window_end_ns = -1;    ///< < 0: no end
  std::set<TraceTier> tiers;    ///< empty: every tier
  std::uint64_t max_bytes = 0;  ///< 0: no cap

  /// Parses "0-3,8,12" into `ipus` (ConfigError on bad input).
  void set_ipus(const std::string& list);
  /// ConfigError naming `--trace-ipus` and the valid range when it names an IPU at or above
  /// `num_ipus` (checked once the system is known, before the run).
  void check_ipus_exist(std::uint32_t num_ipus) const;
  /// Parses "START_NS:END_NS" (END may be empty) into the window (ConfigError on bad input).
  void set_window(const std::string& spec);
  /// Parses a comma-separated list of tier names into `tiers` (ConfigError on bad input).
  void set_tiers(const std::string& list);
  /// True when `--trace-window` restricts the time range.
  bool has_window() const { return window_start_ns > 0 || window_end_ns >= 0; }
  /// True when events of `tier` are kept (None always is).
  bool tier_selected(TraceTier tier) const {
    return tier == kNoTraceTier || tiers.empty() || tiers.count(tier) > 0;
  }
};

/// Traces estimated above this size are announced before the run (1 GiB).
inline constexpr double kTraceWarnBytes = 1073741824.0;

/// The stderr warning for a trace estimated at `bytes` (`events` events) before the run, or
/// "" when it stays within kTraceWarnBytes — after the `--trace-max-bytes` cap — or when a
/// `--trace-window` is set (its share of the run is unknown before the run).
std::string trace_size_warning(double bytes, double events, const TraceFilter& filter);

/// The process-wide streaming trace writer. Disabled unless enable()d or open()ed.
class TraceWriter {
 public:
  /// The process-wide writer.
  static TraceWriter& instance();
  /// Counts events without writing them anywhere (tests), or turns tracing off.
  void enable(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  /// Starts streaming to `path` (through a temporary file renamed by close()) with `filter`;
  /// WriteError (exit 3) if the file cannot be created.
  void open(const std::string& path, const TraceFilter& filter = {});
  /// Finishes the JSON document, flushes, fsyncs and renames it to its name (no-op when not
  /// open); WriteError naming the file if any write failed (the partial file is removed).
  void close();
  /// close() without throwing: the WriteError's message, or "" when the trace was written (or
  /// none was open). For callers past sc_start, where unwinding confuses ASan (run_outputs.hpp).
  std::string try_close();
  /// True once the byte cap stopped the writing.
  bool truncated() const { return truncated_; }
  /// Bytes written so far.
  std::uint64_t bytes_written() const { return bytes_; }
  /// The active filters (workloads take them into account in their estimates).
  const TraceFilter& filter() const { return filter_; }
  /// Adds a workload's estimate of what it will trace (after the filters), before the run;
  /// prints trace_size_warning() once when the total calls for it. No-op when not tracing.
  void add_estimate(double events, double bytes);
  /// Estimated trace size registered for this run (0 when none).
  double estimated_bytes() const { return estimate_bytes_; }

  /// Whether events of IPU `ipu` are kept (the `--trace-ipus` filter).
  bool ipu_selected(std::uint32_t ipu) const;
  /// True when `--trace-ipus` names the IPUs (callers then trace them even on large systems).
  bool has_ipu_filter() const { return !filter_.ipus.empty(); }

  /// A slice on thread `thread` of `process` from start_ns lasting dur_ns (an "X" event, or
  /// an async slice when it would overlap the thread's slices without nesting).
  void complete(const std::string& process, const std::string& thread, const std::string& name,
                double start_ns, double dur_ns, const Json& args = Json(),
                TraceTier tier = kNoTraceTier);
  /// An async slice of `process` on the async track `track` (slices on it may overlap).
  void async_slice(const std::string& process, const std::string& track, const std::string& name,
                   double start_ns, double dur_ns, const Json& args = Json(),
                   TraceTier tier = kNoTraceTier);
  /// A counter sample: `series` of counter track `track` in `process` is `value` from `ts_ns`.
  /// Samples of one track must come in time order (earlier ones are dropped).
  void counter(const std::string& process, const std::string& track, double ts_ns, double value,
               TraceTier tier = kNoTraceTier);
  /// Slice events accepted so far (after filters; counters not included).
  std::size_t size() const { return events_; }

 private:
  struct Track {
    int tid = 0;
    double root_start = 0, root_end = -1;  ///< last top-level X slice
    double prev_end = -1;                  ///< end of the top-level slice before it
    double last_counter_ns = -1;
  };
  bool keep(const std::string& process, double start_ns, double end_ns, TraceTier tier) const;
  int pid_of(const std::string& process);
  Track& track_of(int pid, const std::string& thread);
  void emit(const std::string& text);
  void emit_async(int pid, const std::string& track, const std::string& name, double start_ns,
                  double dur_ns, const Json& args);

  bool enabled_ = false;
  std::FILE* file_ = nullptr;
  std::string path_, tmp_path_;
  std::vector<char> buffer_;
  TraceFilter filter_;
  bool truncated_ = false;
  bool warned_ = false;
  bool first_event_ = true;
  std::uint64_t bytes_ = 0;
  std::size_t events_ = 0;
  std::uint64_t next_async_id_ = 1;
  bool has_estimate_ = false;
  double estimate_events_ = 0, estimate_bytes_ = 0;
  double last_ts_ns_ = 0;
  std::map<std::string, int> pids_;
  std::map<std::pair<int, std::string>, Track> tracks_;
};

}  // namespace ipusim
