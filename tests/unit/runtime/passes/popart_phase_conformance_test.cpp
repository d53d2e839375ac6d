// Conformance with PopART's own execution-phase tests: graphcore/popart
// tests/integration/streamingmemory_tests/executionphase_sharding_test.cpp (BOOST test cases
// named below). Each case builds the test's model in ipusim's IR — N matmul+ReLU layers on
// VGID 0 (or on two VGIDs per phase, Test2x0S2), layer n in execution phase n * stride, the L1
// loss in the last forward layer's phase — with the test's settings, lowers it, and asserts
// the remote loads and stores per phase that the PopART test asserts on its IR (its comments
// give the intended phases where its `kv.first % k` checks skip phase -1). An activation read
// on another IPU is one ipusim tensor used on both VGIDs; PopART's IpuCopy of it is ipusim's
// IpuCopy op plus the copy's uses (Lowerer::add_copy_uses).
//
// Phase numbering: ipusim's LPhase::index is PopART's ExecutionPhase. Forward phases are
// 0..P-1 (P = executionPhaseSettings.phases), the backward op of a forward op in phase f runs
// in 2P-2-f, and what is preloaded for phase 0 runs in phase -1 (ipusim's prologue).
// PopART's per-phase tuple (on-demand loads, preloads, on-demand stores, scheduled stores)
// splits the RemoteLoad/RemoteStore ops by schedule priority (0 = on demand); ipusim's
// LTransfer carries that schedule. One ipusim transfer of "x[i]" is one PopART op on the
// micro-batch slice i (the tests set concatOnExecutionPhaseChange = false, so each slice is
// loaded and stored on its own; ipusim moves OnDemand batch-serialised activations per
// micro-batch).
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "runtime/passes/pass_locations.hpp"
#include "runtime/passes/pass_lower.hpp"
#include "runtime/passes/pass_phases.hpp"

using namespace ipusim::rt;

namespace {

constexpr int kN = 5;            // layers
constexpr std::uint32_t kK = 4;  // batchSerializationSettings.factor

/// The model of Test1x0S{stride}ExecutionPhase: batch 8, float weights [1,100,100]. x0 is the
/// network input, sliced into micro-batches in phase 0 (PopART's batch-serialisation slices:
/// an activation produced there); x_{n+1} is the ReLU output of layer n; dx_n the gradient
/// flowing into layer n. The backward of layer n reads x_n (weight gradient), w_n (input
/// gradient, n > 0), x_{n+1} (ReLU gradient) and dx_{n+1}; SGD without state updates w_n.
Model strided_chain(int stride) {
  Model m;
  auto tensor = [&](const std::string& name, std::vector<std::int64_t> shape, TensorKind kind) {
    Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.dtype = DType::Float32;
    t.kind = kind;
    t.per_micro_batch = kind == TensorKind::Activation;
    m.add_tensor(t);
  };
  for (int n = 0; n <= kN; ++n) tensor("x" + std::to_string(n), {8, 100}, TensorKind::Activation);
  for (int n = 1; n <= kN; ++n) tensor("dx" + std::to_string(n), {8, 100}, TensorKind::Activation);
  ModelOp slice;
  slice.name = "input_slices";
  slice.forward_phase = 0;
  slice.op_class = OpClass::Elementwise;
  slice.outputs = {"x0"};
  m.ops.push_back(slice);
  for (int n = 0; n < kN; ++n) {
    const std::string s = std::to_string(n), w = "w" + s, g = w + "/grad";
    const std::string x_in = "x" + s, x_out = "x" + std::to_string(n + 1);
    tensor(w, {1, 100, 100}, TensorKind::Weight);
    tensor(g, {1, 100, 100}, TensorKind::Gradient);
    ModelOp f;
    f.name = "mm_relu" + s;
    f.forward_phase = n * stride;
    f.flops = 2.0 * 8 * 100 * 100;
    f.dtype = DType::Float32;
    f.inputs = {w, x_in};
    f.outputs = {x_out};
    if (n + 1 == kN) f.outputs.push_back("dx" + std::to_string(kN));  // the L1 loss
    ModelOp b = f;
    b.name += "/grad";
    b.pass = Pass::Backward;
    b.inputs = {x_in, x_out, "dx" + std::to_string(n + 1)};
    if (n > 0) b.inputs.push_back(w);
    b.outputs = {g};
    if (n > 0) b.outputs.push_back("dx" + s);
    ModelOp u;
    u.name = w + "/sgd";
    u.pass = Pass::Optimizer;
    u.forward_phase = n * stride;
    u.per_micro_batch = false;
    u.inputs = {w, g};
    u.outputs = {w};
    m.ops.insert(m.ops.end(), {f, b, u});
  }
  return m;
}

/// The tests' settings: phases = N * stride - (stride - 1), stages 1, batch serialisation 4,
/// activations OnDemand (weights Preload, the default), every category OffChip; optionally
/// activations loaded through 192 IO tiles.
SessionOptions strided_session(int stride, bool activations_through_io_tiles) {
  SessionOptions s;
  s.stages = 1;
  s.phases = kN * stride - (stride - 1);
  s.batchSerializationFactor = kK;
  s.activationIOSchedule = IOSchedule::OnDemand;
  TensorLocation loc;
  loc.storage = Storage::OffChip;
  for (LocationSettings* c : {&s.weight, &s.optimizerState, &s.accumulator, &s.activation})
    c->location = loc;
  if (activations_through_io_tiles) {
    s.activation.location.loadTileSet = TileSet::Io;
    s.numIOTiles = 192;
  }
  return s;
}

/// PopART's tuple per phase, plus the IoTileCopy ops.
struct PhaseCounts {
  int on_demand_loads = 0, preloads = 0, on_demand_stores = 0, scheduled_stores = 0;
  int io_tile_copies = 0;
  int weight_preloads = 0, weight_stores = 0;
};

std::map<int, PhaseCounts> lower_and_count(int stride, bool io_tiles) {
  Model m = strided_chain(stride);
  const SessionOptions s = strided_session(stride, io_tiles);
  const PhaseLayout L = assign_phases(m, s.stages, s.phases, 1);
  REQUIRE(L.total_phases == 2 * s.phases - 1);
  const Program prog = lower_program(m, L, resolve_locations(m, s), s);
  std::map<int, PhaseCounts> out;
  for (const LPhase& ph : prog.phases) {
    PhaseCounts& c = out[ph.index];
    for (const LOp& op : ph.ops) {
      if (op.kind == LKind::IoCopy) ++c.io_tile_copies;
      for (const LTransfer& t : op.transfers) {
        const bool on_demand = t.schedule == IOSchedule::OnDemand;
        const bool weight = t.tensor[0] == 'w';
        if (t.store) {
          ++(on_demand ? c.on_demand_stores : c.scheduled_stores);
          if (weight) ++c.weight_stores;
        } else {
          ++(on_demand ? c.on_demand_loads : c.preloads);
          if (!on_demand) CHECK(t.for_phase == ph.index + 1);  // a preload serves the next phase
          if (weight && !on_demand) ++c.weight_preloads;
        }
      }
    }
  }
  return out;
}

int total(const std::map<int, PhaseCounts>& counts, int PhaseCounts::*field) {
  int sum = 0;
  for (const auto& [p, c] : counts) sum += c.*field;
  return sum;
}

}  // namespace

TEST_CASE(
    "PopART Test1x0S2ExecutionPhase: with phase stride 2 the activations stay live between "
    "adjacent layers, one on-demand load per backward phase",
    "[passes][popart_conformance]") {
  const int P = 2 * kN - 1;  // 9 forward phases; layers in 0, 2, ..., 8; backward 16 - 2n
  const std::map<int, PhaseCounts> c = lower_and_count(2, false);
  for (int p = -1; p <= 2 * P - 2; ++p) {
    INFO("phase " << p);
    const PhaseCounts x = c.count(p) ? c.at(p) : PhaseCounts{};
    const bool odd = p % 2 != 0;  // includes -1, which the test's comment lists
    // 1.) phases -1, 1, ..., 7 preload one weight (the forward layers').
    if (p < P - 1 && odd) CHECK(x.preloads == 1);
    // 2.) phases 0, 2, 4, 6 store #batchSerialize activations on demand.
    if (p < P - 1 && !odd) CHECK(x.on_demand_stores == static_cast<int>(kK));
    // 3.) phases 10, 12, 14, 16 load #batchSerialize activations on demand.
    if (p > P - 1 && !odd) CHECK(x.on_demand_loads == static_cast<int>(kK));
    // 4.) phases 8, 10, ..., 16 store one weight (scheduled).
    if (p >= P - 1 && !odd) CHECK(x.scheduled_stores == 1);
    // 5.) phases 9, 11, 13, 15 preload one weight: phase 7's load of w4 serves its forward
    //     and backward (both in phase 8).
    if (p > P - 1 && odd) CHECK(x.preloads == 1);
  }
  // Totals the test's comments state: N preloaded forward weights, N - 1 backward ones, N
  // stored weights.
  CHECK(total(c, &PhaseCounts::weight_preloads) == 2 * kN - 1);
  CHECK(total(c, &PhaseCounts::weight_stores) == kN);
  // Hand-derived from PopART's rule (a consumer phase keeps the tensor live for the next two
  // phases; the store moves to the last phase of that run): x0 is stored in phase 0, x1..x3
  // in 2, 4, 6 (produced one layer earlier, still live there), and only those four are
  // reloaded (in 16, 14, 12, 10); x4, x5 and the gradients never leave the chip.
  CHECK(total(c, &PhaseCounts::on_demand_stores) == 4 * static_cast<int>(kK));
  CHECK(total(c, &PhaseCounts::on_demand_loads) == 4 * static_cast<int>(kK));
}

TEST_CASE(
    "PopART Test1x0S4ExecutionPhase: with phase stride 4 every activation is stored and "
    "reloaded, through IO tiles one IoTileCopy per transfer",
    "[passes][popart_conformance]") {
  const int P = 4 * kN - 3;  // 17 forward phases; layers in 0, 4, ..., 16; backward 32 - 4n
  const int K = static_cast<int>(kK);
  for (const bool io_tiles : {false, true}) {
    const std::map<int, PhaseCounts> c = lower_and_count(4, io_tiles);
    for (int p = -1; p <= 2 * P - 2; ++p) {
      INFO("phase " << p << (io_tiles ? " (activations through IO tiles)" : ""));
      const PhaseCounts x = c.count(p) ? c.at(p) : PhaseCounts{};
      const bool layer_phase = p >= 0 && p % 4 == 0;
      // 1.) phases -1, 3, 7, ..., 31 preload one weight (the test's comment; its check
      //     `% 4 == 1` never matches a phase that has remote ops).
      if ((p + 1) % 4 == 0 && p < 2 * P - 2) CHECK(x.preloads == 1);
      // 2.) phase 0 stores 2 * #batchSerialize activations (the output and the network input).
      if (p == 0) CHECK(x.on_demand_stores == 2 * K);
      // 3.) phases 4, 8, ..., 28 store #batchSerialize activations on demand.
      if (layer_phase && p > 0 && p < 2 * P - 2) CHECK(x.on_demand_stores == K);
      // 4.) phases 4, ..., 16 load #batchSerialize activations on demand.
      if (layer_phase && p > 0 && p < P + 3) CHECK(x.on_demand_loads == K);
      // 5.) phases 20, ..., 32 load 3 * #batchSerialize (two forward activations + gradient).
      if (layer_phase && p >= P + 3) CHECK(x.on_demand_loads == 3 * K);
      // 6.) phases 16, ..., 32 store one weight.
      if (layer_phase && p >= P - 1) CHECK(x.scheduled_stores == 1);
      // 7.) one IoTileCopy per activation loaded or stored through IO tiles, none without.
      CHECK(x.io_tile_copies == (io_tiles ? x.on_demand_loads + x.on_demand_stores : 0));
    }
  }
}

namespace {

/// The model of Test2x0S2ExecutionPhase: two IPUs compute in every layer phase (stages 1);
/// step n = 0..2N-1 runs in phase 2n with one block (n even) or two (n odd) of matmul+ReLU
/// per IPU, each block's outputs crossing to the other IPU (inside the phase between two
/// blocks, or into the next step). The input [8, 200] is sliced in phase 0 on VGID 0 (s0,
/// s1); the sum and the L1 loss run in phase 4N-2 on VGID 0. The backward of a block reads its
/// input (weight gradient), its weight, its ReLU output and that output's gradient, and
/// produces its input's gradient (not the slices').
Model two_ipu_chain() {
  Model m;
  auto tensor = [&](const std::string& name, std::vector<std::int64_t> shape, TensorKind kind) {
    Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.dtype = DType::Float32;
    t.kind = kind;
    t.per_micro_batch = kind == TensorKind::Activation;
    m.add_tensor(t);
  };
  tensor("s0", {8, 100}, TensorKind::Activation);
  tensor("s1", {8, 100}, TensorKind::Activation);
  ModelOp slices;
  slices.name = "slices";
  slices.phase = 0;
  slices.vgraph = 0;
  slices.op_class = OpClass::Elementwise;
  slices.outputs = {"s0", "s1"};
  m.ops.push_back(slices);
  std::vector<ModelOp> backward;  // in reverse order of the forward
  std::vector<std::string> in = {"s0", "s1"};
  for (int n = 0; n < 2 * kN; ++n) {
    for (int j = 0; j < 1 + n % 2; ++j) {
      std::vector<std::string> out(2);
      for (int vg = 0; vg < 2; ++vg) {
        const std::string id =
            std::to_string(n) + "_" + std::to_string(j) + "_" + std::to_string(vg);
        const std::string w = "w" + id, r = "r" + id;
        tensor(w, {1, 100, 100}, TensorKind::Weight);
        tensor(w + "/grad", {1, 100, 100}, TensorKind::Gradient);
        tensor(r, {8, 100}, TensorKind::Activation);
        tensor("d" + r, {8, 100}, TensorKind::Activation);
        ModelOp f;
        f.name = "mm_relu" + id;
        f.forward_phase = 2 * n;
        f.vgraph = vg;
        f.flops = 2.0 * 8 * 100 * 100;
        f.dtype = DType::Float32;
        f.inputs = {w, in[vg]};
        f.outputs = {r};
        ModelOp b = f;
        b.name += "/grad";
        b.pass = Pass::Backward;
        b.inputs = {w, in[vg], r, "d" + r};
        b.outputs = {w + "/grad"};
        if (in[vg][0] == 'r') b.outputs.push_back("d" + in[vg]);
        ModelOp u;
        u.name = w + "/sgd";
        u.pass = Pass::Optimizer;
        u.forward_phase = 2 * n;
        u.vgraph = vg;
        u.per_micro_batch = false;
        u.inputs = {w, w + "/grad"};
        u.outputs = {w};
        m.ops.push_back(f);
        backward.insert(backward.begin(), {b, u});
        out[(vg + 1) % 2] = r;  // the other IPU reads it
      }
      in = out;
    }
  }
  ModelOp loss;
  loss.name = "sum_l1loss";
  loss.forward_phase = 4 * kN - 2;
  loss.vgraph = 0;
  loss.op_class = OpClass::Loss;
  loss.inputs = in;
  loss.outputs = {"d" + in[0], "d" + in[1]};
  m.ops.push_back(loss);
  m.ops.insert(m.ops.end(), backward.begin(), backward.end());
  return m;
}

}  // namespace

TEST_CASE(
    "PopART Test2x0S2ExecutionPhase: two IPUs per phase exchange activations by IpuCopy, each "
    "keeps and stores its own copies",
    "[passes][popart_conformance]") {
  Model m = two_ipu_chain();
  SessionOptions s = strided_session(2, false);
  s.phases = 4 * kN - 1;  // 19: steps in 0, 2, ..., 18; backward 36 - 2n
  s.ipusPerReplica = 2;
  const PhaseLayout L = assign_phases(m, s.stages, s.phases, 2);
  const Program prog = lower_program(m, L, resolve_locations(m, s), s);
  std::map<int, PhaseCounts> c;
  for (const LPhase& ph : prog.phases)
    for (const LOp& op : ph.ops)
      for (const LTransfer& t : op.transfers) {
        PhaseCounts& x = c[ph.index];
        const bool weight = t.tensor[0] == 'w';
        if (t.store) ++(weight ? x.scheduled_stores : x.on_demand_stores);
        if (!t.store) ++(t.schedule == IOSchedule::Preload ? x.preloads : x.on_demand_loads);
      }
  const int last = 2 * s.phases - 2;  // 36
  for (int p = -1; p <= last; ++p) {
    INFO("phase " << p);
    const PhaseCounts x = c.count(p) ? c.at(p) : PhaseCounts{};
    const int r = ((p % 4) + 4) % 4;  // -1 -> 3, as the test's comment lists it
    // 1.) phases -1, 3, ..., 35 preload 2 weights; 2.) phases 1, 5, ..., 33 preload 4.
    if (p < last && r == 3) CHECK(x.preloads == 2);
    if (p < last && r == 1) CHECK(x.preloads == 4);
    // 3.) & 7.) phases 20, ..., 36 store 2 weights and load 16 activations.
    if (p > 4 * kN - 4 && r == 0) {
      CHECK(x.scheduled_stores == 2);
      CHECK(x.on_demand_loads == 16);
    }
    // 4.) & 8.) phases 18, ..., 34 store 4 weights; from 22 on load 32 activations (18 is the
    //     last forward and first backward phase).
    if (p > 4 * kN - 4 && r == 2) {
      CHECK(x.scheduled_stores == 4);
      if (p > 4 * kN) CHECK(x.on_demand_loads == 32);
    }
    // 5.) phases 0, ..., 16 store 16 activations; 6.) phases 2, ..., 14 store 32.
    if (p <= 4 * kN - 4 && r == 0) CHECK(x.on_demand_stores == 16);
    if (p <= 4 * kN - 4 && r == 2) CHECK(x.on_demand_stores == 32);
  }
}

TEST_CASE(
    "PopART Test2x2S1ExecutionPhase: backward phase 2P-2-f, the virtual graph keeps its "
    "parity with the phase",
    "[passes][popart_conformance]") {
  // Test2x2S1ExecutionPhase: N = 5, phases = 2N, stages 2, four IPUs; the forward op of phase n
  // on IPU pair member `ipu` uses VGID n % 2 + 2 * ipu; its backward op has phase 4N - 2 - n and
  // the same VGID parity; the loss runs in phase 2N - 1 on VGID 3.
  Model m;
  for (int n = 0; n < 2 * kN; ++n)
    for (int ipu = 0; ipu < 2; ++ipu) {
      ModelOp f;
      f.name = "mm" + std::to_string(n) + "_" + std::to_string(ipu);
      f.forward_phase = n;
      f.vgraph = n % 2 + 2 * ipu;
      ModelOp b = f;
      b.name += "/grad";
      b.pass = Pass::Backward;
      m.ops.insert(m.ops.end(), {f, b});
    }
  ModelOp loss;
  loss.name = "l1loss";
  loss.forward_phase = 2 * kN - 1;
  loss.vgraph = 3;
  m.ops.push_back(loss);
  const PhaseLayout L = assign_phases(m, 2, 2 * kN, 4);
  CHECK(L.total_phases == 4 * kN - 1);
  for (const ModelOp& op : m.ops) {
    INFO(op.name);
    if (op.pass == Pass::Backward) {
      CHECK(op.phase == 4 * kN - 2 - op.forward_phase);
    } else {
      CHECK(op.phase == op.forward_phase);
    }
    CHECK(op.vgraph % 2 == op.phase % 2);
  }
  CHECK(m.ops.back().phase == 2 * kN - 1);
  CHECK(m.ops.back().vgraph == 3);
}
