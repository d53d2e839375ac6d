// auto over two and four IPU-Link domains (pod128, pod256) on both sides of direct's crossover
// with hierarchical: each case runs algorithm `best`, which simulates every candidate in its
// own trial, and expects auto to take whichever of direct and hierarchical those trials find
// faster (the only two auto runs at these sizes over several domains) — the fixed algorithms'
// own times, not auto_select.cpp's table. The sizes are scanned sizes (tools/auto_thresholds.py:
// 256 B x 2^(k/8) rounded to 4 B) a step or two either side of each preset's crossover.
#include <algorithm>
#include <string>

#include "tests/component/collectives/collective_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// Runs `best` for `op` of `bytes` input per replica on `preset` and checks auto's choice
/// against the faster of direct and hierarchical; returns that choice.
std::string check_auto(const std::string& preset, const std::string& op, double bytes) {
  const Run run = run_collective(
      preset, {{"kind", "collective"}, {"op", op}, {"bytes", bytes}, {"algorithm", "best"}});
  const Json& b = run.results["best"];
  double direct = -1, hierarchical = -1;
  for (const Json& c : b["candidates"]) {
    if (c["algorithm"] == "direct") direct = c["time_ns"].get<double>();
    if (c["algorithm"] == "hierarchical") hierarchical = c["time_ns"].get<double>();
  }
  REQUIRE(direct > 0);
  REQUIRE(hierarchical > 0);
  const std::string faster = direct <= hierarchical ? "direct" : "hierarchical";
  INFO(preset << " " << op << " " << bytes << " B: direct " << direct << " ns, hierarchical "
              << hierarchical << " ns");
  CHECK(b["auto_choice"] == faster);
  CHECK(b["auto_time_ns"].get<double>() == std::min(direct, hierarchical));
  return faster;
}

}  // namespace

// Two domains (pod128). AllReduce: direct and hierarchical cross between 1617124 and
// 1763488 B; auto's two-domain threshold (1482912 B, the Bow's crossover) lies below, so the
// cases take 1482912 and 1763488 B, where both agree.
TEST_CASE("pod128 allreduce of 1482912 B: auto runs direct, the faster", "[auto][domains]") {
  CHECK(check_auto("pod128", "allreduce", 1482912) == "direct");
}
TEST_CASE("pod128 allreduce of 1763488 B: auto runs hierarchical, the faster", "[auto][domains]") {
  CHECK(check_auto("pod128", "allreduce", 1763488) == "hierarchical");
}
// AllGather, compared by its output (128 x input): crossover between 11584 and 12632 B input.
TEST_CASE("pod128 all_gather of 11584 B: auto runs direct, the faster", "[auto][domains]") {
  CHECK(check_auto("pod128", "all_gather", 11584) == "direct");
}
TEST_CASE("pod128 all_gather of 12632 B: auto runs hierarchical, the faster", "[auto][domains]") {
  CHECK(check_auto("pod128", "all_gather", 12632) == "hierarchical");
}
// Broadcast: crossover between 2232 and 2436 B (the root's 64 copies over its GW-Links).
TEST_CASE("pod128 broadcast of 2232 B: auto runs direct, the faster", "[auto][domains]") {
  CHECK(check_auto("pod128", "broadcast", 2232) == "direct");
}
TEST_CASE("pod128 broadcast of 2436 B: auto runs hierarchical, the faster", "[auto][domains]") {
  CHECK(check_auto("pod128", "broadcast", 2436) == "hierarchical");
}

// Four domains (pod256). AllReduce: crossover between 1923096 and 2097152 B, above the
// two-domain one (hierarchical's GW-Link tier takes more supersteps).
TEST_CASE("pod256 allreduce of 1923096 B: auto runs direct, the faster", "[auto][domains]") {
  CHECK(check_auto("pod256", "allreduce", 1923096) == "direct");
}
TEST_CASE("pod256 allreduce of 2097152 B: auto runs hierarchical, the faster", "[auto][domains]") {
  CHECK(check_auto("pod256", "allreduce", 2097152) == "hierarchical");
}
// AllGather (256 x input): crossover between 7512 and 8192 B input.
TEST_CASE("pod256 all_gather of 7512 B: auto runs direct, the faster", "[auto][domains]") {
  CHECK(check_auto("pod256", "all_gather", 7512) == "direct");
}
TEST_CASE("pod256 all_gather of 8192 B: auto runs hierarchical, the faster", "[auto][domains]") {
  CHECK(check_auto("pod256", "all_gather", 8192) == "hierarchical");
}
// Broadcast: crossover between 860 and 940 B, a third of pod128's (192 copies over the root's
// GW-Links instead of 64); 788 B is the scanned size at auto's threshold.
TEST_CASE("pod256 broadcast of 788 B: auto runs direct, the faster", "[auto][domains]") {
  CHECK(check_auto("pod256", "broadcast", 788) == "direct");
}
TEST_CASE("pod256 broadcast of 940 B: auto runs hierarchical, the faster", "[auto][domains]") {
  CHECK(check_auto("pod256", "broadcast", 940) == "hierarchical");
}
