#pragma once
// Replays the network outcome of a BSP exchange step that repeats the previous step's traffic.
//
// A batch of transfers started on an idle network is timed from its own start (the network
// moves its time origin there, see network.hpp), so a step whose traffic — the sequence of
// (route, bytes) — equals an earlier step's that also started on an idle network takes the
// same time and adds the same bytes, busy time and transfers to every resource. StepMemo
// records that outcome once and replays it: a replayed step waits the recorded duration and
// counts one more repeat; the repeats' stats are credited to the network at flush(), all at
// once (exact: bytes and busy time are whole numbers of bytes and ps). A ring over 4096 IPUs
// then starts its 4096 transfers once instead of 8190 times.
//
// Only for a caller that owns the network for the whole time (no other process starts a
// transfer during a replayed step, which would otherwise have shared links with its flows).
#include <cstdint>
#include <utility>
#include <vector>

#include "models/network/network.hpp"
#include "runtime/exec/step_symmetry.hpp"

namespace ipusim {

/// Records one exchange step's outcome on an idle network and replays it (see above).
class StepMemo {
 public:
  explicit StepMemo(Network& network) : network_(network) {}
  /// Plays `bytes[i]` along `*routes[i]` on the (idle) network, blocking like
  /// Network::transfer_batch, and records the outcome; pending repeats are credited first.
  /// Components of the step that are copies of another (StepSymmetry) are not played: their
  /// resources are credited with their representative's outcome. Call from an SC_THREAD.
  void play_and_record(const std::vector<const Route*>& routes,
                       const std::vector<std::uint64_t>& bytes);
  /// True when a step with the recorded traffic can be replayed now (a recording exists and
  /// the network is idle).
  bool can_replay();
  /// Replays the recorded step: waits its duration and counts it for flush().
  void replay();
  /// Credits the replayed steps' flows and per-resource stats to the network.
  void flush();
  /// Forgets the recording (after flushing): the next step must be played.
  void clear();
  /// Steps replayed so far (for tests and benchmarks).
  std::uint64_t replayed() const { return replayed_total_; }
  /// Flows that symmetry credited instead of playing, so far (for tests and benchmarks).
  std::uint64_t mirrored_flows() const { return mirrored_flows_; }

 private:
  Network& network_;
  bool recorded_ = false;
  std::uint64_t duration_ps_ = 0;
  std::uint64_t flows_ = 0;
  std::uint64_t wakeups_ = 0;
  /// Per resource of the recorded step: bytes, busy ps and transfers it added.
  struct Delta {
    ResourceId id;
    std::uint64_t bytes;
    std::uint64_t busy_ps;
    std::uint64_t transfers;
  };
  std::vector<Delta> deltas_;
  std::uint64_t pending_ = 0;  ///< replays not yet credited
  std::uint64_t replayed_total_ = 0;
  std::vector<ResourceId> touched_;    // scratch: resources of the recorded routes
  std::vector<ResourceStats> before_;  // scratch: their stats before the step
  std::vector<std::uint8_t> seen_;     // scratch: per resource, already in touched_
  StepSymmetry symmetry_;
  std::uint64_t mirrored_flows_ = 0;
  std::vector<const Route*> played_routes_;  // scratch: the representatives' flows
  std::vector<std::uint64_t> played_bytes_;  // scratch
  std::vector<std::uint32_t> delta_of_;      // scratch: per resource, its index in deltas_
  std::vector<std::pair<ResourceId, ResourceStats>> mirror_credit_;  // scratch
  /// Adds to deltas_ the copies' resources, each with its representative resource's delta,
  /// and credits them once (the step just played); returns the copies' flows.
  std::uint64_t mirror_copies();
};

}  // namespace ipusim
