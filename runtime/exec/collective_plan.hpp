#pragma once
// Collectives played before, kept folded (issue #28): while the network folds the symmetry of
// identical replicas (Network::folding()), each exchange step of a collective is one folded
// batch of a few classes whatever the number of replicas. A training step plays the same
// collective (same operation, grouping, size, type and virtual graph) thousands of times, so
// the first play records each step's folding and every later play hands the network the
// folded batches directly: no schedule generation, no route look-ups, no check over every
// hop, no sort of the members (cost per step = its classes, not its replicas). Exact: a step's
// folding is a function of its routes, sizes and the cells, all fixed for a given collective.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/ipu/sync.hpp"
#include "models/network/flow_fold.hpp"
#include "models/network/routing.hpp"

namespace ipusim {

class System;

/// One batch folded onto representatives, kept compact: one entry per class (its
/// representative flow's route and its bytes), class i's first flow being entry i.
struct CompactFoldedBatch {
  std::vector<const Route*> routes;
  std::vector<std::uint64_t> bytes;
  FoldedBatch folded;
  std::uint64_t flows = 0;  ///< flows of the whole batch (the classes' counts summed)
};

/// The compact form of `folded`, the folding of (`routes`, `bytes`); nullptr when a flow has
/// no route (kNoClass: it would have to be started on its own).
std::shared_ptr<const CompactFoldedBatch> compact_folding(const FoldedBatch& folded,
                                                          const std::vector<const Route*>& routes,
                                                          const std::vector<std::uint64_t>& bytes);

/// True when a one-to-one map takes `a[i]` to `b[i]` for every i: two batches on the same
/// routes whose sizes relate so fold the same way (classes are equal sizes and cells, so only
/// the partition of the sizes matters), each class with its own size. False also beyond 64
/// distinct sizes (a step's transfers take few; such a step is simply folded afresh).
bool sizes_relabel_one_to_one(const std::vector<std::uint64_t>& a,
                              const std::vector<std::uint64_t>& b);

/// A vector kept as runs of equal consecutive values (a step's transfers come in runs of one
/// pair and one size: a folded step's routes and sizes take far less memory so).
template <typename T>
struct RunLengthVector {
  std::vector<std::pair<T, std::uint32_t>> runs;  ///< (value, how many in a row)
  std::size_t size = 0;
  explicit RunLengthVector(const std::vector<T>& v) : size(v.size()) {
    for (const T& x : v) {
      if (!runs.empty() && runs.back().first == x && runs.back().second < UINT32_MAX)
        ++runs.back().second;
      else
        runs.emplace_back(x, 1);
    }
  }
  /// True when the vector kept is `v`, element by element.
  bool equals(const std::vector<T>& v) const {
    if (v.size() != size) return false;
    std::size_t k = 0;
    for (const auto& [x, n] : runs)
      for (std::uint32_t j = 0; j < n; ++j, ++k)
        if (!(v[k] == x)) return false;
    return true;
  }
};

/// sizes_relabel_one_to_one with `a` kept as runs.
bool sizes_relabel_one_to_one(const RunLengthVector<std::uint64_t>& a,
                              const std::vector<std::uint64_t>& b);

/// One exchange step of a recorded collective: what the player needs to time it again.
struct PlannedStep {
  std::string phase;
  LinkTier highest = LinkTier::Local;  ///< its highest tier (GW-Links: global sync)
  bool reduce = false;
  std::uint64_t max_reduce_elems_per_ipu = 0;
  std::uint64_t transfers = 0;  ///< transfers of the step (for the counters)
  double program_ns = 0;        ///< the step's on-chip program (collective_program.hpp)
  /// The step's folded batch (shared by the steps that repeat it); nullptr without flows.
  std::shared_ptr<const CompactFoldedBatch> batch;
};

/// A collective's recorded play and the facts of its members (sorted IPUs, sync costs).
struct CollectivePlan {
  bool members_known = false;
  std::vector<std::uint32_t> ipus;  ///< every IPU of every member, sorted
  SyncCost sync_cost{}, local_sync_cost{};
  /// True once a play recorded every step folded; false while none did or one did not fold.
  bool complete = false;
  bool recording_failed = false;  ///< a step did not fold: the collective is never replayed
  /// A play is recording the steps (another lane playing the same collective meanwhile must
  /// not record too: it plays without recording).
  bool recording = false;
  std::vector<PlannedStep> steps;
  /// Syncs of this collective's plays not yet credited to its IPUs (CollectivePlans::flush).
  std::uint64_t pending_syncs = 0;
  /// Of those, the syncs of steps that crossed the GW-Links (record_collective_syncs).
  std::uint64_t pending_gw_syncs = 0;
};

/// The plans of a run's collectives by key (the executor's collective key), shared by its
/// players.
class CollectivePlans {
 public:
  CollectivePlan& plan(const std::string& key) { return plans_[key]; }
  /// Credits every plan's pending syncs to its IPUs (System::sync; sums of whole counts and
  /// cycles, so crediting them at the end of the run gives the same stats as one by one).
  void flush_syncs(System& system);

 private:
  std::map<std::string, CollectivePlan> plans_;
};

}  // namespace ipusim
