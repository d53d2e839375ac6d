#pragma once
// Algorithm "best" and check_auto of the collective kind: every candidate algorithm simulated in
// a forked trial, the fastest chosen, auto's choice compared with it.
#include <string>

#include "runtime/workloads/collective/collective_spec.hpp"
#include "sim/config.hpp"
#include "sim/json.hpp"

namespace ipusim {

class System;

/// Plays `trial` once on `system` in the forked child, stopping at `limit_s` of wall time (0 =
/// none): {"time_ns"} when it finished, {"error"} otherwise, plus {"wall_limit"} when the
/// deadline stopped it.
using PlayTrial = Json (*)(System& system, const CollectiveSpec& trial, double limit_s);

/// algorithm "best": simulates every algorithm that can run this request, each in a forked
/// trial (its own copy of the elaborated system, so the reported run carries no trial
/// traffic), and sets the request to the fastest (unless `keep_auto`: check_auto, the same
/// trials with auto still played); ties go to the earlier candidate in best_candidates()
/// order. Warns when auto is more than auto_warn_pct slower than the fastest. Records every
/// candidate's time and what auto picks. The trials share the run's /sim/max_wall_s deadline: a
/// trial still running at it stops (between events) and the run ends with a SimulationError (exit
/// 3) naming the candidate and the simulated time it had reached.
/// `play` runs one candidate in the forked child.
void choose_best(ConfigNode& node, System& system, CollectiveSpec& spec, bool keep_auto,
                 PlayTrial play);

/// The report's `auto_vs_best` (with best or check_auto): auto's and the fastest candidate's
/// times, and whether auto is more than `warn_pct` slower.
Json auto_vs_best(const Json& b, double warn_pct);

/// Summary lines of algorithm "best": the choice, auto's, and every candidate's time.
std::string best_summary(const Json& b);

}  // namespace ipusim
