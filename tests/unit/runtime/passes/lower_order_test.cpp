// Order and dependencies inside a lowered phase (popart_semantics.md §3.1):
// - a whole-batch host load (not per micro-batch) runs before the compute that needs it;
// - inter-phase IpuCopies (stages 2) run at the end of the source phase, after the compute
//   that produces them and before the phase's remote stores;
// - ping-pong with off-chip activations: an activation read on the other IPU moves by an
//   IpuCopy at the end of its producing phase (PopART), not by a store and a preload.
// The expected orders are hand-worked from those rules; nothing is read back from a run.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "runtime/generators/model_gen.hpp"
#include "runtime/passes/pass_locations.hpp"
#include "runtime/passes/pass_lower.hpp"
#include "runtime/passes/pass_phases.hpp"
#include "tests/unit/runtime/passes/lowered_ancestors.hpp"

using namespace ipusim::rt;
using ipusim::rt::test::ancestors;

namespace {

/// "x1[2]" -> "x1": the loop names each micro-batch copy of a tensor.
std::string base_name(const std::string& t) { return t.substr(0, t.find('[')); }

bool is_store(const LOp& op) {
  if (op.kind == LKind::IoCopy)
    return !op.to_compute;  // the copy to the IO tiles that feeds a store
  if (op.kind != LKind::RemoteExchange) return false;
  for (const LTransfer& t : op.transfers)
    if (t.store) return true;
  return false;
}

/// MLP of 3 layers on 2 IPUs in ping-pong: layer i computes in phases i and 4 - i, on IPU
/// phase % 2, so every activation and activation gradient crosses to the other IPU.
Model pingpong_mlp() {
  MlpSpec spec;
  spec.layer_sizes = {256, 256, 256, 256};
  return generate_mlp(spec);
}

SessionOptions pingpong_session() {
  SessionOptions s;
  s.stages = 2;
  s.ipusPerReplica = 2;
  s.weight.location.storage = Storage::OffChip;
  s.optimizerState.location.storage = Storage::OffChip;
  return s;
}

}  // namespace

TEST_CASE("A whole-batch host load runs before the compute of its phase, which depends on it") {
  for (std::uint32_t K : {1u, 4u})
    for (bool loop_body : {true, false}) {
      INFO("batch serialisation " << K << ", compute per micro-batch " << loop_body);
      Model m;
      Tensor in;
      in.name = "in";
      in.shape = {32, 64};
      in.kind = TensorKind::Activation;
      m.add_tensor(in);
      ModelOp h;
      h.name = "host_in";
      h.type = OpType::HostLoad;
      h.forward_phase = 0;
      h.per_micro_batch = false;  // the whole batch arrives once
      h.collective_bytes = 32 * 64 * 2;
      h.outputs = {"in"};
      ModelOp f;
      f.name = "f";
      f.forward_phase = 0;
      f.flops = 1e6;
      f.per_micro_batch = loop_body;
      f.inputs = {"in"};
      // The compute is listed first: the lowering must order by data, not by listing.
      m.ops = {f, h};
      SessionOptions s;
      s.batchSerializationFactor = K;
      const PhaseLayout L = assign_phases(m, 1, 0, 1);
      const Program prog = lower_program(m, L, resolve_locations(m, s), s);
      const LPhase& ph = *std::find_if(prog.phases.begin(), prog.phases.end(),
                                       [](const LPhase& p) { return p.index == 0; });
      int host = -1, computes = 0;
      for (std::size_t i = 0; i < ph.ops.size(); ++i)
        if (ph.ops[i].kind == LKind::Host) host = static_cast<int>(i);
      REQUIRE(host >= 0);
      CHECK(ph.ops[host].to_compute);
      bool first = true;
      for (std::size_t i = 0; i < ph.ops.size(); ++i) {
        if (ph.ops[i].kind != LKind::Compute) continue;
        ++computes;
        CHECK(static_cast<int>(i) > host);
        CHECK(ancestors(ph, static_cast<int>(i)).count(host) == 1);
        if (first) {
          // An explicit dependency, not just lane order: the data must have arrived.
          const auto& d = ph.ops[i].deps;
          CHECK(std::find(d.begin(), d.end(), host) != d.end());
          first = false;
        }
      }
      CHECK(computes == static_cast<int>(loop_body ? K : 1));
    }
}

TEST_CASE(
    "Ping-pong: inter-phase IpuCopies follow the producing compute and precede the phase's "
    "stores") {
  for (TileSet load : {TileSet::Compute, TileSet::Io})
    for (PhaseSchedule sched : {PhaseSchedule::Interleaving, PhaseSchedule::Batch}) {
      INFO("load tiles " << (load == TileSet::Io ? "io" : "compute") << ", schedule "
                         << static_cast<int>(sched));
      Model m = pingpong_mlp();
      SessionOptions s = pingpong_session();
      s.schedule = sched;
      s.numIOTiles = load == TileSet::Io ? 64 : 0;
      s.weight.location.loadTileSet = load;
      s.optimizerState.location.loadTileSet = load;
      const PhaseLayout L = assign_phases(m, 2, 0, 2);
      const Program prog = lower_program(m, L, resolve_locations(m, s), s);
      int copies = 0, copies_with_stores = 0;
      for (const LPhase& ph : prog.phases) {
        for (std::size_t c = 0; c < ph.ops.size(); ++c) {
          const LOp& copy = ph.ops[c];
          if (copy.kind != LKind::IpuCopy) continue;
          INFO("phase " << ph.index << ", copy of " << copy.tensors.at(0));
          ++copies;
          CHECK(copy.dst_vg != copy.vg);
          const std::set<int> before = ancestors(ph, static_cast<int>(c));
          bool stores = false;
          for (std::size_t i = 0; i < ph.ops.size(); ++i) {
            const LOp& op = ph.ops[i];
            if (op.vg != copy.vg) continue;
            // Every compute of the source IPU in this phase precedes the copy (it produced the
            // data).
            if (op.kind == LKind::Compute && op.role != "optimizer")
              CHECK(before.count(static_cast<int>(i)) == 1);
            if (!is_store(op)) continue;
            stores = true;
            CHECK(i > c);                                   // issued after the copy,
            CHECK(before.count(static_cast<int>(i)) == 0);  // and the copy never waits for it
          }
          copies_with_stores += stores ? 1 : 0;
        }
      }
      // One copy per activation, at its producer: x1 (phase 0, read on IPU 1 in phases 1
      // and 3), x2 (1 -> 2), dx2 (2 -> 3), dx1 (3 -> 4).
      CHECK(copies == 4);
      // The phases of dx2 (2, IPU 0) and dx1 (3, IPU 1) also store fc3's and fc2's updated
      // weights and optimizer state.
      CHECK(copies_with_stores == 2);
    }
}

TEST_CASE(
    "Ping-pong with off-chip activations: one read on the other IPU moves by an IpuCopy at the "
    "end of its producing phase, not through streaming memory") {
  // PopART (Test2x2S1ExecutionPhase; StreamingMemoryOpInserter: an inter-phase IpuCopy's
  // output counts as produced in the next phase, kept live there like any produced tensor):
  // x1 (phase 0, IPU 0 -> read on IPU 1 in 1 and 3), x2 (1 -> 2), dx2 (2 -> 3), dx1 (3 -> 4)
  // each cross once, and no use is more than two phases after the copy's, so nothing is
  // stored or loaded.
  for (std::uint32_t K : {1u, 4u})
    for (TileSet load : {TileSet::Compute, TileSet::Io}) {
      INFO("batch serialisation " << K << ", load tiles "
                                  << (load == TileSet::Io ? "io" : "compute"));
      Model m = pingpong_mlp();
      SessionOptions s = pingpong_session();
      s.batchSerializationFactor = K;
      s.numIOTiles = load == TileSet::Io ? 64 : 0;
      s.activation.location.storage = Storage::OffChip;
      s.activation.location.loadTileSet = load;
      s.activationIOSchedule = IOSchedule::Preload;
      const PhaseLayout L = assign_phases(m, 2, 0, 2);
      const Program prog = lower_program(m, L, resolve_locations(m, s), s);
      std::set<std::string> copies;
      for (const LPhase& ph : prog.phases)
        for (std::size_t c = 0; c < ph.ops.size(); ++c) {
          const LOp& op = ph.ops[c];
          for (const LTransfer& t : op.transfers) {
            INFO("phase " << ph.index << " moves " << t.tensor);
            CHECK(m.tensor(base_name(t.tensor)).kind != TensorKind::Activation);
          }
          if (op.kind != LKind::IpuCopy) continue;
          copies.insert(std::to_string(ph.index) + ":" + op.tensors.at(0) + ":" +
                        std::to_string(op.vg) + "->" + std::to_string(op.dst_vg));
          // After every compute of the source IPU in this phase (it produced the data).
          const std::set<int> before = ancestors(ph, static_cast<int>(c));
          for (std::size_t i = 0; i < ph.ops.size(); ++i)
            if (ph.ops[i].vg == op.vg && ph.ops[i].kind == LKind::Compute &&
                ph.ops[i].role != "optimizer")
              CHECK(before.count(static_cast<int>(i)) == 1);
        }
      CHECK(copies == std::set<std::string>{"0:x1:0->1", "1:x2:1->0", "2:dx2:0->1", "3:dx1:1->0"});
    }
}
