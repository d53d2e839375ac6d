#pragma once
// The size of a trace before the run (issue 13): events and bytes that `--trace` will write
// for a collective or a training program, from what is known before simulating — supersteps
// and transfers (coll::count_steps), ops x traced IPUs — under the active filters (IPUs,
// tiers; a time window is not known to cover any share of the run, so it is ignored here).
// Bytes per event are measured on real traces (see trace_estimate.cpp); presets land within
// 2x of the real file (tests/regression/traces/trace_estimate_e2e_test.cpp).
// The announce_* functions register the estimate with the TraceWriter (which warns above
// 1 GiB) and, for collectives, the progress total so the progress line can show an ETA.
#include <cstdint>

#include "collectives/algorithms/algorithm.hpp"

namespace ipusim {

struct TraceFilter;

namespace rt {
struct Program;
}

/// Estimated trace events and bytes.
struct TraceEstimate {
  double events = 0;
  double bytes = 0;
};

/// Trace of `repeat` plays of `request` by a CollectivePlayer with per-superstep tracing on a
/// system of `system_ipus` IPUs: per superstep a slice on the collectives track, and — up to
/// 256 IPUs or with `--trace-ipus` — a sync and a collective slice per member IPU plus a slice
/// per link crossed; the utilisation counters.
TraceEstimate estimate_collective_trace(const coll::CollectiveRequest& request,
                                        std::uint64_t repeat, std::uint32_t system_ipus,
                                        const TraceFilter& filter);

/// Trace of a training program played by the executor over `replicas` replicas of
/// `ipus_per_replica` IPUs on a system of `system_ipus` IPUs: one slice per op and traced
/// replica (every replica up to 64 IPUs or with `--trace-ipus`, else replica 0), a DDR slice
/// per remote exchange, a slice per phase and the utilisation counters.
TraceEstimate estimate_program_trace(const rt::Program& program, std::uint32_t replicas,
                                     std::uint32_t ipus_per_replica, std::uint32_t system_ipus,
                                     const TraceFilter& filter);

/// Before a `collective` run plays `request` `repeat` times: adds its supersteps to the
/// progress total (so the progress line shows n/N supersteps and an ETA) and, when tracing,
/// its trace estimate to the TraceWriter. Throws coll::RequestError on a bad request.
void announce_collective_run(const coll::CollectiveRequest& request, std::uint64_t repeat,
                             std::uint32_t system_ipus);

/// Before a training program runs: its trace estimate to the TraceWriter, when tracing.
void announce_program_trace(const rt::Program& program, std::uint32_t replicas,
                            std::uint32_t ipus_per_replica, std::uint32_t system_ipus);

}  // namespace ipusim
