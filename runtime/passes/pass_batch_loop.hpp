#pragma once
// Batch-serialisation loop order (plain C++): the ops of an n-step loop in the order of
// PopART's batchSchedule (popart_semantics.md E34) and popxl's overlapped loop, with the
// dependencies that decide what overlaps on the IO and compute tiles.
#include <string>
#include <vector>

#include "runtime/ir/training_session.hpp"

namespace ipusim::rt {

/// One item of the loop: a load, IO->compute copy, the step's compute, compute->IO copy,
/// store, or a merged exchange (store of one step with the load of a later step).
struct LoopItem {
  enum Type { Load, CopyIn, Compute, CopyOut, Store, Exchange } type = Compute;
  int step = 0;           ///< the step (for Exchange: the stored step, -1 if none)
  int load_step = -1;     ///< Exchange: the loaded step (-1 if none)
  std::vector<int> deps;  ///< indices of earlier items this one waits for (besides lane order)
};
std::string to_string(LoopItem::Type t);

/// The loop of `n` steps. `io_tiles`: transfers go through IO tiles (copies exist and the
/// transfers run on their own lane); `loads` / `stores`: the steps move activations.
/// Scheduler and Isomorphic run each step to completion; OverlapOnIo issues the load of
/// step i+1 right after the compute of step i; OverlapOnCompute issues it right before
/// (double-buffered), merging the store of step i with the load of step i+2.
std::vector<LoopItem> batch_loop_order(BatchSchedule schedule, int n, bool io_tiles, bool loads,
                                       bool stores);

}  // namespace ipusim::rt
