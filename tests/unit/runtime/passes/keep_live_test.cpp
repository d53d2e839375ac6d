// PopART's keep-live rule for execution phases (popart_semantics.md §3.1, E33): a use in
// phase p is served without a load when the copy on its IPU was live — produced, loaded, read
// or modified — in p-1 or p-2 (StreamingMemoryOpInserter::getTensorStreamingConfig marks every
// consumer's phase live); the store moves to the last phase of that run; batch-serialised
// activations follow the same rule. The PopART tests themselves: popart_phase_conformance_test.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "runtime/passes/pass_locations.hpp"
#include "runtime/passes/pass_lower.hpp"
#include "runtime/passes/pass_phases.hpp"
#include "runtime/passes/pass_remote_io.hpp"

using namespace ipusim::rt;

namespace {

TensorUse use(int phase, int vg, bool reads, bool writes) { return {phase, vg, reads, writes}; }

/// One activation `a` ([2, 100] float) produced by op `prod` in phase 0 and read by one op in
/// each of `reads` (forward phases), batch-serialised `K` ways, off chip, OnDemand.
struct ChainCase {
  Model model;
  SessionOptions session;
};

ChainCase activation_chain(const std::vector<int>& reads, std::uint32_t K) {
  ChainCase c;
  Tensor a;
  a.name = "a";
  a.shape = {2, 100};
  a.dtype = DType::Float32;
  a.kind = TensorKind::Activation;
  a.per_micro_batch = true;
  c.model.add_tensor(a);
  ModelOp prod;
  prod.name = "prod";
  prod.forward_phase = 0;
  prod.outputs = {"a"};
  c.model.ops.push_back(prod);
  int last = 0;
  for (int p : reads) {
    ModelOp r;
    r.name = "read" + std::to_string(p);
    r.forward_phase = p;
    r.inputs = {"a"};
    c.model.ops.push_back(r);
    last = std::max(last, p);
  }
  c.model.forward_phases = last + 1;
  c.session.stages = 1;
  c.session.batchSerializationFactor = K;
  c.session.activation.location.storage = Storage::OffChip;
  c.session.activationIOSchedule = IOSchedule::OnDemand;
  return c;
}

/// Remote transfers of `a` per phase: (stores, loads), counting micro-batch copies "a[i]".
std::map<int, std::pair<int, int>> transfers_of_a(const Program& prog) {
  std::map<int, std::pair<int, int>> out;
  for (const LPhase& ph : prog.phases)
    for (const LOp& op : ph.ops)
      for (const LTransfer& t : op.transfers)
        if (t.tensor.rfind("a", 0) == 0)
          (t.store ? out[ph.index].first : out[ph.index].second) += 1;
  return out;
}

Program lower(ChainCase& c) {
  const PhaseLayout L = assign_phases(c.model, 1, 0, 1);
  return lower_program(c.model, L, resolve_locations(c.model, c.session), c.session);
}

}  // namespace

TEST_CASE("keep-live: a copy produced, loaded or read in p-1 or p-2 serves phase p",
          "[passes][keep_live]") {
  // E33's x3: produced in 2, read in 3, 5 and 6 -> the read in 3 keeps it live for 5, and 5
  // for 6: never reloaded (so never stored: Test1x0S1ExecutionPhase stores N - 3 activations).
  const std::vector<TensorUse> x3 = {use(2, 0, false, true), use(3, 0, true, false),
                                     use(5, 0, true, false), use(6, 0, true, false)};
  CHECK(loads_needed(x3, KeepLive{}, true, true) == std::vector<bool>{false, false, false, false});
  // Three phases after the last use it is gone: reloaded for 6, and that load serves 7 (a
  // batch-serialised loop's step buffers, loads_renew false, would not).
  const std::vector<TensorUse> gap = {use(2, 0, false, true), use(3, 0, true, false),
                                      use(6, 0, true, false), use(7, 0, true, false)};
  CHECK(loads_needed(gap, KeepLive{}, true, true) == std::vector<bool>{false, false, true, false});
  CHECK(loads_needed(gap, KeepLive{}, true, false) == std::vector<bool>{false, false, true, true});
  // Ping-pong: produced on IPU 0 in phase 0; IPU 1 loads it for phase 1; IPU 0 keeps it for
  // phase 2 (p-2) and, renewed there, not for phase 5.
  const std::vector<TensorUse> pp = {use(0, 0, false, true), use(1, 1, true, false),
                                     use(2, 0, true, false), use(5, 0, true, false)};
  CHECK(loads_needed(pp, KeepLive{}, true, true) == std::vector<bool>{false, true, false, true});
  // A weight (a write updates a loaded value): loaded for phase 1, kept for 3, updated in 3,
  // so kept for 5, reloaded for 8.
  const std::vector<TensorUse> w = {use(1, 0, true, false), use(3, 0, true, true),
                                    use(5, 0, true, false), use(8, 0, true, false)};
  CHECK(loads_needed(w, KeepLive{}, false, true) == std::vector<bool>{true, false, false, true});
  // Its store: after the update in 3 the copy serves 5, so PopART stores it there, not in 3.
  const std::vector<bool> need = loads_needed(w, KeepLive{}, false, true);
  CHECK(served_later(w, need, 1));
  CHECK_FALSE(served_later(w, need, 2));
}

TEST_CASE(
    "batch serialisation: an activation read within two phases is kept, and stored once in the "
    "last phase that keeps it",
    "[passes][keep_live]") {
  // Produced in phase 0, read in 1 and 2 (kept: each read renews it) and in 5 (5 - 2 = 3:
  // reloaded), K = 4 micro-batches: one store per micro-batch in phase 2, where PopART moves
  // the store from the producing phase, and one load per micro-batch in 5.
  ChainCase c = activation_chain({1, 2, 5}, 4);
  const auto tr = transfers_of_a(lower(c));
  CHECK(tr.count(0) == 0);
  CHECK(tr.count(1) == 0);
  CHECK(tr.at(2) == std::make_pair(4, 0));
  CHECK(tr.at(5) == std::make_pair(0, 4));
  // Read in 1, 2 and 4 (4 - 2 = 2): never stored, never loaded.
  ChainCase kept = activation_chain({1, 2, 4}, 4);
  CHECK(transfers_of_a(lower(kept)).empty());
}

TEST_CASE(
    "two stages (ping-pong): an IPU keeps an activation it reads every other phase, no store, no "
    "reload",
    "[passes][keep_live]") {
  // Stages 2 on 2 IPUs: phases 0, 2, 4, 6 run on IPU 0. Produced in 0 and read in 2, 4 and 6:
  // each read keeps it live for the next (p-2 is the same IPU). Before reads renewed the copy,
  // it was stored in 0 and reloaded per micro-batch for 4 and again for 6 (4 x 3 transfers).
  ChainCase c = activation_chain({2, 4, 6}, 4);
  c.session.stages = 2;
  c.session.ipusPerReplica = 2;
  const PhaseLayout L = assign_phases(c.model, 2, 0, 2);
  const Program prog = lower_program(c.model, L, resolve_locations(c.model, c.session), c.session);
  CHECK(transfers_of_a(prog).empty());
}

TEST_CASE(
    "two stages (ping-pong): an activation read on the other IPU is IpuCopied there, then kept, "
    "stored and reloaded on that IPU",
    "[passes][keep_live]") {
  // Produced on IPU 0 in phase 0, read on IPU 1 in phases 1 and 7. PopART copies it to IPU 1
  // at the end of phase 0 (the copy counts as produced in phase 1); IPU 1 stores its copy in
  // phase 1 (the last phase that keeps it before the gap) and reloads it for 7, from a remote
  // buffer of its own. IPU 0 never reads it again, so it stores nothing.
  ChainCase c = activation_chain({1, 7}, 4);
  c.session.stages = 2;
  c.session.ipusPerReplica = 2;
  const PhaseLayout L = assign_phases(c.model, 2, 0, 2);
  const Program prog = lower_program(c.model, L, resolve_locations(c.model, c.session), c.session);
  const auto tr = transfers_of_a(prog);
  CHECK(tr.size() == 2);
  CHECK(tr.at(1) == std::make_pair(4, 0));
  CHECK(tr.at(7) == std::make_pair(0, 4));
  int copies = 0;
  for (const LPhase& ph : prog.phases)
    for (const LOp& op : ph.ops) {
      if (op.kind == LKind::IpuCopy) {
        ++copies;
        CHECK((ph.index == 0 && op.vg == 0 && op.dst_vg == 1));
        CHECK(op.bytes == 4u * 2 * 100 * 4);  // every micro-batch of a
      }
      if (!op.transfers.empty()) CHECK(op.vg == 1);
    }
  CHECK(copies == 1);
  bool buffer_on_1 = false;
  for (const RemoteBuffer& b : prog.remote_buffers) buffer_on_1 |= b.tensor == "a" && b.vg == 1;
  CHECK(buffer_on_1);
}

TEST_CASE(
    "batch serialisation: a kept activation holds all its micro-batches in SRAM between the phases",
    "[passes][keep_live]") {
  ChainCase c = activation_chain({2}, 4);
  const Program prog = lower(c);
  // 4 micro-batches x 2 x 100 floats live in phases 0, 1 and 2 (produced in 0, kept to 2).
  for (const LPhase& ph : prog.phases) {
    if (ph.index < 0) continue;
    std::uint64_t bytes = 0;
    for (const MemoryItem& m : ph.memory[0])
      if (m.tensor == "a" && m.what == "activation") bytes += m.bytes;
    INFO("phase " << ph.index);
    CHECK(bytes == (ph.index <= 2 ? 4u * 2 * 100 * 4 : 0u));
  }
}

TEST_CASE(
    "popxl programs (io_mode set) keep what a use in the last `stages` phases left, and never "
    "their x/dx buffers",
    "[passes][keep_live]") {
  SessionOptions popxl;
  popxl.io_mode = IoMode::Io;
  popxl.stages = 1;
  const KeepLive rule = keep_live_rule(popxl);
  CHECK((rule.window == 1 && !rule.never));
  CHECK(keep_live_rule(SessionOptions{}).window == 2);  // PopART's implicit program
  // A weight read in 1, 2, 3 and 5: each read renews the copy for the next phase only.
  const std::vector<TensorUse> w = {use(1, 0, true, false), use(2, 0, true, false),
                                    use(3, 0, true, false), use(5, 0, true, false)};
  CHECK(loads_needed(w, rule, false, true) == std::vector<bool>{true, false, false, true});
  // The batch-serialised activation of the chain above is stored in phase 0 and loaded in
  // every later phase that reads it, one transfer per micro-batch.
  ChainCase c = activation_chain({1, 2, 4}, 4);
  c.session.io_mode = IoMode::Compute;
  const auto tr = transfers_of_a(lower(c));
  CHECK(tr.at(0) == std::make_pair(4, 0));
  CHECK(tr.at(1) == std::make_pair(0, 4));
  CHECK(tr.at(2) == std::make_pair(0, 4));
  CHECK(tr.at(4) == std::make_pair(0, 4));
}
