#include "runtime/exec/step_memo.hpp"

#include <cmath>

namespace ipusim {
namespace {

/// Busy time of a stats snapshot in whole ps (the engine keeps it in ps; busy_ns is ps x 1e-3).
std::uint64_t busy_ps_of(const ResourceStats& s) {
  return static_cast<std::uint64_t>(std::llround(s.busy_ns * 1e3));
}

/// Bytes of a stats snapshot of an idle resource (a whole number: the bytes of the flows started).
std::uint64_t bytes_of(const ResourceStats& s) {
  return static_cast<std::uint64_t>(std::llround(s.bytes));
}

}  // namespace

void StepMemo::play_and_record(const std::vector<const Route*>& routes,
                               const std::vector<std::uint64_t>& bytes) {
  flush();
  recorded_ = false;
  if (routes.empty() || !network_.idle()) {
    network_.transfer_batch(routes, bytes);
    return;
  }
  // The resources the step can touch, each once, and their stats before it.
  seen_.assign(network_.engine().num_resources(), 0);
  touched_.clear();
  for (const Route* route : routes) {
    for (ResourceId id : *route) {
      if (id < seen_.size() && !seen_[id]) {
        seen_[id] = 1;
        touched_.push_back(id);
      }
    }
  }
  before_.clear();
  for (ResourceId id : touched_) before_.push_back(network_.resource_stats(id));
  const std::uint64_t flows0 = network_.engine().flows_started();
  const std::uint64_t wakeups0 = network_.wakeups();
  const std::uint64_t t0_ps = sc_core::sc_time_stamp().value();

  network_.transfer_batch(routes, bytes);

  // A step that did not end on an idle network (cannot happen for a batch played alone) is
  // not recorded: its outcome would not be the whole step's.
  if (!network_.idle()) return;
  duration_ps_ = sc_core::sc_time_stamp().value() - t0_ps;
  flows_ = network_.engine().flows_started() - flows0;
  wakeups_ = network_.wakeups() - wakeups0;
  deltas_.clear();
  for (std::size_t i = 0; i < touched_.size(); ++i) {
    const ResourceStats after = network_.resource_stats(touched_[i]);
    const ResourceStats& b = before_[i];
    if (after.transfers == b.transfers) continue;
    deltas_.push_back({touched_[i], bytes_of(after) - bytes_of(b),
                       busy_ps_of(after) - busy_ps_of(b), after.transfers - b.transfers});
  }
  // The peak concurrency a repeat would reach is the recorded step's, already in the stats.
  recorded_ = duration_ps_ > 0;
}

bool StepMemo::can_replay() { return recorded_ && network_.idle(); }

void StepMemo::replay() {
  sc_core::wait(sc_core::sc_time(static_cast<double>(duration_ps_), sc_core::SC_PS));
  ++pending_;
  ++replayed_total_;
}

void StepMemo::flush() {
  if (pending_ == 0) return;
  std::vector<std::pair<ResourceId, ResourceStats>> credit;
  credit.reserve(deltas_.size());
  for (const Delta& d : deltas_) {
    ResourceStats s;
    s.bytes = static_cast<double>(d.bytes * pending_);
    s.busy_ns = static_cast<double>(d.busy_ps * pending_) * 1e-3;
    s.transfers = d.transfers * pending_;
    s.max_concurrent = 0;
    credit.emplace_back(d.id, s);
  }
  network_.credit_replay(flows_ * pending_, wakeups_ * pending_, credit);
  pending_ = 0;
}

void StepMemo::clear() {
  flush();
  recorded_ = false;
}

}  // namespace ipusim
