// E33 (popart Test1x0S1ExecutionPhase, popart_semantics.md §2.8) against the lowered
// program: op order inside each phase and the counts of preloads and stores per phase.
#include <catch2/catch.hpp>
#include <map>

#include "runtime/passes/pass_locations.hpp"
#include "runtime/passes/pass_lower.hpp"
#include "runtime/passes/pass_phases.hpp"

using namespace ipusim::rt;

namespace {

constexpr int kN = 5;                          // layers = phases
constexpr std::uint64_t kWeightBytes = 40000;  // [1,100,100] float
constexpr std::uint64_t kActBytes = 3200;      // [8,1,100] float: the whole batch

/// N layers matmul+relu on VGID 0, layer n in phase n; x0 is the graph input, x_{n+1} the
/// output of layer n (whole batch: PopART joins the serialised chains at phase changes);
/// the backward of layer n reads w_n, x_n and dx_{n+1}; SGD without state updates w_n.
Model e33_model() {
  Model m;
  auto tensor = [&](const std::string& name, std::vector<std::int64_t> shape, TensorKind kind) {
    Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.dtype = DType::Float32;
    t.kind = kind;
    m.add_tensor(t);
  };
  for (int n = 0; n <= kN; ++n)
    tensor("x" + std::to_string(n), {8, 1, 100}, TensorKind::Activation);
  for (int n = 1; n <= kN; ++n)
    tensor("dx" + std::to_string(n), {8, 1, 100}, TensorKind::Activation);
  for (int n = 0; n < kN; ++n) {
    const std::string s = std::to_string(n), w = "w" + s, g = w + "/grad";
    tensor(w, {1, 100, 100}, TensorKind::Weight);
    tensor(g, {1, 100, 100}, TensorKind::Gradient);
    ModelOp f;
    f.name = "mm_relu" + s;
    f.forward_phase = n;
    f.flops = 2.0 * 8 * 100 * 100;
    f.dtype = DType::Float32;
    f.inputs = {w, "x" + s};
    f.outputs = {"x" + std::to_string(n + 1)};
    if (n + 1 == kN) f.outputs.push_back("dx" + std::to_string(kN));  // the L1 loss in phase N-1
    ModelOp b = f;
    b.name += "/grad";
    b.pass = Pass::Backward;
    b.inputs = {w, "x" + s, "dx" + std::to_string(n + 1)};
    b.outputs = {g};
    if (n > 0) b.outputs.push_back("dx" + s);
    ModelOp u;
    u.name = w + "/sgd";
    u.pass = Pass::Optimizer;
    u.forward_phase = n;
    u.per_micro_batch = false;
    u.inputs = {w, g};
    u.outputs = {w};
    m.ops.insert(m.ops.end(), {f, b, u});
  }
  return m;
}

/// Batch 8 serialised 4 ways, 5 phases, stages 1, every IO schedule Preload, schedule
/// Batch, 192 IO tiles, every category OffChip through IO tiles.
SessionOptions e33_session() {
  SessionOptions s;
  s.stages = 1;
  s.phases = kN;
  s.batchSerializationFactor = 4;
  s.weightIOSchedule = s.activationIOSchedule = s.optimizerStateIOSchedule =
      s.accumulatorIOSchedule = IOSchedule::Preload;
  s.schedule = PhaseSchedule::Batch;
  s.numIOTiles = 192;
  TensorLocation loc;
  loc.storage = Storage::OffChip;
  loc.loadTileSet = loc.storageTileSet = TileSet::Io;
  for (LocationSettings* c : {&s.weight, &s.optimizerState, &s.accumulator, &s.activation})
    c->location = loc;
  return s;
}

Program lower_e33() {
  Model m = e33_model();
  const SessionOptions s = e33_session();
  const PhaseLayout L = assign_phases(m, s.stages, s.phases, 1);
  REQUIRE(L.total_phases == 2 * kN - 1);
  return lower_program(m, L, resolve_locations(m, s), s);
}

/// Remote transfers of one phase, by direction and tensor kind ('w' weight, 'x' activation).
struct Counts {
  std::map<char, int> preloads, stores;
  std::map<char, std::uint64_t> preload_bytes;
};

Counts count(const LPhase& ph) {
  Counts c;
  for (const LOp& op : ph.ops)
    for (const LTransfer& t : op.transfers) {
      const char k = t.tensor[0] == 'w' ? 'w' : 'x';
      if (t.store) {
        ++c.stores[k];
      } else if (t.schedule == IOSchedule::Preload && t.for_phase == ph.index + 1) {
        ++c.preloads[k];
        c.preload_bytes[k] += t.bytes;
      }
    }
  return c;
}

bool is_load(const LOp& op) {
  return op.kind == LKind::RemoteExchange && !op.transfers.empty() && !op.transfers[0].store;
}
bool is_store(const LOp& op) {
  return op.kind == LKind::RemoteExchange && !op.transfers.empty() && op.transfers[0].store;
}

}  // namespace

TEST_CASE("E33: in each phase RemoteLoad before IoTileCopy before RemoteStore (schedule Batch)") {
  const Program prog = lower_e33();
  REQUIRE(prog.phases.front().index == -1);
  REQUIRE(prog.phases.back().index == 2 * kN - 2);
  for (const LPhase& ph : prog.phases) {
    INFO("phase " << ph.index);
    bool copy_seen = false, store_seen = false;
    for (const LOp& op : ph.ops) {
      if (is_load(op)) {
        CHECK_FALSE(copy_seen);
        CHECK_FALSE(store_seen);
      }
      if (op.kind == LKind::IoCopy) {
        CHECK_FALSE(store_seen);
        copy_seen = true;
      }
      if (is_store(op)) store_seen = true;
    }
  }
}

TEST_CASE(
    "E33: one preloaded weight in phases -1..N-2, one stored activation in 1..N-3 (N-3 in all), "
    "one stored weight from N-1") {
  const Program prog = lower_e33();
  int preloaded_fwd_weights = 0, stored_weights = 0, stored_activations = 0;
  for (const LPhase& ph : prog.phases) {
    INFO("phase " << ph.index);
    Counts c = count(ph);
    const int p = ph.index;
    // The three counts the popart test asserts (ops with priority != 0).
    if (p < kN - 1) CHECK(c.preloads['w'] == 1);
    if (p > 0 && p < kN - 2) CHECK(c.stores['x'] == 1);
    if (p >= kN - 1) CHECK(c.stores['w'] == 1);
    if (p < kN - 1) preloaded_fwd_weights += c.preloads['w'];
    stored_weights += c.stores['w'];
    stored_activations += c.stores['x'];
    // Hand-derived from the rules of §3.1 (a tensor live — produced, loaded, read or modified —
    // in p-1 or p-2 is kept for phase p; the store moves to the last phase of that run): the
    // forward phases store no weight and preload no activation; x1 (produced in 0, read in 1
    // and 7) is stored in 1, x2 (1, 2, 6) in 2; x3 (2, 3, 5) and x4 (3, 4) are never
    // stored, so phases 0 and N-2 store nothing.
    if (p < kN - 1) {
      CHECK(c.stores['w'] == 0);
      CHECK(c.preloads['x'] == 0);
    }
    if (p == 0 || p == kN - 2 || p >= kN - 1) CHECK(c.stores['x'] == 0);
    // Backward (the test's comment: "phases N, ..., 2N-4: load a weight and an activation";
    // "2N-3: load a weight"): phases N..2N-4 preload an activation for the next phase (x_n for
    // the backward of layer n); phase N-1 none: x_{N-2} was read in N-2. Phases N..2N-3 preload
    // a weight (w_{2N-3-p}), phase N-1 none: w_{N-2}, loaded for phase N-2, is still live (p-2)
    // in its backward phase N. Phase 2N-3 preloads only w0 (x0 is the input), the last phase
    // nothing.
    if (p >= kN - 1 && p <= 2 * kN - 4) {
      CHECK(c.preloads['w'] == (p == kN - 1 ? 0 : 1));
      CHECK(c.preloads['x'] == (p == kN - 1 ? 0 : 1));
      if (p > kN - 1)  // the whole batch once, not once per micro-batch
        CHECK(c.preload_bytes['x'] == kActBytes);
    }
    if (p == 2 * kN - 3) CHECK((c.preloads['w'] == 1 && c.preloads['x'] == 0));
    if (p == 2 * kN - 2) CHECK((c.preloads['w'] == 0 && c.preloads['x'] == 0));
    if (c.preloads['w'] > 0) CHECK(c.preload_bytes['w'] == kWeightBytes);
  }
  CHECK(preloaded_fwd_weights == kN);
  CHECK(stored_weights == kN);
  CHECK(stored_activations == kN - 3);  // the test's comment: "#N - 3 in total"
}

TEST_CASE(
    "E33: what is preloaded through IO tiles is copied to the compute tiles at the start of its "
    "phase") {
  const Program prog = lower_e33();
  for (std::size_t i = 1; i < prog.phases.size(); ++i) {
    const LPhase& ph = prog.phases[i];
    INFO("phase " << ph.index);
    std::uint64_t preloaded = 0;
    for (const auto& [k, b] : count(prog.phases[i - 1]).preload_bytes) preloaded += b;
    std::uint64_t copied = 0;
    for (const LOp& op : ph.ops)
      if (op.kind == LKind::IoCopy && op.to_compute) copied += op.bytes;
    CHECK(copied == preloaded);
    // Stores go through a copy to the IO tiles of the same bytes.
    std::uint64_t stored = 0, copied_out = 0;
    for (const LOp& op : ph.ops) {
      if (is_store(op)) stored += op.bytes;
      if (op.kind == LKind::IoCopy && !op.to_compute) copied_out += op.bytes;
    }
    CHECK(copied_out == stored);
  }
}

TEST_CASE(
    "A weight homed on IO tiles is also counted on the compute tiles of the phase that uses it") {
  const Program prog = lower_e33();
  for (const LPhase& ph : prog.phases) {
    if (ph.index != 1) continue;
    std::map<std::string, std::uint64_t> compute, io;
    for (const MemoryItem& m : ph.memory[0])
      (m.tiles == TileSet::Compute ? compute : io)[m.tensor + " " + m.what] += m.bytes;
    CHECK(compute["w1 weight"] == kWeightBytes);            // the copy the matmul reads
    CHECK(io["w1 weight (IO-tile home)"] == kWeightBytes);  // storageTileSet io
    CHECK(io["w2 prefetch"] == kWeightBytes);               // preloaded for phase 2
  }
}

TEST_CASE("E33: one IoTileCopy per tensor, naming it, not one per bundle of tensors") {
  const Program prog = lower_e33();
  int copies = 0;
  for (const LPhase& ph : prog.phases) {
    std::map<std::string, std::uint64_t> to_compute;
    for (const LOp& op : ph.ops) {
      if (op.kind != LKind::IoCopy) continue;
      ++copies;
      REQUIRE(op.tensors.size() == 1);
      if (op.to_compute) to_compute[op.tensors[0]] += op.bytes;
    }
    // Phase 2N-4 = 6 (backward of layer 2) gets w2 and x2, preloaded together in phase 5:
    // two copies of their own sizes (E34's "IoCopy->C" per tensor).
    if (ph.index == 2 * kN - 4) {
      CHECK(to_compute ==
            std::map<std::string, std::uint64_t>{{"w2", kWeightBytes}, {"x2", kActBytes}});
    }
  }
  CHECK(copies > 0);
}
