// Collective plans (runtime/exec/collective_plan.hpp): the compact form of a folded batch worked
// out by hand on two identical domains and a shared resource, and when a step's sizes let a
// recorded folding be reused.
#include "runtime/exec/collective_plan.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace ipusim;

namespace {

std::vector<const Route*> pointers(const std::vector<Route>& routes) {
  std::vector<const Route*> out;
  for (const Route& r : routes) out.push_back(&r);
  return out;
}

/// Two domains of two resources (r0 r1 | r2 r3; r0 ~ r2 and r1 ~ r3) and a shared r4, all
/// 10 B/ns and 5 ns: the cells are {r0 r2}, {r1 r3}, {r4}.
ResourceCells two_domains() {
  std::vector<ResourceSpec> specs(5);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    specs[i].name = "r" + std::to_string(i);
    specs[i].capacity_Bpns = 10;
    specs[i].latency_ns = 5;
  }
  return ResourceCells({0, 1, 0, 1, 2}, specs);
}

}  // namespace

TEST_CASE("plan: a folded batch's compact form keeps one entry per class", "[plan]") {
  const ResourceCells cells = two_domains();
  // f0 = r0 r4 and f2 = r2 r4 (100 B): one class of 2 flows, weight 2 x 1 hop / 2 members = 1
  // on the cell {r0 r2} and 2 x 1 / 1 = 2 on r4. f1 = r1 and f3 = r3 (50 B): one class of 2,
  // weight 2 x 1 / 2 = 1 on {r1 r3}. Classes in order of their first flow: f0's, then f1's.
  const std::vector<Route> routes = {{0, 4}, {1}, {2, 4}, {3}};
  const std::vector<std::uint64_t> bytes = {100, 50, 100, 50};
  const auto folded = fold_batch(cells, pointers(routes), bytes);
  REQUIRE(folded);
  const auto compact = compact_folding(*folded, pointers(routes), bytes);
  REQUIRE(compact);
  CHECK(compact->flows == 4);
  REQUIRE(compact->routes.size() == 2);
  CHECK(compact->routes[0] == &routes[0]);
  CHECK(compact->routes[1] == &routes[1]);
  CHECK(compact->bytes == std::vector<std::uint64_t>{100, 50});
  CHECK(compact->folded.class_of == std::vector<std::uint32_t>{0, 1});
  const auto& c = compact->folded.classes;
  REQUIRE(c.size() == 2);
  CHECK(c[0].first == 0);
  CHECK(c[0].count == 2);
  CHECK(c[0].weights == std::vector<std::pair<ResourceId, std::uint32_t>>{{0, 1}, {4, 2}});
  CHECK(c[1].first == 1);
  CHECK(c[1].count == 2);
  CHECK(c[1].weights == std::vector<std::pair<ResourceId, std::uint32_t>>{{1, 1}});
}

TEST_CASE("plan: a batch with a flow that crosses nothing has no compact form", "[plan]") {
  const ResourceCells cells = two_domains();
  const std::vector<Route> routes = {{0}, {}, {2}};
  const std::vector<std::uint64_t> bytes = {8, 8, 8};
  const auto folded = fold_batch(cells, pointers(routes), bytes);
  REQUIRE(folded);
  CHECK(compact_folding(*folded, pointers(routes), bytes) == nullptr);
}

TEST_CASE("plan: sizes that relabel one to one reuse a folding, others do not", "[plan]") {
  CHECK(sizes_relabel_one_to_one({10, 10, 20}, {7, 7, 9}));
  CHECK(sizes_relabel_one_to_one({10, 20}, {20, 10}));
  CHECK_FALSE(sizes_relabel_one_to_one({10, 10, 20}, {7, 8, 9}));  // 10 -> 7 and 10 -> 8
  CHECK_FALSE(sizes_relabel_one_to_one({10, 20}, {7, 7}));         // two classes would merge
  CHECK_FALSE(sizes_relabel_one_to_one({10}, {10, 10}));
  // The relation the reuse rests on: equal routes and related sizes fold alike.
  const ResourceCells cells = two_domains();
  const std::vector<Route> routes = {{0, 4}, {1}, {2, 4}, {3}};
  const auto a = fold_batch(cells, pointers(routes), {100, 50, 100, 50});
  const auto b = fold_batch(cells, pointers(routes), {30, 60, 30, 60});
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(a->classes.size() == b->classes.size());
  for (std::size_t i = 0; i < a->classes.size(); ++i) {
    CHECK(a->classes[i].first == b->classes[i].first);
    CHECK(a->classes[i].count == b->classes[i].count);
    CHECK(a->classes[i].weights == b->classes[i].weights);
  }
  CHECK(b->classes[0].bytes == 30);
}

TEST_CASE("plan: run-length kept steps compare and relabel as the whole vectors", "[plan]") {
  // {10, 10, 10, 20, 20, 10} is three runs: (10, 3), (20, 2), (10, 1).
  const std::vector<std::uint64_t> a = {10, 10, 10, 20, 20, 10};
  const RunLengthVector<std::uint64_t> ra(a);
  CHECK(ra.runs.size() == 3);
  CHECK(ra.runs[1] == std::make_pair<std::uint64_t, std::uint32_t>(20, 2));
  CHECK(ra.size == 6);
  CHECK(ra.equals(a));
  CHECK_FALSE(ra.equals({10, 10, 10, 20, 20, 20}));
  CHECK_FALSE(ra.equals({10, 10, 10, 20, 20}));
  // The same answers as sizes_relabel_one_to_one on the whole vector.
  const std::vector<std::vector<std::uint64_t>> bs = {
      {7, 7, 7, 9, 9, 7},  // 10 -> 7, 20 -> 9: relabels
      {9, 9, 9, 7, 7, 9},  // 10 -> 9, 20 -> 7: relabels
      {7, 7, 8, 9, 9, 7},  // 10 -> 7 and 10 -> 8 inside the first run
      {7, 7, 7, 9, 9, 8},  // 10 -> 7, then 10 -> 8 in the last run
      {7, 7, 7, 7, 7, 7},  // 10 and 20 would merge
      {7, 7, 7, 9, 9}};    // another length
  const std::vector<bool> expected = {true, true, false, false, false, false};
  for (std::size_t i = 0; i < bs.size(); ++i) {
    CHECK(sizes_relabel_one_to_one(ra, bs[i]) == expected[i]);
    CHECK(sizes_relabel_one_to_one(a, bs[i]) == expected[i]);
  }
  // Routes kept as runs compare by pointer, element by element.
  const std::vector<Route> routes = {{0, 4}, {1}};
  const std::vector<const Route*> p = {&routes[0], &routes[0], &routes[1]};
  const RunLengthVector<const Route*> rp(p);
  CHECK(rp.runs.size() == 2);
  CHECK(rp.equals(p));
  CHECK_FALSE(rp.equals({&routes[0], &routes[1], &routes[1]}));
}
