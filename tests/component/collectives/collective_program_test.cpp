// The on-chip program around each cross-replica copy of a collective (runtime/exec/
// collective_program.hpp) inside whole collectives, worked by hand from the resolved
// parameters: a small all-reduce over replica pairs, pairs whose flows contend for links, and a
// large all-reduce whose fragments go through a Switch.
#include "tests/component/collectives/collective_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// Sum of a collective's time_by_tier_ns: every part of its simulated time.
double tier_sum(const Json& results) {
  double sum = 0;
  for (const auto& [k, v] : results["time_by_tier_ns"].items()) sum += v.get<double>();
  return sum;
}

/// Distributed batch norm's shape: 256 channels of statistics (fp16 mean + fp32 power =
/// 1536 B) all-reduced over replica pairs.
constexpr double kPairBytes = 1536;

Run run_pairs(const std::string& preset, const std::string& group) {
  return run_collective(preset, {{"kind", "collective"},
                                 {"op", "allreduce"},
                                 {"bytes", kPairBytes},
                                 {"comm_group", group},
                                 {"algorithm", "clockwise"}});
}

}  // namespace

TEST_CASE("a small all-reduce over replica pairs pays its program once, by hand", "[program]") {
  // Both pairs of pod4 (0-1, 2-3) run at once on their own IPUs and partner links.
  const Run run = run_pairs("pod4", "consecutive:2");
  const Json& r = run.resolved;
  CHECK(run.results["steps"] == 2);
  // One reduce-scatter step and one all-gather step, fragments of 192 float32 (32 per tile at
  // the 128-B minimum: dynamic slices). Reduce-scatter: Copy into the sliceable tensor, map,
  // dynamicSlice, Copy; step: mapInPlace, dynamicSlice, Copy. All-gather: map, Copy,
  // dynamicUpdate; step: mapInPlace, Copy, dynamicUpdate; Copy out. Per phase 2 index ops,
  // 2 slices / updates, 2 copies of 128 B a tile, 1 copy of the 1536-B input (2 B a tile):
  // 14 supersteps, 8 small vertices, 10 exchange phases in all.
  ProgramParts p;
  p.index_ops = 4;
  p.slices = 4;
  p.copies = 4;
  p.input_copies = 2;
  const double expected = program_ns(r, p, kPairBytes / 4 / 2, kPairBytes / 4, 4);
  CHECK(expected == Approx(allreduce_program_ns(r, 1, kPairBytes / 4 / 2, kPairBytes / 4)));
  CHECK(run.results["time_by_tier_ns"]["program"].get<double>() == Approx(expected).epsilon(1e-9));
  // It is part of the collective's time, not beside it (each wait rounds to a picosecond).
  CHECK(run.total_ns == Approx(tier_sum(run.results)).margin(2 * 0.004));
}

TEST_CASE("pairs whose flows contend for links pay the same program, the links more",
          "[program][contention]") {
  // Orthogonal pairs on pod16 (stride 8: 0-8, 2-10, ...): on each rail's ring of 8 IPUs the 8
  // flows of a step each cross 4 of its 8 rail bundles, 4 flows per bundle on average, so the
  // busiest bundle carries at least 4 of them.
  const Run run = run_pairs("pod16", "orthogonal:2");
  const Json& r = run.resolved;
  CHECK(run.results["steps"] == 2);
  // The program is on-chip: the same fragments cost what the uncontended pairs' cost.
  const double program = allreduce_program_ns(r, 1, kPairBytes / 4 / 2, kPairBytes / 4);
  CHECK(run.results["time_by_tier_ns"]["program"].get<double>() == Approx(program).epsilon(1e-9));
  // Each step's 768 B take at least 4 hops' latency plus 768 B at a quarter of a rail bundle
  // (the partner pairs of pod4 take one hop at a whole partner bundle).
  const double latency = r["ipu_link"]["latency_ns"].get<double>();
  const double bound = 2 * (4 * latency + (kPairBytes / 2) / (rail_Bpns(r) / 4));
  CHECK(run.results["time_by_tier_ns"]["ipu_link"].get<double>() >= bound);
  // The program adds to the contended exchange.
  CHECK(run.total_ns == Approx(tier_sum(run.results)).margin(2 * 0.004));
  CHECK(run.total_ns > bound + program);
}

TEST_CASE("a large all-reduce slices its fragments with a Switch of copies", "[program]") {
  // 16 MiB over 16 replicas: fragments of 262,144 float32, 179 per tile (> 96): Switch.
  const double bytes = 1 << 24;
  const Run run = run_collective(
      "pod16",
      {{"kind", "collective"}, {"op", "allreduce"}, {"bytes", bytes}, {"algorithm", "clockwise"}});
  const Json& r = run.resolved;
  const unsigned n = 16;
  CHECK(run.results["steps"] == 2 * (n - 1));
  // Reduce-scatter: prologue map + Switch + Copy, per step mapInPlace + Switch + Copy: 16 of
  // each. All-gather: prologue map + Copy + Switch + Copy, per step mapInPlace + Copy + Switch +
  // Copy: 16 index ops, 16 Switches, 32 copies. No sliceable tensor: no input copies.
  ProgramParts p;
  p.index_ops = 32;
  p.switches = 32;
  p.copies = 48;
  const double expected = program_ns(r, p, bytes / 4 / n, bytes / 4, 4);
  CHECK(expected == Approx(allreduce_program_ns(r, n - 1, bytes / 4 / n, bytes / 4)));
  CHECK(run.results["time_by_tier_ns"]["program"].get<double>() == Approx(expected).epsilon(1e-9));
  CHECK(run.total_ns == Approx(tier_sum(run.results)).margin(2 * (n - 1) * 0.004));
}
