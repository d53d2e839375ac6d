#include "runtime/exec/plan_scaling.hpp"

#include <map>
#include <memory>

#include "models/params/hw_params.hpp"
#include "runtime/exec/collective_program.hpp"
#include "sim/clock.hpp"

namespace ipusim {
namespace {

void put_u64(std::string& key, std::uint64_t v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

}  // namespace

double step_program_ns(const ChipParams& chip, const ClockDomain& clock, bool reduce,
                       bool first_of_phase, bool own_output, std::uint64_t fragment_elems,
                       std::uint64_t input_elems, std::uint32_t elem_bytes) {
  CollectiveFragment fragment;
  fragment.elems = fragment_elems;
  fragment.input_elems = input_elems;
  fragment.elem_bytes = elem_bytes;
  fragment.tiles = chip.tiles;
  return clock.cycles_to_ns(static_cast<double>(collective_program_cycles(
      chip, collective_step_program(reduce, first_of_phase, own_output, fragment), fragment)));
}

std::string plan_shape_key(const coll::CollectiveRequest& request, const coll::StreamShape& shape) {
  std::string key;
  const auto& t = request.topology;
  for (std::uint64_t v :
       {static_cast<std::uint64_t>(request.op), static_cast<std::uint64_t>(request.reduce),
        static_cast<std::uint64_t>(request.dtype), std::uint64_t{t.ipus_per_replica},
        std::uint64_t{t.ild_size_ipus}, std::uint64_t{t.torus},
        static_cast<std::uint64_t>(t.link_config), std::uint64_t{t.ilds_per_leaf},
        static_cast<std::uint64_t>(request.algorithm),
        static_cast<std::uint64_t>(request.hierarchical_ild_algorithm),
        static_cast<std::uint64_t>(request.hierarchical_gw_algorithm), request.direct_max_bytes,
        static_cast<std::uint64_t>(shape.algorithm),
        static_cast<std::uint64_t>(shape.ild_algorithm),
        static_cast<std::uint64_t>(shape.gw_algorithm),
        static_cast<std::uint64_t>(request.groups.size())})
    put_u64(key, v);
  for (const auto& group : request.groups) {
    put_u64(key, group.size());
    key.append(reinterpret_cast<const char*>(group.data()), group.size() * sizeof(group[0]));
  }
  return key;
}

std::vector<PlannedStep> scale_plan(const ShapedPlan& from, std::uint64_t atom_elems,
                                    std::uint64_t input_elems, coll::CollectiveOp op,
                                    std::uint32_t elem_bytes, const ChipParams& chip,
                                    const ClockDomain& clock) {
  const std::uint64_t a = from.atom_elems;
  // A size of `from` is a whole number of its atoms: the same number of the new atoms.
  const auto scale = [&](std::uint64_t v) { return v / a * atom_elems; };
  const bool own_output = op == coll::CollectiveOp::AllGather;  // as play_impl
  // Steps that repeat a step's traffic share its batch: scaled once, shared again.
  std::map<const CompactFoldedBatch*, std::shared_ptr<const CompactFoldedBatch>> scaled;
  std::vector<PlannedStep> steps;
  steps.reserve(from.steps.size());
  for (std::size_t i = 0; i < from.steps.size(); ++i) {
    PlannedStep ps = from.steps[i];
    ps.max_reduce_elems_per_ipu = scale(ps.max_reduce_elems_per_ipu);
    ps.program_ns = step_program_ns(chip, clock, ps.reduce, from.first_of_phase[i] != 0, own_output,
                                    scale(from.fragment_elems[i]), input_elems, elem_bytes);
    if (ps.batch) {
      auto& b = scaled[ps.batch.get()];
      if (!b) {
        auto copy = std::make_shared<CompactFoldedBatch>(*ps.batch);
        // bytes = elements x elem_bytes, elements a whole number of atoms.
        for (std::size_t c = 0; c < copy->bytes.size(); ++c)
          copy->bytes[c] = copy->folded.classes[c].bytes =
              scale(copy->bytes[c] / elem_bytes) * elem_bytes;
        b = std::move(copy);
      }
      ps.batch = b;
    }
    steps.push_back(std::move(ps));
  }
  return steps;
}

}  // namespace ipusim
