// Max-min allocation does not depend on the order of flows or the labels of resources, bit for
// bit: symmetric flows get identical rates, and a folded batch gets the whole batch's rates.
#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "models/network/flow_engine.hpp"
#include "models/network/flow_fold.hpp"
#include "tests/unit/models/network/resource_spec_helper.hpp"

using namespace ipusim;
using ipusim::test::res;

namespace {

/// Two links A and B of 1 GB/s; a1, a2 cross A, b1, b2 cross B, s crosses both. Each link
/// carries 3 flows: max-min gives all five 1/3 GB/s at one level. Returns the rates in the
/// order a1, a2, s, b1, b2. `a_first`: A gets the lower resource id; `order` is the start
/// order (indices into a1, a2, s, b1, b2).
std::vector<double> two_links(bool a_first, const std::vector<int>& order) {
  FlowEngine e;
  const ResourceId first = e.add_resource(res("x", 1.0, 0));
  const ResourceId second = e.add_resource(res("y", 1.0, 0));
  const ResourceId a = a_first ? first : second, b = a_first ? second : first;
  const std::vector<Route> routes = {{a}, {a}, {a, b}, {b}, {b}};
  std::vector<std::uint32_t> slot(routes.size());
  for (int i : order) slot[i] = e.start(0.0, routes[i], 3000);
  e.reallocate(0.0);
  std::vector<double> rates;
  for (std::uint32_t s : slot) rates.push_back(e.rate_of(s));
  return rates;
}

}  // namespace

TEST_CASE("fair allocation: flows frozen at one level get that level's share, in any order",
          "[flow_engine][fold]") {
  // By hand: both links have share 1 / 3; every flow crosses one of them, so all freeze at the
  // level 1.0 / 3 (the double nearest 1/3). Freezing one link's flows first and then
  // recomputing the other's share from what is left, (1 - 1.0/3) / 2, gives 1.0/3 + 1 ulp
  // (1 - 1.0/3 rounds up to even): that would depend on which link has the lower id.
  const double third = 1.0 / 3;
  REQUIRE((1.0 - third) / 2 != third);  // the trap is real in IEEE double
  const std::vector<double> want(5, third);
  CHECK(two_links(true, {0, 1, 2, 3, 4}) == want);
  CHECK(two_links(false, {0, 1, 2, 3, 4}) == want);
  CHECK(two_links(true, {4, 2, 0, 3, 1}) == want);
  CHECK(two_links(false, {3, 4, 2, 1, 0}) == want);
}

TEST_CASE("fair allocation: capacity a level leaves is taken off per link and value at once",
          "[flow_engine][fold]") {
  // A link C of 10 GB/s carries three flows bottlenecked at 1/3 elsewhere (links A_k of 1 GB/s,
  // each with two more flows of its own) and one flow d of its own. d gets what is left:
  // 10 - 3 x (1.0/3) = 10 - 1 = 9 in one step; subtracting 1/3 three times in a row gives
  // 9.000000000000002 instead (the order of the flows does not matter then, but the count of
  // subtractions does, and a folded flow standing for 3 subtracts once).
  const double third = 1.0 / 3;
  REQUIRE(((10.0 - third) - third) - third != 9.0);
  for (const bool reversed : {false, true}) {
    FlowEngine e;
    std::vector<ResourceId> a;
    for (int k = 0; k < 3; ++k) a.push_back(e.add_resource(res("a", 1.0, 0)));
    const ResourceId c = e.add_resource(res("c", 10.0, 0));
    std::vector<Route> routes;
    for (int k = 0; k < 3; ++k) routes.push_back({a[k], c});
    for (int k = 0; k < 3; ++k) routes.push_back({a[k]}), routes.push_back({a[k]});
    routes.push_back({c});
    if (reversed) std::reverse(routes.begin(), routes.end());
    std::vector<std::uint32_t> slots;
    for (const Route& r : routes) slots.push_back(e.start(0.0, r, 1000));
    e.reallocate(0.0);
    const std::size_t d = reversed ? 0 : routes.size() - 1;
    for (std::size_t i = 0; i < routes.size(); ++i) {
      INFO(i);
      CHECK(e.rate_of(slots[i]) == (i == d ? 9.0 : third));
    }
  }
}

TEST_CASE("fair allocation: a folded batch gets the whole batch's rates bit for bit",
          "[flow_engine][fold]") {
  // The two-link case folded: A and B one cell; class {a1, a2, b1, b2} weight 2 on A, class
  // {s} weight 1 (it crosses each member once). Weight 3 on A: 1/3 for both classes, the
  // value two_links() gives every flow.
  const std::vector<ResourceSpec> specs = {res("x", 1.0, 0), res("y", 1.0, 0)};
  FlowEngine e;
  for (const auto& s : specs) e.add_resource(s);
  e.set_fold(std::make_shared<ResourceCells>(std::vector<std::uint32_t>{0, 0}, specs));
  REQUIRE(e.folding());
  const std::vector<Route> routes = {{0}, {0}, {0, 1}, {1}, {1}};
  std::vector<const Route*> ptrs;
  for (const Route& r : routes) ptrs.push_back(&r);
  int tag = 0;
  e.start_batch(0.0, ptrs, std::vector<std::uint64_t>(5, 3000), &tag);
  CHECK(e.folded_batches() == 1);
  e.reallocate(0.0);
  // Both classes end at 3000 / (1.0/3) = 9000 ns (latency 0: drain end and arrival at once),
  // one arrival each.
  const double t = e.next_event_ns();
  CHECK(t == 3000 / (1.0 / 3));
  std::vector<Arrival> arrivals;
  e.advance(t, arrivals);
  REQUIRE(arrivals.size() == 2);
  CHECK(arrivals[0].end_ns == t);
  CHECK(arrivals[1].end_ns == t);
  CHECK(arrivals[0].count + arrivals[1].count == 5);
}
