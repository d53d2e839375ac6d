#pragma once
// Shared set-up of the collective component tests: run one workload on a system preset
// (one elaboration per process) and closed-form pieces computed from resolved parameters.
#include <catch2/catch.hpp>
#include <cmath>
#include <systemc>

#include "models/params/model_params.hpp"
#include "models/system/system.hpp"
#include "runtime/workloads/runtime_params.hpp"
#include "runtime/workloads/workload.hpp"
#include "sim/output.hpp"
#include "tests/component/models/model_fixture.hpp"

namespace ipusim::test {

struct Run {
  Json results;
  Json resolved;
  double total_ns = 0;
  Json memory;
};

/// Simulates `workload` on a system preset and returns the collective's results.
inline Run run_collective(const std::string& preset, const Json& workload) {
  register_sim_params();
  register_model_params();
  register_runtime_params();
  ConfigDoc doc = ConfigDoc::load_file(test::source_dir() + "/configs/systems/" + preset + ".json");
  for (auto it = workload.begin(); it != workload.end(); ++it)
    doc.apply_override("/workload/" + it.key() + "=" + it.value().dump());
  auto system = build_system(doc);
  auto w = make_workload(*system, ConfigNode(doc, "").child("workload"));
  sc_core::sc_start();
  REQUIRE(w->finished());
  return {w->results(), doc.resolved(), w->total_time_ns(), w->memory()};
}

/// PLTEST global sync: ceil(15 ns x f x hops x 2), hops = 1 + floor(n / 4).
inline double external_sync_ns(const Json& resolved, unsigned n) {
  const double f = resolved["chip"]["clock_GHz"].get<double>();
  const double hops = 1 + n / 4;
  return std::ceil(resolved["system"]["sync_ns_per_hop"].get<double>() * f * hops * 2 - 1e-9) / f;
}

/// Bytes per ns of one rail bundle (up/down links) in one direction.
inline double rail_Bpns(const Json& r) {
  const auto& l = r["ipu_link"];
  return l["up_links"].get<double>() * l["bandwidth_GBps_per_link"].get<double>() *
         l["efficiency"].get<double>();
}

/// One step's on-tile reduction of `elems` float32 elements per IPU: popops' addInPlace
/// (BinaryOp1DInPlace ADD) on the busiest tile, which holds ceil(elems / tiles) elements but at
/// least 128 B (32 floats) and at most all of them; poplibs' estimate for it
/// (popopsCycleEstimators.cpp getBinaryOp1DInPlaceEstimate): 11 + W x (58 + 3 x loops), W
/// workers each adding ceil(n / W) floats two (one 64-bit vector) per 3-cycle loop.
inline double reduce_ns(const Json& r, double elems) {
  const auto& c = r["chip"];
  const double tiles = c["tiles"].get<double>();
  const double w = c["worker_threads"].get<double>();
  const double n = std::min(elems, std::max(std::ceil(elems / tiles - 1e-9), 32.0));
  const double cycles = 11 + w * (58 + 3 * std::ceil(std::ceil(n / w - 1e-9) / 2 - 1e-9));
  return cycles / c["clock_GHz"].get<double>();
}

/// Parts of a collective's on-chip program (runtime/exec/collective_program.hpp).
struct ProgramParts {
  double index_ops = 0, slices = 0, switches = 0, copies = 0, input_copies = 0;
};

/// The parts of one ring phase of `steps` cross-replica steps, counted from poplibs'
/// CollectivesProgram.hpp / ReplicatedCollectives.cpp: each step a mapInPlace and a slice /
/// update (dynamicSlice or dynamicUpdate when `sliceable`, else a Switch) and a Copy (two
/// in a Switch all-gather); the prologue the same once more (map, first slice, the
/// reduce-scatter's dynamicSlice Copy or the all-gather's first-fragment Copy) and, when
/// sliceable, one copy of the whole input into (reduce-scatter) or out of (all-gather into a
/// given output) the sliceable tensor.
inline ProgramParts ring_phase_parts(bool reduce, double steps, bool sliceable,
                                     bool own_output = false) {
  ProgramParts p;
  p.index_ops = steps + 1;
  (sliceable ? p.slices : p.switches) = steps + 1;
  p.copies = !reduce && !sliceable ? 2 * steps + 2 : steps + 1;
  p.input_copies = sliceable && (reduce || !own_output) ? 1 : 0;
  return p;
}

/// Time of `p` for fragments of `frag_elems` elements of `elem_bytes` (inputs of
/// `input_elems`) from the resolved parameters: every part is a superstep paying the internal
/// sync; a compute set pays its vertex's poplibs estimate on W workers (index op: one
/// UNSIGNED_INT added in place, 11 + W x (58 + 7); slice / update: a dynamic slice of the
/// fragment's elements on its busiest tile, 11 + 14 + W x (39 + 24 + 2 x floor(ceil(n / W) /
/// V)), V = 2 floats or 4 halves per 64-bit copy); the index (4 B)
/// of a slice or Switch and every copy cross an exchange phase: exchange_fixed_cycles plus the
/// longer of the busiest tile's bytes at the per-tile rate and the farthest word's flight
/// (ceil(cycles per column x (columns - 1)) + 1). A fragment lies on at least 128 B per tile.
inline double program_ns(const Json& r, const ProgramParts& p, double frag_elems,
                         double input_elems, double elem_bytes) {
  const auto& c = r["chip"];
  const double tiles = c["tiles"].get<double>();
  const double sync = c["sync_internal_cycles"].get<double>();
  const double fixed = c["exchange_fixed_cycles"].get<double>();
  const double rate = c["exchange_bytes_per_cycle_per_tile"].get<double>();
  const double flight = std::ceil(c["exchange_cycles_per_column"].get<double>() *
                                      (c["exchange_columns"].get<double>() - 1) -
                                  1e-9) +
                        1;
  const double w = c["worker_threads"].get<double>();
  const double per_tile =
      std::min(frag_elems, std::max(std::ceil(frag_elems / tiles), std::ceil(128 / elem_bytes)));
  auto exchange = [&](double bytes) { return fixed + std::max(std::ceil(bytes / rate), flight); };
  const double per_copy = elem_bytes == 2 ? 4 : 2;
  const double index_op = sync + 11 + w * (58 + 7);
  const double slice = sync + exchange(4) + 25 +
                       w * (39 + 24 + 2 * std::floor(std::ceil(per_tile / w - 1e-9) / per_copy));
  const double swtch = sync + exchange(4);
  const double copy = sync + exchange(per_tile * elem_bytes);
  const double input_copy = sync + exchange(std::ceil(input_elems * elem_bytes / tiles));
  const double cycles = p.index_ops * index_op + p.slices * slice + p.switches * swtch +
                        p.copies * copy + p.input_copies * input_copy;
  return cycles / c["clock_GHz"].get<double>();
}

/// The program of a ring all-reduce of `input_elems` float32 in `steps` steps per phase, each
/// moving fragments of `frag_elems` (sliceable at most 96 of them per tile).
inline double allreduce_program_ns(const Json& r, double steps, double frag_elems,
                                   double input_elems) {
  const double tiles = r["chip"]["tiles"].get<double>();
  const bool sliceable = std::max(std::ceil(frag_elems / tiles), 32.0) <= 96;
  ProgramParts p = ring_phase_parts(true, steps, sliceable);
  const ProgramParts g = ring_phase_parts(false, steps, sliceable);
  p.index_ops += g.index_ops;
  p.slices += g.slices;
  p.switches += g.switches;
  p.copies += g.copies;
  p.input_copies += g.input_copies;
  return program_ns(r, p, frag_elems, input_elems, 4);
}

inline double fixed_ns(const Json& r) {
  return r["chip"]["exchange_fixed_cycles"].get<double>() / r["chip"]["clock_GHz"].get<double>();
}

/// What a superstep across IPUs adds to a ring step besides its external sync and the on-chip
/// fixed cost: each IPU's internal barrier before the external one (patent US 10,579,585 B2,
/// claim 1) and the external exchange set-up, (150 + 655) cycles = 607.55 ns on GC200 as fitted.
inline double cross_ipu_ns(const Json& r) {
  return (r["chip"]["sync_internal_cycles"].get<double>() +
          r["chip"]["external_exchange_fixed_cycles"].get<double>()) /
         r["chip"]["clock_GHz"].get<double>();
}

/// A sync across two directly cabled Pod4 domains: a whole domain's sync (4 IPUs) plus a round
/// trip over one GW-Link, in whole cycles (models/ipu/sync.hpp).
inline double cross_domain_sync_ns(const Json& r) {
  const double f = r["chip"]["clock_GHz"].get<double>();
  const double round_trip_cycles =
      std::ceil(2.0 * r["machine"]["gw_link"]["latency_ns"].get<double>() * f - 1e-9);
  return external_sync_ns(r, 4) + round_trip_cycles / f;
}

/// The internal barrier alone (counted with the sync in a collective's time by tier).
inline double internal_barrier_ns(const Json& r) {
  return r["chip"]["sync_internal_cycles"].get<double>() / r["chip"]["clock_GHz"].get<double>();
}

}  // namespace ipusim::test
