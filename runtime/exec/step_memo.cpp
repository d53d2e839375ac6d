#include "runtime/exec/step_memo.hpp"

#include <cmath>
#include <stdexcept>

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
  // Identical components: only one of each class is played.
  const bool mirrored = symmetry_.analyse(network_.engine(), routes, bytes);
  if (mirrored) {
    played_routes_.clear();
    played_bytes_.clear();
    for (std::uint32_t i : symmetry_.played()) {
      played_routes_.push_back(routes[i]);
      played_bytes_.push_back(bytes[i]);
    }
  }
  const std::vector<const Route*>& play_routes = mirrored ? played_routes_ : routes;
  const std::vector<std::uint64_t>& play_bytes = mirrored ? played_bytes_ : bytes;
  // The resources the step can touch, each once, and their stats before it.
  seen_.assign(network_.engine().num_resources(), 0);
  touched_.clear();
  for (const Route* route : play_routes) {
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

  network_.transfer_batch(play_routes, play_bytes);

  // A step that did not end on an idle network (cannot happen for a batch played alone) is
  // not recorded: its outcome would not be the whole step's. (Symmetry needs the outcome.)
  if (!network_.idle()) {
    if (mirrored) throw std::logic_error("StepMemo: a step played alone did not end idle");
    return;
  }
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
  if (mirrored) flows_ += mirror_copies();
  // The peak concurrency a repeat would reach is the recorded step's, already in the stats.
  recorded_ = duration_ps_ > 0;
}

std::uint64_t StepMemo::mirror_copies() {
  // A step started on an idle network starts all its flows at once, so a resource's peak
  // concurrency in the step is the number of its flows: its transfers.
  delta_of_.assign(network_.engine().num_resources(), StepSymmetry::kNone);
  const std::size_t played = deltas_.size();
  for (std::size_t i = 0; i < played; ++i) delta_of_[deltas_[i].id] = static_cast<std::uint32_t>(i);
  std::uint64_t flows = 0;
  mirror_credit_.clear();
  for (const StepSymmetry::Copy& copy : symmetry_.copies()) {
    const ResourceId* rep = symmetry_.resources_begin(copy.representative);
    const ResourceId* own = symmetry_.resources_begin(copy.component);
    for (std::uint32_t j = 0; j < symmetry_.num_resources(copy.component); ++j) {
      const std::uint32_t d = delta_of_[rep[j]];
      if (d == StepSymmetry::kNone) continue;  // crossed only by flows without bytes
      const Delta delta{own[j], deltas_[d].bytes, deltas_[d].busy_ps, deltas_[d].transfers};
      deltas_.push_back(delta);
      ResourceStats s;
      s.bytes = static_cast<double>(delta.bytes);
      s.busy_ns = static_cast<double>(delta.busy_ps) * 1e-3;
      s.transfers = delta.transfers;
      s.max_concurrent = static_cast<std::uint32_t>(delta.transfers);
      mirror_credit_.emplace_back(delta.id, s);
    }
    flows += symmetry_.num_flows(copy.component);
  }
  network_.credit_replay(flows, 0, mirror_credit_);
  mirrored_flows_ += flows;
  return flows;
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
