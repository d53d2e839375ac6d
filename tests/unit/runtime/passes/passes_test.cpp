// Lowering passes against the PopART reference examples (popart_semantics.md §2.8, §3.1)
// and RTS / memory arithmetic computed independently.
#include <catch2/catch.hpp>

#include "runtime/generators/model_gen.hpp"
#include "runtime/passes/memory_accounting.hpp"
#include "runtime/passes/pass_batch_loop.hpp"
#include "runtime/passes/pass_locations.hpp"
#include "runtime/passes/pass_lower.hpp"
#include "runtime/passes/pass_phases.hpp"
#include "runtime/passes/pass_remote_io.hpp"

using namespace ipusim::rt;

namespace {

/// N matmul layers of a [100,100] float weight: forward op n in phase n, backward twin.
Model chain(int n) {
  Model m;
  for (int i = 0; i < n; ++i) {
    Tensor w;
    w.name = "w" + std::to_string(i);
    w.shape = {100, 100};
    w.dtype = DType::Float32;
    w.kind = TensorKind::Weight;
    m.add_tensor(w);
    ModelOp f;
    f.name = "fwd" + std::to_string(i);
    f.forward_phase = i;
    f.inputs = {w.name};
    m.ops.push_back(f);
    ModelOp b = f;
    b.name = "bwd" + std::to_string(i);
    b.pass = Pass::Backward;
    m.ops.push_back(b);
    ModelOp u = f;
    u.name = "upd" + std::to_string(i);
    u.pass = Pass::Optimizer;
    u.outputs = {w.name};
    u.per_micro_batch = false;
    m.ops.push_back(u);
  }
  m.forward_phases = n;
  return m;
}

SessionOptions offchip_weights(IOSchedule sched, int stages) {
  SessionOptions s;
  s.stages = stages;
  s.ipusPerReplica = static_cast<std::uint32_t>(stages);
  s.weight.location.storage = Storage::OffChip;
  s.weightIOSchedule = sched;
  return s;
}

}  // namespace

TEST_CASE("E32: backward phase is 2P-2-n and the virtual graph follows phase % stages") {
  const int N = 5, P = 2 * N;  // Test2x2S1ExecutionPhase: phases = 10, stages = 2
  Model m = chain(P);
  const PhaseLayout L = assign_phases(m, 2, P, 2);
  CHECK(L.total_phases == 2 * P - 1);
  for (const ModelOp& o : m.ops) {
    const int n = o.forward_phase;
    CHECK(o.phase == (o.pass == Pass::Forward ? n : 4 * N - 2 - n));
    CHECK(o.vgraph == o.phase % 2);
    CHECK(o.vgraph % 2 == n % 2);  // the backward op keeps the forward op's vgid % 2
  }
  Model single = chain(5);
  assign_phases(single, 1, 0, 1);
  for (const ModelOp& o : single.ops) CHECK(o.vgraph == 0);
}

TEST_CASE("An explicit virtual graph inconsistent with its phase is rejected") {
  Model m = chain(2);
  m.ops[0].vgraph = 1;  // phase 0 on vgid 1 with stages = 2
  CHECK_THROWS_WITH(assign_phases(m, 2, 0, 2), Catch::Contains("inconsistent execution phase"));
}

TEST_CASE("Preload loads a weight in the phase before its use, OnDemand in the phase itself") {
  for (IOSchedule sched : {IOSchedule::Preload, IOSchedule::OnDemand}) {
    Model m = chain(3);  // P = 3: forward 0,1,2; backward 2,1,0 -> phases 2,3,4
    const SessionOptions s = offchip_weights(sched, 1);
    assign_phases(m, 1, 0, 1);
    const auto res = resolve_locations(m, s);
    const auto io = place_remote_io(m, res, s);
    const int shift = sched == IOSchedule::Preload ? 1 : 0;
    // w0: used in phases 0 and 4 -> two loads; w1: 1 and 3 -> one (loaded for phase 1, still
    // live in p-2 = 1 when phase 3 uses it); w2: 2 (fwd+bwd) -> one.
    std::map<std::string, std::vector<int>> loads, stores;
    for (const IoPlacement& p : io) (p.store ? stores : loads)[p.tensor].push_back(p.phase);
    CHECK(loads["w0"] == std::vector<int>{0 - shift, 4 - shift});
    CHECK(loads["w1"] == std::vector<int>{1 - shift});
    CHECK(loads["w2"] == std::vector<int>{2 - shift});
    // Stored where the optimizer last writes it (the backward phase).
    CHECK(stores["w0"] == std::vector<int>{4});
    CHECK(stores["w1"] == std::vector<int>{3});
    CHECK(stores["w2"] == std::vector<int>{2});
  }
}

TEST_CASE("A tensor still live on the same IPU is kept, not reloaded") {
  // Weight used in phases 1, 2 and 3 (stages 1): each use keeps the previous copy.
  Model m = chain(3);
  for (ModelOp& o : m.ops)
    if (o.name == "fwd2") o.inputs.push_back("w1");
  const SessionOptions s = offchip_weights(IOSchedule::Preload, 1);
  assign_phases(m, 1, 0, 1);
  int w1_loads = 0;
  for (const IoPlacement& p : place_remote_io(m, resolve_locations(m, s), s))
    if (!p.store && p.tensor == "w1") ++w1_loads;
  // Uses in phases 1, 2 (kept) and 3 (backward, kept from 2): one load in all.
  CHECK(w1_loads == 1);
  CHECK(kept_live(1, 2));
  CHECK(kept_live(1, 3));  // p-2 (under ping-pong the same IPU)
  CHECK_FALSE(kept_live(1, 4));
  CHECK_FALSE(kept_live(2, 2));
}

TEST_CASE("E34: op order of overlap_on_io and overlap_on_compute") {
  using T = LoopItem;
  auto seq = [](const std::vector<LoopItem>& items) {
    std::vector<std::pair<int, int>> out;
    for (const LoopItem& i : items)
      out.push_back({i.type, i.type == T::Exchange ? i.load_step * 10 + i.step : i.step});
    return out;
  };
  // OverlapOnIo: Load0, C0, Compute0, Load1, C1, IO0, Store0, Compute1, Load2, ...
  const auto io = seq(batch_loop_order(BatchSchedule::OverlapOnIo, 4, true, true, true));
  const std::vector<std::pair<int, int>> want_io = {
      {T::Load, 0},    {T::CopyIn, 0}, {T::Compute, 0}, {T::Load, 1},    {T::CopyIn, 1},
      {T::CopyOut, 0}, {T::Store, 0},  {T::Compute, 1}, {T::Load, 2},    {T::CopyIn, 2},
      {T::CopyOut, 1}, {T::Store, 1},  {T::Compute, 2}, {T::Load, 3},    {T::CopyIn, 3},
      {T::CopyOut, 2}, {T::Store, 2},  {T::Compute, 3}, {T::CopyOut, 3}, {T::Store, 3}};
  CHECK(io == want_io);
  // OverlapOnCompute: Load0, C0, Load1, Compute0, C1, IO0, Exchange(Store0+Load2), Compute1, ...
  const auto oc = seq(batch_loop_order(BatchSchedule::OverlapOnCompute, 4, true, true, true));
  const std::vector<std::pair<int, int>> want_oc = {
      {T::Load, 0},      {T::CopyIn, 0},    {T::Load, 1},    {T::Compute, 0}, {T::CopyIn, 1},
      {T::CopyOut, 0},   {T::Exchange, 20}, {T::Compute, 1}, {T::CopyIn, 2},  {T::CopyOut, 1},
      {T::Exchange, 31}, {T::Compute, 2},   {T::CopyIn, 3},  {T::CopyOut, 2}, {T::Store, 2},
      {T::Compute, 3},   {T::CopyOut, 3},   {T::Store, 3}};
  CHECK(oc == want_oc);
}

TEST_CASE("RTS over k replicas divides a sharded tensor's bytes by k (up to padding)") {
  Tensor w;
  w.name = "w";
  w.shape = {1000, 1001};
  w.dtype = DType::Float16;
  w.kind = TensorKind::Weight;
  Model m;
  m.add_tensor(w);
  for (unsigned k : {2u, 4u, 16u}) {
    SessionOptions s;
    s.replicatedGraphCount = 16;
    s.weight.location.replicatedTensorSharding = true;
    s.weight.location.shardingDomain = "consecutive:" + std::to_string(k);
    const ResolvedTensor r = resolve_locations(m, s).at("w");
    const std::uint64_t n = 1000 * 1001;
    CHECK(r.sharded);
    CHECK(r.shard_factor == k);
    CHECK(r.shard_bytes == (n + k - 1) / k * 2);
    CHECK(r.shard_group->getGroupSize() == k);
    CHECK(r.complementary.has_value() == (k < 16));  // AllReduce over the orthogonal replicas
  }
  SessionOptions off;
  off.replicatedGraphCount = 16;
  CHECK_FALSE(resolve_locations(m, off).at("w").sharded);
}

TEST_CASE("Resident on-chip weights shrink by the sharding factor in the memory account") {
  Model m = generate_mlp(MlpSpec{});
  auto resident_bytes = [&](bool rts) {
    Model mm = m;
    SessionOptions s;
    s.replicatedGraphCount = 4;
    s.weight.location.replicatedTensorSharding = rts;
    s.weight.minElementsForReplicatedTensorSharding = 0;
    const PhaseLayout L = assign_phases(mm, 1, 0, 1);
    const Program p = lower_program(mm, L, resolve_locations(mm, s), s);
    // fc1/w (784 x 512 floats) is resident in phases where it is not used, e.g. phase 2.
    for (const LPhase& ph : p.phases)
      if (ph.index == 2)
        for (const MemoryItem& it : ph.memory[0])
          if (it.tensor == "fc1/w") return it.bytes;
    return std::uint64_t{0};
  };
  CHECK(resident_bytes(false) == 784u * 512u * 4u);
  CHECK(resident_bytes(true) == 784u * 512u * 4u / 4u);
}

TEST_CASE("A model too large for SRAM is reported with its phase and largest tensors") {
  MlpSpec spec;
  spec.layer_sizes = {8192, 8192, 8192};  // 256 MiB float weights per layer, on chip
  Model m = generate_mlp(spec);
  SessionOptions s;
  const PhaseLayout L = assign_phases(m, 1, 0, 1);
  const Program p = lower_program(m, L, resolve_locations(m, s), s);
  MemoryParams mp;
  const MemoryReport r = account_memory(p, mp);
  CHECK_FALSE(r.fits);
  CHECK(r.max_tile_bytes > mp.sram_per_tile_bytes);
  CHECK_THAT(r.overflow, Catch::Contains("phase ") && Catch::Contains("fc1/w"));
}
