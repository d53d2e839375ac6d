#pragma once
// Collective plans of another size (issue #28's plans, collective_plan.hpp): a training step
// plays the same grouping's collective at many sizes (one per weight), and recording each
// size's plan generated its whole schedule again (millions of transfers a step on 16,384
// replicas) only to find foldings it already had. coll::stream_shape says when two requests
// stream the same steps with every size in proportion to their atoms; a recorded plan is then
// kept with its sizes in atoms, and another size's plan is that plan with its sizes scaled.
// Exact: every size a step's timing reads (the folded classes' bytes, the largest fragment,
// the largest reduction) is an atom count times the atom, and two such sizes relabel one to
// one, which is the premise on which the player reuses foldings across sizes already
// (sizes_relabel_one_to_one); the rest of a planned step (phase, tier, transfers, flags) does
// not depend on the size.
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "runtime/exec/collective_plan.hpp"

namespace ipusim {

struct ChipParams;
class ClockDomain;

/// Nanoseconds of a collective step's on-chip program (collective_program.hpp): `reduce` step,
/// `first_of_phase`, `own_output` (an all-gather), its largest transfer `fragment_elems`, of a
/// replica input of `input_elems` elements of `elem_bytes` each.
double step_program_ns(const ChipParams& chip, const ClockDomain& clock, bool reduce,
                       bool first_of_phase, bool own_output, std::uint64_t fragment_elems,
                       std::uint64_t input_elems, std::uint32_t elem_bytes);

/// A complete recorded plan with what its sizes are made of: its steps, and per step whether
/// it began its phase and its largest transfer in elements; `atom_elems` is its request's atom.
struct ShapedPlan {
  std::uint64_t atom_elems = 0;
  std::vector<PlannedStep> steps;
  std::vector<char> first_of_phase;
  std::vector<std::uint64_t> fragment_elems;
};

/// Key of the requests whose plans scale into one another: every field of `request` but its
/// size, with the methods `shape` resolved.
std::string plan_shape_key(const coll::CollectiveRequest& request, const coll::StreamShape& shape);

/// The steps of the plan of a request of atom `atom_elems` and `input_elems` elements per
/// replica, from `from` (same key): sizes scaled by atom_elems / from.atom_elems (exact: each is
/// a whole number of from's atoms), each step's program timed for its own fragment and input.
std::vector<PlannedStep> scale_plan(const ShapedPlan& from, std::uint64_t atom_elems,
                                    std::uint64_t input_elems, coll::CollectiveOp op,
                                    std::uint32_t elem_bytes, const ChipParams& chip,
                                    const ClockDomain& clock);

}  // namespace ipusim
