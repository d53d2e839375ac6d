#pragma once
// The collective algorithms, one row each: name (as configs and the CLI spell it), GCL's
// name, what it does and needs (the catalog of `--help` and docs/collectives.md), how it builds its
// schedule (a ring method's lanes, which the emitter runs and the closed-form step count
// sums), its validity checks and whether `best` tries it. Everything that lists algorithms
// reads this table: to_string / parse_algorithm, the `algorithm` key's choices, the CLI's
// `--algorithm` help, the catalog, best's candidates, the layout's direction parts.
//
// Adding a ring method: an Algorithm value (schedule/schedule.hpp) and its row here (lanes
// included): the emitter (algorithm_ring.cpp) and count_steps (step_count.cpp) follow the
// lanes, and step_count_test checks every row against the emitted schedule. Another kind of
// method also needs its emitter (and its closed form in step_count.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/schedule/schedule.hpp"

namespace ipusim::coll {

/// Which ring set a lane runs over: the tier's ring order, or the mirrored serpent.
enum class LaneRing : std::uint8_t { Primary, Mirrored };
/// How many of a ring's N-1 hops a lane's chains take.
enum class LaneHops : std::uint8_t { All, CeilHalf, FloorHalf };

/// One lane of a ring method: lanes run concurrently, each moving one direction part.
struct LaneSpec {
  LaneRing ring;
  int direction;       ///< +1 clockwise (to ring index + 1), -1 anticlockwise
  std::uint32_t part;  ///< the method's direction part it moves (lanes may share one)
  LaneHops hops;
};

/// How an algorithm builds its schedule.
enum class AlgorithmKind : std::uint8_t { Auto, Best, Ring, Direct, Hierarchical };

/// One algorithm.
struct AlgorithmInfo {
  Algorithm algorithm;  ///< its enum value (the `best` row: Auto, never looked up by value)
  const char* name;
  const char* gcl_name;  ///< GCL's spelling (option "method"), "" if none
  const char* what;
  const char* needs;  ///< "" if nothing
  AlgorithmKind kind;
  std::uint32_t parts;  ///< direction parts of the working-buffer layout
  /// Ring methods: the primary ring in serpent order and a mirrored-serpent second ring
  /// (LaneRing::Mirrored lanes); otherwise the tier's ring order and no second ring.
  bool serpent_rings;
  std::vector<LaneSpec> lanes;  ///< ring methods: the lanes of each reduce / gather phase
  bool needs_barley_twist;      ///< valid only with the barley_twist link configuration
  bool runs_all_to_all;         ///< can schedule all_to_all
  bool best_candidate;          ///< `best` simulates it (in table order: ties go to earlier rows)
};

/// Every algorithm the `algorithm` key accepts, `auto` and `best` included, in listing order.
const std::vector<AlgorithmInfo>& algorithm_table();
/// The row of a concrete algorithm or Auto.
const AlgorithmInfo& algorithm_info(Algorithm algorithm);
/// The accepted names in table order (`best` only with `with_best`), joined by `separator`.
std::string algorithm_names(const std::string& separator, bool with_best);
/// The same as a list (the `algorithm` key's choices).
std::vector<std::string> algorithm_name_list(bool with_best);
/// Hops of one lane's chains on a ring of `length` members.
std::uint32_t lane_hops(LaneHops hops, std::uint32_t length);

}  // namespace ipusim::coll
