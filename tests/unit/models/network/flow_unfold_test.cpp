// Unfolding: a batch that cannot be folded arrives while folded flows are in flight; the engine
// expands them into their classes' flows and goes on exactly as the general path (times and
// stats by hand, and equal bit for bit to an engine that never folded).
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <vector>

#include "models/network/flow_fold.hpp"
#include "tests/unit/models/network/fold_fabric.hpp"

using namespace ipusim;
using ipusim::test::Fabric;
using ipusim::test::pointers;
using ipusim::test::spine_and_leaf_batch;

namespace {

/// One flow's arrival: its batch (1 or 2) and the time.
using Landing = std::pair<int, double>;

/// Plays `first` at 0 and `second` at `t2` ns on `e`, event by event until idle. Returns one
/// entry per flow (an arrival standing for n folded flows gives n), sorted.
std::vector<Landing> play(FlowEngine& e, const std::vector<Route>& first,
                          const std::vector<std::uint64_t>& first_bytes, double t2,
                          const std::vector<Route>& second,
                          const std::vector<std::uint64_t>& second_bytes) {
  int tag1 = 1, tag2 = 2;
  std::vector<Landing> out;
  std::vector<Arrival> arrivals;
  auto step = [&](double t) {
    arrivals.clear();
    e.advance(t, arrivals);
    for (const Arrival& a : arrivals)
      for (std::uint32_t k = 0; k < a.count; ++k)
        out.emplace_back(*static_cast<int*>(a.tag), a.end_ns);
    e.reallocate(t);
  };
  e.start_batch(0.0, pointers(first), first_bytes, &tag1);
  e.reallocate(0.0);
  for (double t = e.next_event_ns(); t <= t2; t = e.next_event_ns()) step(t);
  e.start_batch(t2, pointers(second), second_bytes, &tag2);
  e.reallocate(t2);
  for (double t = e.next_event_ns(); t < FlowEngine::kInf; t = e.next_event_ns()) step(t);
  std::sort(out.begin(), out.end());
  return out;
}

/// A folding engine and one that never folds (fast paths off, as `sim.fast_paths=false`).
struct Pair {
  FlowEngine folded, full{FlowEngineParams{Arbitration::Fair, 0, 0, false}};
  explicit Pair(const Fabric& f) {
    for (const auto& s : f.specs) folded.add_resource(s), full.add_resource(s);
    folded.set_fold(std::make_shared<ResourceCells>(f.candidate, f.specs));
  }
  /// Every resource's stats equal in both engines at `t_ns`, bit for bit.
  void check_stats(const Fabric& f, double t_ns) const {
    for (ResourceId id = 0; id < f.specs.size(); ++id) {
      INFO("resource " << id);
      const ResourceStats s = folded.stats(id, t_ns), u = full.stats(id, t_ns);
      CHECK(s.bytes == u.bytes);
      CHECK(s.busy_ns == u.busy_ns);
      CHECK(s.transfers == u.transfers);
      CHECK(s.max_concurrent == u.max_concurrent);
    }
  }
};

}  // namespace

TEST_CASE("unfold: an asymmetric batch while a folded batch drains, times and stats by hand",
          "[fold]") {
  const Fabric f;
  Pair p(f);
  REQUIRE(p.folded.folding());
  std::vector<Route> routes;
  std::vector<std::uint64_t> bytes;
  spine_and_leaf_batch(routes, bytes);  // s_d and l_d, 1000 B each: s at 4 GB/s, l at 6
  // At 100 ns domain 3 alone sends 600 B to domain 2 over its leaf (n: out_3, sw_1, in_2).
  const std::vector<Route> second = {Fabric::leaf(3)};
  const std::vector<std::uint64_t> second_bytes = {600};
  const auto a = play(p.folded, routes, bytes, 100.0, second, second_bytes);
  const auto b = play(p.full, routes, bytes, 100.0, second, second_bytes);
  CHECK_FALSE(p.folded.folding());
  CHECK(p.folded.folded_batches() == 1);
  CHECK(p.folded.folded_flows() == 8);
  CHECK(p.folded.flows_started() == 9);
  CHECK(a == b);  // bit for bit
  // By hand. At 100 ns s_d has 600 B left, l_d 400 B. out_3 carries s_3, l_3, n and in_2 s_0,
  // l_3, n: 10/3 each, the first level. Then the uplinks and downlinks keep 8 - 10/3 for s_1 and
  // s_2; out_1, in_0, out_2, in_3 keep 10 - (8 - 10/3) = 16/3 for l_1, l_2; out_0, in_1 keep
  // 10 - 10/3 for l_0. l_0 ends at 100 + 400 / (20/3) = 160, l_1 and l_2 at 100 + 400 / (16/3)
  // = 175 (no rate changes: s_0 and s_3 stay held by in_2 and out_3). At 220 l_3 ends
  // (400 / (10/3) = 120): s_d at 4 (uplinks, 2 each), n at 10 - 4 = 6. s_1, s_2 had 600 -
  // 120 x 14/3 = 40 B: they end at 230. Then s_0, s_3 and n share out_3 and in_2 at 5: s_0, s_3
  // had 600 - 400 - 40 = 160 B, n 600 - 400 - 60 = 140: n ends at 230 + 28 = 258, s_0 and s_3
  // then alone at 8 (uplink) with 20 B: 260.5.
  REQUIRE(a.size() == 9);
  const std::vector<double> want1 = {160, 175, 175, 220, 230, 230, 260.5, 260.5};
  for (std::size_t i = 0; i < 8; ++i) {
    INFO(i);
    CHECK(a[i].first == 1);
    CHECK(a[i].second == Approx(want1[i]).margin(1e-9));
  }
  CHECK(a[8].first == 2);
  CHECK(a[8].second == Approx(258.0).margin(1e-9));
  // Stats: every resource equal to the general path's; by hand out_3 and in_2 carried s, l and
  // n (2600 B, 3 transfers, 3 at once), leaf 1's switch 4 spine crossings, l_2, l_3 and n (7
  // transfers, 6600 B), out_0 busy until s_0 ends (260.5 ns), out_1 until s_1 (230 ns).
  p.check_stats(f, 300.0);
  const FlowEngine& e = p.folded;
  CHECK(e.stats(Fabric::out(3), 300.0).bytes == 2600);
  CHECK(e.stats(Fabric::out(3), 300.0).transfers == 3);
  CHECK(e.stats(Fabric::out(3), 300.0).max_concurrent == 3);
  CHECK(e.stats(Fabric::in(2), 300.0).bytes == 2600);
  CHECK(e.stats(Fabric::sw(3), 300.0).transfers == 7);
  CHECK(e.stats(Fabric::sw(3), 300.0).bytes == 6600);
  CHECK(e.stats(Fabric::sw(3), 300.0).max_concurrent == 7);
  CHECK(e.stats(Fabric::out(0), 300.0).busy_ns == Approx(260.5).margin(0.001));
  CHECK(e.stats(Fabric::out(1), 300.0).busy_ns == Approx(230.0).margin(0.001));
  CHECK(e.stats(Fabric::out(2), 300.0).bytes == 2000);
}

TEST_CASE("unfold: folded flows already in flight arrive as one entry, the rest unfold", "[fold]") {
  Fabric f;
  for (int d = 0; d < 4; ++d) f.specs[Fabric::in(d)].latency_ns = 50;  // every route: 50 ns
  Pair p(f);
  std::vector<Route> routes;
  std::vector<std::uint64_t> bytes;
  spine_and_leaf_batch(routes, bytes);
  // By hand: l_d drain at 6 GB/s until 1000/6 = 166.7 ns and arrive 50 ns later (216.7); at
  // 200 ns they are in flight, the s_d still draining (200 B left at 4 GB/s). n (600 B, out_3,
  // sw_1, in_2) then shares out_3 with s_3 and in_2 with s_0 (5 each), but the uplinks hold
  // the s_d at 4: n gets 10 - 4 = 6. The s_d drain until 250 and arrive at 300; n has 300 B
  // left then and drains them alone at 10 GB/s (30 ns): it arrives at 280 + 50 = 330.
  const std::vector<Route> second = {Fabric::leaf(3)};
  const std::vector<std::uint64_t> second_bytes = {600};
  const auto a = play(p.folded, routes, bytes, 200.0, second, second_bytes);
  const auto b = play(p.full, routes, bytes, 200.0, second, second_bytes);
  CHECK_FALSE(p.folded.folding());
  CHECK(a == b);
  REQUIRE(a.size() == 9);
  for (std::size_t i = 0; i < 4; ++i) CHECK(a[i].second == Approx(1000.0 / 6 + 50).margin(1e-9));
  for (std::size_t i = 4; i < 8; ++i) CHECK(a[i].second == Approx(300.0).margin(1e-9));
  CHECK(a[8].first == 2);
  CHECK(a[8].second == Approx(330.0).margin(1e-9));
  p.check_stats(f, 400.0);
  // in_2: s_0, l_3 and n (2600 B); l_3 had left it (drained) before n came: 2 at once.
  CHECK(p.folded.stats(Fabric::in(2), 400.0).bytes == 2600);
  CHECK(p.folded.stats(Fabric::in(2), 400.0).max_concurrent == 2);
}

TEST_CASE("unfold: a single flow started over resources unfolds too", "[fold]") {
  // Not a batch: start() of one flow (a posted send, a stream) breaks the symmetry as well.
  const Fabric f;
  Pair p(f);
  std::vector<Route> routes;
  std::vector<std::uint64_t> bytes;
  spine_and_leaf_batch(routes, bytes);
  int tag = 1;
  for (FlowEngine* e : {&p.folded, &p.full}) {
    e->start_batch(0.0, pointers(routes), bytes, &tag);
    e->reallocate(0.0);
    e->start(0.0, Fabric::leaf(3), 600, &tag);  // same instant: before any allocation
    e->reallocate(0.0);
  }
  CHECK_FALSE(p.folded.folding());
  std::vector<Arrival> x, y;
  for (double t = p.full.next_event_ns(); t < FlowEngine::kInf; t = p.full.next_event_ns()) {
    CHECK(p.folded.next_event_ns() == t);
    p.folded.advance(t, x);
    p.full.advance(t, y);
    p.folded.reallocate(t);
    p.full.reallocate(t);
  }
  REQUIRE(x.size() == y.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    CHECK(x[i].id == y[i].id);  // the general path's ids
    CHECK(x[i].end_ns == y[i].end_ns);
  }
  p.check_stats(f, 400.0);
}

TEST_CASE("unfold: a compact batch counts every flow it stands for and is never unfolded blindly",
          "[fold]") {
  const Fabric f;
  Pair p(f);
  std::vector<Route> routes;
  std::vector<std::uint64_t> bytes;
  spine_and_leaf_batch(routes, bytes);
  const std::vector<const Route*> all = pointers(routes);
  const std::optional<FoldedBatch> folded = fold_batch(*p.folded.fold_cells(), all, bytes);
  REQUIRE(folded);
  // The compact form a collective plan keeps: class i's representative route and size only.
  FoldedBatch compact;
  std::vector<const Route*> reps;
  std::vector<std::uint64_t> rep_bytes;
  for (const FoldedClass& c : folded->classes) {
    reps.push_back(all[c.first]);
    rep_bytes.push_back(bytes[c.first]);
    compact.classes.push_back(c);
    compact.classes.back().first = static_cast<std::uint32_t>(compact.class_of.size());
    compact.class_of.push_back(compact.classes.back().first);
  }
  REQUIRE(compact.classes.size() == 2);  // the spine-ring class and the leaf-ring class
  int tag = 1;
  p.folded.start_prefolded(0.0, reps, rep_bytes, compact, &tag);
  p.folded.reallocate(0.0);
  // 8 flows started, as the general path numbers them (the next flow is the 9th).
  CHECK(p.folded.flows_started() == 8);
  CHECK(p.folded.folded_flows() == 8);
  // Domain 3 alone sends while the compact flows drain: they keep no member routes, so the
  // engine stops with an error naming the switch instead of guessing the members' state.
  const std::vector<Route> second = {Fabric::leaf(3)};
  CHECK_THROWS_WITH(p.folded.start_batch(100.0, pointers(second), {600}, &tag),
                    Catch::Contains("sim.fast_paths=false"));
}

TEST_CASE("fold: the per-kind rate sums (trace counters) count every member of a cell", "[fold]") {
  // A traced run folds (runtime/exec/executor.cpp), so its utilisation counters must read the
  // whole fabric's load from the representatives. Every resource here is an IPU-Link.
  const Fabric f;
  Pair p(f);
  std::vector<Route> routes;
  std::vector<std::uint64_t> bytes;
  spine_and_leaf_batch(routes, bytes);
  const std::vector<Route> second = {Fabric::leaf(3)};
  int tag1 = 1, tag2 = 2;
  constexpr auto kKind = ResourceKind::IpuLink;
  // Capacity: 8 ports of 10, 2 switches of 100, 4 up/downlinks of 8 GB/s = 312.
  CHECK(p.folded.kind_capacity_Bpns(kKind) == Approx(312.0));
  for (FlowEngine* e : {&p.folded, &p.full}) {
    e->start_batch(0.0, pointers(routes), bytes, &tag1);
    e->reallocate(0.0);
  }
  REQUIRE(p.folded.folding());
  // By hand: each s_d at 4 GB/s over its 6 hops, each l_d at 6 over 3: 4 x (24 + 18) = 168
  // (the representatives alone carry 64: out_0 10, in_0 10, sw_0 28, up_0 8, down_0 8).
  CHECK(p.folded.kind_rate_Bpns(kKind) == Approx(168.0).epsilon(1e-12));
  CHECK(p.full.kind_rate_Bpns(kKind) == Approx(168.0).epsilon(1e-12));
  // At 100 ns domain 3's lone flow n unfolds the batch (rates as in the first case above): s_0,
  // s_3 at 10/3 and s_1, s_2 at 14/3 over 6 hops (20 + 20 + 28 + 28), l_0 20/3, l_1 and l_2
  // 16/3, l_3 and n 10/3 over 3 (20 + 16 + 16 + 10 + 10): 168 again.
  for (FlowEngine* e : {&p.folded, &p.full}) {
    std::vector<Arrival> arrivals;
    e->advance(100.0, arrivals);
    e->start_batch(100.0, pointers(second), {600}, &tag2);
    e->reallocate(100.0);
  }
  CHECK_FALSE(p.folded.folding());
  CHECK(p.folded.kind_rate_Bpns(kKind) == Approx(168.0).epsilon(1e-12));
  CHECK(p.full.kind_rate_Bpns(kKind) == Approx(168.0).epsilon(1e-12));
  // l_0 ends at 160 ns (first case; looked at 165): 20/3 x 3 = 20 GB/s less; the others' rates do
  // not move (l_0 shares out_0 with s_0 and in_1 with s_3, both held at 10/3 elsewhere): 148.
  for (FlowEngine* e : {&p.folded, &p.full}) {
    std::vector<Arrival> arrivals;
    e->advance(165.0, arrivals);
    e->reallocate(165.0);
  }
  CHECK(p.folded.kind_rate_Bpns(kKind) == Approx(148.0).epsilon(1e-12));
  CHECK(p.full.kind_rate_Bpns(kKind) == Approx(148.0).epsilon(1e-12));
}
