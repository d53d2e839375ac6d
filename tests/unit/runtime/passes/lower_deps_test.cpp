// Dependencies of the lowered program for every combination of IO schedule, load tile set
// and RTS: an op waits only for earlier ops (never itself: the executor would deadlock), and
// the compute of a phase waits for the weights loaded in that phase (OnDemand), through the
// gather and the IO-tile copy when there are any.
#include <catch2/catch.hpp>
#include <set>

#include "runtime/generators/model_gen.hpp"
#include "runtime/passes/pass_locations.hpp"
#include "runtime/passes/pass_lower.hpp"
#include "runtime/passes/pass_phases.hpp"
#include "tests/unit/runtime/passes/lowered_ancestors.hpp"

using namespace ipusim::rt;
using ipusim::rt::test::ancestors;

namespace {}  // namespace

TEST_CASE(
    "Lowered ops wait only for earlier ops, and OnDemand weight loads block the compute that reads "
    "them") {
  for (IOSchedule sched : {IOSchedule::Preload, IOSchedule::OnDemand})
    for (TileSet load : {TileSet::Compute, TileSet::Io})
      for (bool rts : {false, true}) {
        INFO("schedule " << to_string(sched) << ", load tiles "
                         << (load == TileSet::Io ? "io" : "compute") << ", RTS " << rts);
        MlpSpec spec;
        spec.layer_sizes = {512, 512, 512};
        Model m = generate_mlp(spec);
        SessionOptions s;
        s.replicatedGraphCount = 16;
        s.numIOTiles = load == TileSet::Io ? 64 : 0;
        s.weightIOSchedule = sched;
        s.weight.location.storage = Storage::OffChip;
        s.weight.location.loadTileSet = load;
        s.weight.location.replicatedTensorSharding = rts;
        s.weight.minElementsForReplicatedTensorSharding = 0;
        const PhaseLayout L = assign_phases(m, 1, 0, 1);
        const Program prog = lower_program(m, L, resolve_locations(m, s), s);
        int checked = 0;
        for (const LPhase& ph : prog.phases) {
          for (std::size_t i = 0; i < ph.ops.size(); ++i)
            for (int d : ph.ops[i].deps) CHECK(d < static_cast<int>(i));
          // The first compute of the phase and the weight loads meant for this phase.
          int first = -1;
          for (std::size_t i = 0; i < ph.ops.size() && first < 0; ++i)
            if (ph.ops[i].kind == LKind::Compute) first = static_cast<int>(i);
          if (first < 0) continue;
          const std::set<int> before = ancestors(ph, first);
          for (std::size_t i = 0; i < ph.ops.size(); ++i) {
            const LOp& op = ph.ops[i];
            if (op.kind != LKind::RemoteExchange || op.transfers.empty() || op.transfers[0].store)
              continue;
            bool weight = false;
            for (const LTransfer& t : op.transfers)
              weight = weight || t.tensor.find("/w") != std::string::npos;
            if (op.transfers[0].for_phase != ph.index || !weight) continue;
            CHECK(before.count(static_cast<int>(i)) == 1);
            ++checked;
          }
        }
        // Two layers, phases 0-2: fc1's weight is loaded on demand in phase 0 and is still live
        // (p-2, PopART's keep-live rule) in its backward phase 2; fc2's in phase 1 (forward and
        // backward): two on-demand weight loads.
        CHECK(checked == (sched == IOSchedule::OnDemand ? 2 : 0));
      }
}
