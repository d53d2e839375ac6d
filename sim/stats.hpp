#pragma once
// Stats over the SystemC module tree (DRAMSys-style): modules that keep statistics
// implement StatsProvider; collect_stats() walks the hierarchy and nests the results
// under each module's hierarchical name.
#include "sim/json.hpp"

namespace ipusim {

/// Implemented by SystemC modules that report statistics.
class StatsProvider {
 public:
  virtual ~StatsProvider() = default;
  /// Writes this object's own stats (not its children's) into `out` (an object).
  virtual void collect_stats(Json& out) const = 0;
};

/// Walks every top-level sc_object and its children; returns {"name": {stats..., "child": {...}}}
/// containing only objects that (transitively) have stats. Deterministic order.
Json collect_stats_tree();

}  // namespace ipusim
