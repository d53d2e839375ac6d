// auto's small-message threshold against the crossover worked by hand: a Broadcast over the 64
// IPUs of pod64 (a torus), direct against meet-in-the-middle, from the closed-form costs of
// their supersteps. The torus threshold is one for pod16 and pod64 (the span's minimax,
// tools/auto_thresholds.py): pod64's crossover lies between the scanned size below it and the
// threshold, and auto is within 3 % of the faster one on both sides.
#include <cmath>

#include "collectives/algorithms/auto_select.hpp"
#include "tests/component/collectives/collective_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

constexpr double kN = 64;
/// auto_select.cpp's torus Broadcast threshold and the sizes of the 1/8-octave scan on either
/// side (tools/auto_thresholds.py: 256 B x 2^(k/8) rounded to 4 B; k = 65, 66 and 67).
constexpr double kPrevScanned = 71468;
constexpr double kThreshold = 77936;
constexpr double kNextScanned = 84988;

/// Both algorithms' programs: every part a sliceable all-gather-style step (the fragment has
/// at most 96 elements on a tile), the input copied once per phase. Direct: one phase of one
/// step; meet-in-the-middle: a scatter phase of one step and an all-gather phase of 32.
double program(const Json& r, double bytes, bool direct) {
  const ProgramParts one = ring_phase_parts(false, 1, true);
  if (direct) return program_ns(r, one, bytes / 4, bytes / 4, 4);
  ProgramParts p = ring_phase_parts(false, kN / 2, true);
  p.index_ops += one.index_ops;
  p.slices += one.slices;
  p.copies += one.copies;
  p.input_copies += one.input_copies;
  return program_ns(r, p, bytes / 4 / kN, bytes / 4, 4);
}

/// What every superstep across IPUs pays besides its traffic: the external sync over 64 IPUs,
/// the on-chip exchange's fixed cycles, the internal barrier and the external set-up.
double superstep(const Json& r) { return external_sync_ns(r, kN) + fixed_ns(r) + cross_ipu_ns(r); }

/// Hand count of the links on a 2 x 32 torus (64 IPUs, rails of 32 closed into rings, partner
/// rungs): the root's busiest rail bundle carries 15 flows to its own rail, 15 to the partner
/// rail and one of the two farthest IPUs (rung 16): 31 flows; the farthest route is 16 rail hops
/// and the partner rung, 17 hops, 16 of them storing and forwarding one chunk.
double route_ns(const Json& r) {
  const double alpha = r["ipu_link"]["latency_ns"].get<double>();
  const double chunk = r["ipu_link"]["chunk_bytes"].get<double>() / rail_Bpns(r);
  return 17 * alpha + 16 * chunk;
}

/// Direct: one superstep; the root sends the whole tensor to each of 63 members.
double direct_ns(const Json& r, double bytes) {
  return superstep(r) + route_ns(r) + 31 * bytes / rail_Bpns(r) + program(r, bytes, true);
}

/// Meet-in-the-middle: a scatter superstep (the root sends each member its 1/64, 31 pieces on
/// the busiest bundle, the same routes) and 32 all-gather supersteps, each moving one piece one
/// ring hop in each direction (the last in one): 33 supersteps, 31/64 + 32/64 of the tensor on
/// the busiest bundle.
double mitm_ns(const Json& r, double bytes) {
  const double alpha = r["ipu_link"]["latency_ns"].get<double>();
  return 33 * superstep(r) + route_ns(r) + 32 * alpha + (31 + 32) * bytes / kN / rail_Bpns(r) +
         program(r, bytes, false);
}

Run run_broadcast(double bytes) {
  return run_collective(
      "pod64",
      {{"kind", "collective"}, {"op", "broadcast"}, {"bytes", bytes}, {"algorithm", "auto"}});
}

}  // namespace

TEST_CASE("pod64 broadcast at the torus threshold: auto runs direct, within 3 % of the faster",
          "[auto][threshold]") {
  const Run run = run_broadcast(kThreshold);
  const Json& r = run.resolved;
  CHECK(coll::small_message_max_bytes(coll::CollectiveOp::Broadcast, coll::GroupSpan::Torus,
                                      {1, 0}) == kThreshold);
  CHECK(run.results["algorithm"] == "direct");
  CHECK(run.total_ns == Approx(direct_ns(r, kThreshold)).margin(0.01));
  // One scanned size below, direct is the faster; at the threshold pod64 is just past its
  // crossover (below), so direct is slower there, by less than 3 %.
  CHECK(direct_ns(r, kPrevScanned) < mitm_ns(r, kPrevScanned));
  CHECK(direct_ns(r, kThreshold) > mitm_ns(r, kThreshold));
  CHECK(direct_ns(r, kThreshold) < 1.03 * mitm_ns(r, kThreshold));
  // The crossover: meet-in-the-middle's 32 more supersteps, 32 more ring hops and 33 more
  // program steps (only the input copy grows with the size) against direct's 31 - 63/64 more
  // tensors on the busiest bundle:
  //   B* = (32 superstep + 32 alpha + program_mitm(B*) - program_direct(B*)) R / (31 - 63/64)
  // With the fitted GC200 parameters: superstep 1174.34 ns, alpha 100 ns, the program
  // difference 37,241.5 ns (its vertices at poplibs' cycle estimates), R = 2 x 17.18 GB/s x
  // 0.85 = 29.206 B/ns: B* = (37,578.9 + 3,200 + 37,241.5) x 29.206 / 30.0156 = 75.9 kB, which
  // lies between the scanned size below the threshold and the threshold.
  const double R = rail_Bpns(r);
  const double alpha = r["ipu_link"]["latency_ns"].get<double>();
  double crossover = kThreshold;
  for (int i = 0; i < 4; ++i) {  // the program's input copy depends (weakly) on the size
    crossover = (32 * superstep(r) + 32 * alpha + program(r, crossover, false) -
                 program(r, crossover, true)) *
                R / (31 - 63.0 / 64);
  }
  CHECK(crossover == Approx(75915).epsilon(1e-3));
  CHECK(mitm_ns(r, crossover) == Approx(direct_ns(r, crossover)).epsilon(1e-9));
  CHECK(kPrevScanned <= crossover);
  CHECK(crossover < kThreshold);
}

TEST_CASE("pod64 broadcast at the next scanned size: auto runs meet-in-the-middle, the faster",
          "[auto][threshold]") {
  const Run run = run_broadcast(kNextScanned);
  const Json& r = run.resolved;
  CHECK(run.results["algorithm"] == "meet_in_the_middle");  // GCL's rule: 64 ranks > 16
  CHECK(run.total_ns == Approx(mitm_ns(r, kNextScanned)).margin(0.05));
  CHECK(mitm_ns(r, kNextScanned) < direct_ns(r, kNextScanned));
}
