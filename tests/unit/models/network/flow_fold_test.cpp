// Folding a symmetric batch onto representatives: the weighted max-min allocation of the
// folded batch is the flow engine's allocation of the whole batch (rates by hand), and an
// asymmetric batch is refused.
#include "models/network/flow_fold.hpp"

#include <catch2/catch.hpp>
#include <memory>

#include "models/network/routing.hpp"
#include "tests/unit/models/network/fold_fabric.hpp"

using namespace ipusim;
using ipusim::test::res;

using ipusim::test::Fabric;
using ipusim::test::pointers;
using ipusim::test::spine_and_leaf_batch;

TEST_CASE("fold: a spine and a leaf ring over 4 domains fold to two classes, rates by hand",
          "[fold]") {
  const Fabric f;
  std::vector<Route> routes;
  std::vector<std::uint64_t> bytes;
  spine_and_leaf_batch(routes, bytes);
  const ResourceCells cells(f.candidate, f.specs);
  CHECK(cells.num_cells() == 5);
  CHECK(cells.rep(cells.cell_of(Fabric::up(3))) == Fabric::up(0));
  const auto folded = fold_batch(cells, pointers(routes), bytes);
  REQUIRE(folded);
  REQUIRE(folded->classes.size() == 2);
  // Spine class: 4 flows, 2 leaf-switch hops each over 2 switches = 4 per switch, 4 flows over
  // 2 uplinks = 2 each; 1 per domain link. Leaf class: 4 flows x 1 switch hop / 2 = 2.
  using W = std::vector<std::pair<ResourceId, std::uint32_t>>;
  CHECK(folded->classes[0].count == 4);
  CHECK(folded->classes[0].weights == W{{0, 1}, {4, 1}, {8, 4}, {10, 2}, {12, 2}});
  CHECK(folded->classes[1].weights == W{{0, 1}, {4, 1}, {8, 2}});
  CHECK(folded->class_of == std::vector<std::uint32_t>{0, 1, 0, 1, 0, 1, 0, 1});
  // By hand: the uplinks saturate first, 8 / 2 = 4 per spine flow (out_d: 10 / 2 = 5,
  // sw: 100 / 6); then out_d has 10 - 4 = 6 for its leaf flow (sw: (100 - 16) / 2 = 42).
  std::vector<double> cap;
  for (const auto& s : f.specs) cap.push_back(s.capacity_Bpns);
  const std::vector<double> rates = weighted_max_min(*folded, cap);
  CHECK(rates == std::vector<double>{4.0, 6.0});
  // The flow engine's allocation of all 8 flows gives the same rates.
  FlowEngine engine;
  for (const auto& s : f.specs) engine.add_resource(s);
  std::vector<std::uint32_t> slots;
  for (std::size_t i = 0; i < routes.size(); ++i)
    slots.push_back(engine.start(0.0, routes[i], bytes[i]));
  engine.reallocate(0.0);
  for (std::size_t i = 0; i < routes.size(); ++i)
    CHECK(engine.rate_of(slots[i]) == rates[folded->class_of[i]]);
}

TEST_CASE("fold: one domain sending other bytes or another pattern is not folded", "[fold]") {
  const Fabric f;
  const ResourceCells cells(f.candidate, f.specs);
  std::vector<Route> routes;
  std::vector<std::uint64_t> bytes;
  for (int d = 0; d < 4; ++d) {
    routes.push_back(Fabric::leaf(d));
    bytes.push_back(d == 3 ? 2000 : 1000);
  }
  CHECK_FALSE(fold_batch(cells, pointers(routes), bytes));
  bytes[3] = 1000;
  CHECK(fold_batch(cells, pointers(routes), bytes));
  // Domain 3 idle: out_3 and in_2 are not crossed while the rest of their cells are.
  routes.pop_back();
  bytes.pop_back();
  CHECK_FALSE(fold_batch(cells, pointers(routes), bytes));
}

TEST_CASE("fold: a cell member with another capacity splits its cell", "[fold]") {
  Fabric f;
  f.specs[Fabric::up(2)].capacity_Bpns = 4;  // leaf 1's uplink is slower
  const ResourceCells cells(f.candidate, f.specs);
  CHECK(cells.num_cells() == 6);
  CHECK(cells.cell_of(Fabric::up(0)) != cells.cell_of(Fabric::up(2)));
  std::vector<Route> routes;
  std::vector<std::uint64_t> bytes;
  for (int d = 0; d < 4; ++d) {
    routes.push_back(Fabric::spine(d));
    bytes.push_back(1000);
  }
  // Leaf 0's and leaf 1's spine flows are now different classes, each crossing only half of
  // the out_d cell: not equitable.
  CHECK_FALSE(fold_batch(cells, pointers(routes), bytes));
}

TEST_CASE("fold: a leaf/spine topology's cells fold its leaf and spine rings", "[fold]") {
  // 8 Pod4 domains (1 machine of 4 IPUs each), 4 per leaf: 2 leaves.
  HwParams p = registry_hw_params();
  p.system.num_ilds = 8;
  p.system.machines_per_ild = 1;
  p.system.gw_topology = GwTopology::LeafSpine;
  p.system.gw_leaf_ilds = 4;
  const Topology t(p);
  const ResourceCells cells(t.symmetry_cells(), t.resource_specs());
  // Leaf uplinks form one cell of 2 members; one IPU's gateway link one of 8.
  CHECK(cells.size(cells.cell_of(t.route(1, 17)[3])) == 2);
  CHECK(cells.size(cells.cell_of(t.ipu_to_gateway(1))) == 8);
  // Leaf ring (IPU 1 of domain x to IPU 1 of the next domain of its leaf) and spine ring (to
  // IPU 1 of the domain 4 further, the other leaf), 1 MB each.
  std::vector<Route> routes;
  std::vector<std::uint64_t> bytes;
  for (std::uint32_t x = 0; x < 8; ++x) {
    const std::uint32_t next = (x / 4) * 4 + (x + 1) % 4;
    routes.push_back(t.route(4 * x + 1, 4 * next + 1));
    routes.push_back(t.route(4 * x + 1, 4 * ((x + 4) % 8) + 1));
    bytes.insert(bytes.end(), {1000000, 1000000});
  }
  const auto folded = fold_batch(cells, pointers(routes), bytes);
  REQUIRE(folded);
  REQUIRE(folded->classes.size() == 2);
  // Spine class: 8 flows over 2 leaf uplinks = weight 4 on the representative uplink.
  const ResourceId up0 = t.route(1, 17)[3];
  const auto& w = folded->classes[1].weights;
  const auto it = std::find_if(w.begin(), w.end(), [&](const auto& e) { return e.first == up0; });
  REQUIRE(it != w.end());
  CHECK(it->second == 4);
  // Folded rates equal the engine's on the whole batch.
  std::vector<double> cap;
  for (const auto& s : t.resource_specs()) cap.push_back(s.capacity_Bpns);
  const std::vector<double> rates = weighted_max_min(*folded, cap);
  FlowEngine engine;
  for (const auto& s : t.resource_specs()) engine.add_resource(s);
  std::vector<std::uint32_t> slots;
  for (std::size_t i = 0; i < routes.size(); ++i)
    slots.push_back(engine.start(0.0, routes[i], bytes[i]));
  engine.reallocate(0.0);
  for (std::size_t i = 0; i < routes.size(); ++i)
    CHECK(engine.rate_of(slots[i]) == rates[folded->class_of[i]]);  // bit for bit
}

namespace {

/// Runs an engine until idle; returns each arrival's (end time, count) in order.
std::vector<std::pair<double, std::uint32_t>> run_to_idle(FlowEngine& e, double now_ns) {
  std::vector<std::pair<double, std::uint32_t>> out;
  std::vector<Arrival> arrivals;
  e.reallocate(now_ns);
  for (double t = e.next_event_ns(); t < FlowEngine::kInf; t = e.next_event_ns()) {
    arrivals.clear();
    e.advance(t, arrivals);
    for (const Arrival& a : arrivals) out.emplace_back(a.end_ns, a.count);
    e.reallocate(t);
  }
  return out;
}

}  // namespace

TEST_CASE("fold: the engine plays a folded batch as the whole batch, times and stats by hand",
          "[fold]") {
  const Fabric f;
  std::vector<Route> routes;
  std::vector<std::uint64_t> bytes;
  spine_and_leaf_batch(routes, bytes);
  // By hand (latency 0): spine flows at 4 GB/s (uplinks 8 / 2), leaf flows at 6 (out_d 10 - 4)
  // end at 1000 / 6 ns; the spine flows stay at 4 (the uplinks) and end at 1000 / 4 = 250 ns.
  FlowEngine folded, full;
  for (const auto& s : f.specs) folded.add_resource(s), full.add_resource(s);
  folded.set_fold(std::make_shared<ResourceCells>(f.candidate, f.specs));
  REQUIRE(folded.folding());
  int tag = 0;
  folded.start_batch(0.0, pointers(routes), bytes, &tag);
  full.start_batch(0.0, pointers(routes), bytes, &tag);
  CHECK(folded.folded_batches() == 1);
  CHECK(folded.folded_flows() == 8);
  CHECK(folded.active_flows() == 8);
  const auto a = run_to_idle(folded, 0.0);
  REQUIRE(a.size() == 2);  // one arrival per class, for its 4 flows
  CHECK(a[0] == std::make_pair(1000.0 / 6, 4u));
  CHECK(a[1].first == Approx(250.0));
  CHECK(a[1].second == 4);
  const auto b = run_to_idle(full, 0.0);
  REQUIRE(b.size() == 8);
  for (std::size_t i = 0; i < 4; ++i) CHECK(b[i].first == a[0].first);
  for (std::size_t i = 4; i < 8; ++i) CHECK(b[i].first == a[1].first);
  CHECK(folded.flows_started() == 8);
  // Every resource reports what the whole batch put on it, members of a cell included: out_3
  // 2 flows (2000 B), leaf 1's switch 4 spine crossings + 2 leaf flows = 6 (6000 B), uplink 1
  // 2 flows, busy until 250 ns.
  for (ResourceId id = 0; id < f.specs.size(); ++id) {
    INFO(id);
    const ResourceStats s = folded.stats(id, 300.0), t = full.stats(id, 300.0);
    CHECK(s.bytes == t.bytes);
    CHECK(s.busy_ns == t.busy_ns);
    CHECK(s.transfers == t.transfers);
    CHECK(s.max_concurrent == t.max_concurrent);
  }
  CHECK(folded.stats(Fabric::out(3), 300.0).bytes == 2000);
  CHECK(folded.stats(Fabric::sw(3), 300.0).transfers == 6);
  CHECK(folded.stats(Fabric::sw(3), 300.0).max_concurrent == 6);
  CHECK(folded.stats(Fabric::up(3), 300.0).busy_ns == Approx(250.0).margin(0.002));
}

TEST_CASE("fold: an asymmetric batch on an idle engine ends folding and takes the general path",
          "[fold]") {
  const Fabric f;
  FlowEngine e;
  for (const auto& s : f.specs) e.add_resource(s);
  e.set_fold(std::make_shared<ResourceCells>(f.candidate, f.specs));
  std::vector<Route> routes;
  std::vector<std::uint64_t> bytes;
  for (int d = 0; d < 4; ++d) {
    routes.push_back(Fabric::leaf(d));
    bytes.push_back(600);
  }
  int tag = 0;
  e.start_batch(0.0, pointers(routes), bytes, &tag);  // symmetric: folded
  CHECK(run_to_idle(e, 0.0) == std::vector<std::pair<double, std::uint32_t>>{{60.0, 4}});
  // Domain 3 sends more: not equitable. Idle, so folding ends; out_3 keeps the 600 B its
  // representative carried, then carries 1200 more alone at 10 GB/s (120 ns).
  bytes[3] = 1200;
  e.start_batch(100.0, pointers(routes), bytes, &tag);
  CHECK_FALSE(e.folding());
  CHECK(e.folded_batches() == 1);
  const auto a = run_to_idle(e, 100.0);
  REQUIRE(a.size() == 4);
  CHECK(a.back().first == Approx(220.0));
  CHECK(e.stats(Fabric::out(3), 300.0).bytes == 1800);
  CHECK(e.stats(Fabric::out(2), 300.0).bytes == 1200);
  CHECK(e.stats(Fabric::out(3), 300.0).transfers == 2);
}
