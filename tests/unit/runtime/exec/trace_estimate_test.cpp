// Trace size before the run (runtime/exec/trace_estimate.hpp) and the progress total of a
// collective: estimates worked by hand from the closed forms and the per-event byte sizes
// documented in trace_estimate.cpp, and the warning text (sim/trace.hpp).
#include "runtime/exec/trace_estimate.hpp"

#include <catch2/catch.hpp>

#include "collectives/schedule/schedule.hpp"
#include "models/params/model_params.hpp"
#include "runtime/ir/program.hpp"
#include "sim/progress.hpp"
#include "sim/trace.hpp"

using namespace ipusim;

namespace {

/// AllReduce over one group of `k` replicas (1 IPU each), clockwise ring: 2(k-1) supersteps
/// of k transfers.
coll::CollectiveRequest ring(std::uint32_t k) {
  coll::CollectiveRequest r;
  r.op = coll::CollectiveOp::AllReduce;
  r.elements_per_replica = 1600;
  r.groups.resize(1);
  for (std::uint32_t i = 0; i < k; ++i) r.groups[0].push_back(i);
  r.algorithm = coll::Algorithm::Clockwise;
  r.topology.ild_size_ipus = 4096;
  return r;
}

}  // namespace

TEST_CASE(
    "collective progress: the total is the supersteps of every play, so the line has N and an ETA",
    "[progress][trace_estimate]") {
  RunProgress& p = RunProgress::instance();
  p.start(false, false);  // disabled: nothing printed, totals still kept
  announce_collective_run(ring(16), 3, 16);
  CHECK(p.total() == 3 * 30);
  CHECK(p.unit() == "supersteps");
  p.done(45, "supersteps");
  CHECK(p.fraction_done() == Approx(0.5));
  // The line as report() draws it: 45 of 90 after 4 s of wall time -> ETA 4 s.
  const double elapsed_s = 4.0;
  const double eta_s = elapsed_s * (1 - p.fraction_done()) / p.fraction_done();
  CHECK(RunProgress::line(1e6, p.done_units(), p.total(), p.unit(), 2e6, eta_s) ==
        "[progress] simulated 1.000 ms, 45/90 supersteps, 2.00 M events/s, ETA 4.0 s");
  p.start(false, false);
}

TEST_CASE("collective trace estimate: a 16-replica ring, by hand", "[trace_estimate]") {
  // 30 supersteps, 480 transfers, 16 member IPUs, all traced (16 <= 256 IPUs):
  //   collectives track 2 x 30 events (260 B a pair), counters 3 x 30 (100 B),
  //   metadata 4 x 16 (82 B), sync + collective slices 2 x 30 x 16 (112 B),
  //   link pairs min(480, 30 x 4 x 16) = 480 -> 960 events (113 B).
  const TraceFilter all;
  const TraceEstimate e = estimate_collective_trace(ring(16), 1, 16, all);
  CHECK(e.events == 60 + 90 + 64 + 960 + 960);
  CHECK(e.bytes == Approx(30 * 260 + 90 * 100 + 64 * 82 + 960 * 112 + 960 * 113));

  // Above 256 IPUs only the collectives track and the counters (no per-IPU tracks).
  const TraceEstimate big = estimate_collective_trace(ring(16), 2, 1024, all);
  CHECK(big.events == 2 * (60 + 90));

  // --trace-ipus 0-3: 4 of 16 IPUs; links of transfers with a selected end: 480 x 8/16.
  TraceFilter ipus;
  ipus.set_ipus("0-3");
  const TraceEstimate some = estimate_collective_trace(ring(16), 1, 16, ipus);
  CHECK(some.events == 60 + 90 + 4 * 4 + 2 * 30 * 4 + 2 * 240);

  // --trace-tiers compute: only the sync slices (no tier) and the metadata.
  register_model_params();  // the tier names --trace-tiers takes
  TraceFilter compute;
  compute.set_tiers("compute");
  const TraceEstimate sync_only = estimate_collective_trace(ring(16), 1, 16, compute);
  CHECK(sync_only.events == 64 + 30 * 16);
}

TEST_CASE("training trace estimate: a two-phase program, by hand", "[trace_estimate]") {
  rt::Program program;
  program.phases.resize(2);
  rt::LOp compute;
  compute.kind = rt::LKind::Compute;
  rt::LOp remote;
  remote.kind = rt::LKind::RemoteExchange;
  rt::LOp collective;
  collective.kind = rt::LKind::Collective;
  program.phases[0].ops = {compute, remote};
  program.phases[1].ops = {collective};
  // 4 replicas of 1 IPU, all traced: 3 ops x 4 slices (177 B), 4 DDR pairs (113 B an
  // event), 2 phase slices (95 B), 4 counters per network op (2 ops, 100 B), 5 metadata
  // events per IPU (82 B).
  const TraceEstimate e = estimate_program_trace(program, 4, 1, 4, TraceFilter{});
  CHECK(e.events == 12 + 8 + 2 + 8 + 20);
  CHECK(e.bytes == Approx(12 * 177 + 8 * 113 + 2 * 95 + 8 * 100 + 20 * 82));
  // Above 64 IPUs the executor traces replica 0 only.
  CHECK(estimate_program_trace(program, 4, 1, 128, TraceFilter{}).events == 3 + 2 + 2 + 8 + 5);
}

TEST_CASE("trace size warning: above 1 GiB, with the estimate and the filters to use",
          "[trace_estimate]") {
  TraceFilter f;
  CHECK(trace_size_warning(1.0e9, 1e6, f).empty());  // below 1 GiB = 1.074e9 B
  const std::string w = trace_size_warning(2.5e9, 2.2e7, f);
  CHECK(w.find("about 2.50 GB") != std::string::npos);
  CHECK(w.find("estimated before the run") != std::string::npos);
  for (const char* flag :
       {"--trace-ipus", "--trace-window", "--trace-tiers", "--trace-max-bytes"}) {
    CHECK(w.find(flag) != std::string::npos);
  }
  // A cap below 1 GiB keeps the file small: nothing to say. A larger cap is named.
  f.max_bytes = 100000000;
  CHECK(trace_size_warning(2.5e9, 2.2e7, f).empty());
  f.max_bytes = 2000000000;
  CHECK(trace_size_warning(5e9, 4e7, f).find("stop at --trace-max-bytes 2000000000") !=
        std::string::npos);
  // A window covers an unknown share of the run: no estimate-based warning.
  TraceFilter window;
  window.set_window("0:1000");
  CHECK(trace_size_warning(5e9, 4e7, window).empty());
}
