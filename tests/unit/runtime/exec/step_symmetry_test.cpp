// Symmetry of an exchange step (runtime/exec/step_symmetry.hpp): components worked out by
// hand on a small resource table, and the conditions that keep a component out of a class
// (other bytes, another resource spec, another relative id order).
#include "runtime/exec/step_symmetry.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace ipusim;

namespace {

/// An engine with `n` resources of 10 B/ns and 5 ns, except those listed in `slow` (5 B/ns).
FlowEngine engine_with(std::uint32_t n, const std::vector<ResourceId>& slow = {}) {
  FlowEngine engine;
  for (std::uint32_t i = 0; i < n; ++i) {
    ResourceSpec spec;
    spec.name = "r" + std::to_string(i);
    spec.capacity_Bpns = 10;
    spec.latency_ns = 5;
    for (ResourceId s : slow) spec.capacity_Bpns = s == i ? 5 : spec.capacity_Bpns;
    engine.add_resource(spec);
  }
  return engine;
}

std::vector<const Route*> pointers(const std::vector<Route>& routes) {
  std::vector<const Route*> out;
  for (const Route& r : routes) out.push_back(&r);
  return out;
}

std::vector<ResourceId> resources_of(const StepSymmetry& s, std::uint32_t c) {
  return {s.resources_begin(c), s.resources_begin(c) + s.num_resources(c)};
}

}  // namespace

TEST_CASE("symmetry: a component identical to an earlier one is a copy; others are played",
          "[symmetry]") {
  // A = {f0: r0 r1, f2: r1 r2}, B = {f1: r3 r4, f3: r4 r5} (A relabelled r0->r3, r1->r4,
  // r2->r5), C = {f4: r6 r7, f5: r7 r8} with r8 slower than A's r2.
  const FlowEngine engine = engine_with(9, {8});
  const std::vector<Route> routes = {{0, 1}, {3, 4}, {1, 2}, {4, 5}, {6, 7}, {7, 8}};
  const std::vector<std::uint64_t> bytes(routes.size(), 1000);
  StepSymmetry s;
  REQUIRE(s.analyse(engine, pointers(routes), bytes));
  // Components by first flow: A = 0, B = 1, C = 2; B copies A.
  REQUIRE(s.copies().size() == 1);
  CHECK(s.copies()[0].representative == 0);
  CHECK(s.copies()[0].component == 1);
  CHECK(s.played() == std::vector<std::uint32_t>{0, 2, 4, 5});
  CHECK(resources_of(s, 0) == std::vector<ResourceId>{0, 1, 2});
  CHECK(resources_of(s, 1) == std::vector<ResourceId>{3, 4, 5});
  CHECK(s.num_flows(1) == 2);
}

TEST_CASE("symmetry: other bytes, specs or id order make a different class", "[symmetry]") {
  const FlowEngine engine = engine_with(6, {3});
  StepSymmetry s;
  SECTION("other bytes") {
    const std::vector<Route> routes = {{0, 1}, {2, 4}};
    CHECK_FALSE(s.analyse(engine, pointers(routes), {1000, 999}));
    CHECK(s.played().empty());
    CHECK(s.copies().empty());
  }
  SECTION("a slower resource") {
    const std::vector<Route> routes = {{0, 1}, {3, 4}};  // r3 is 5 B/ns
    CHECK_FALSE(s.analyse(engine, pointers(routes), {1000, 1000}));
  }
  SECTION("the same resources crossed in the opposite id order") {
    // r0 < r1 but r5 > r4: allocation ties break by id, so the order is part of the class.
    const std::vector<Route> routes = {{0, 1}, {5, 4}};
    CHECK_FALSE(s.analyse(engine, pointers(routes), {1000, 1000}));
  }
  SECTION("the same order is a copy") {
    const std::vector<Route> routes = {{0, 1}, {4, 5}};
    CHECK(s.analyse(engine, pointers(routes), {1000, 1000}));
    CHECK(s.played() == std::vector<std::uint32_t>{0});
  }
  SECTION("one component: nothing to mirror") {
    const std::vector<Route> routes = {{0, 1}, {1, 2}};
    CHECK_FALSE(s.analyse(engine, pointers(routes), {1000, 1000}));
  }
}

TEST_CASE("symmetry: the analysis can be repeated on other steps", "[symmetry]") {
  // Scratch state (per-resource owners and positions) is reset after every step.
  const FlowEngine engine = engine_with(8);
  StepSymmetry s;
  const std::vector<Route> first = {{0, 1}, {2, 3}, {4, 5}};
  CHECK(s.analyse(engine, pointers(first), {8, 8, 8}));
  CHECK(s.copies().size() == 2);
  const std::vector<Route> second = {{1, 2}, {3, 4}, {5, 6}, {6, 7}};
  // {r1 r2}, {r3 r4} and the two-flow component {r5 r6, r6 r7}: one copy.
  CHECK(s.analyse(engine, pointers(second), {8, 8, 8, 8}));
  REQUIRE(s.copies().size() == 1);
  CHECK(s.copies()[0].component == 1);
  CHECK(s.played() == std::vector<std::uint32_t>{0, 2, 3});
}
