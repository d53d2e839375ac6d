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

/// One on-tile reduction of `elems` float32 elements per IPU, balanced over all tiles: a
/// vector-unit op of one flop per element that reads two and writes one element, bounded by
/// the vector rate or the memory rate, divided by the vector efficiency, plus the per-op
/// overhead (models/ipu/compute.hpp).
inline double reduce_ns(const Json& r, double elems) {
  const auto& c = r["chip"];
  const double tiles = c["tiles"].get<double>();
  const double eff = c["compute"]["vector_efficiency"].get<double>();
  const double by_flops =
      elems / tiles / c["vector_flops_per_cycle_per_tile"]["float32"].get<double>();
  const double by_bytes =
      std::ceil(elems * 12 / tiles) / c["memory_bytes_per_cycle_per_tile"].get<double>();
  // A collective's reduction is one vertex: it pays the reduction overhead, not an op's.
  const double cycles = std::ceil(std::max(by_flops, by_bytes) / eff - 1e-9) +
                        c["compute"]["reduction_overhead_cycles"].get<double>();
  return cycles / c["clock_GHz"].get<double>();
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

/// The internal barrier alone (counted with the sync in a collective's time by tier).
inline double internal_barrier_ns(const Json& r) {
  return r["chip"]["sync_internal_cycles"].get<double>() / r["chip"]["clock_GHz"].get<double>();
}

}  // namespace ipusim::test
