#pragma once
// A small explicit phased training model for the runtime component tests, and a helper that
// elaborates a system preset with a training workload and runs it (one per TEST_CASE).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "models/ipu/compute.hpp"
#include "models/params/model_params.hpp"
#include "models/system/system.hpp"
#include "runtime/workloads/runtime_params.hpp"
#include "runtime/workloads/workload.hpp"
#include "sim/output.hpp"
#include "tests/component/models/model_fixture.hpp"

namespace ipusim::test {

/// P layers, each with one float16 weight w<i> of `shape`: forward op i (flops_fwd) in phase
/// i, its backward (flops_bwd) in phase 2P-2-i; both read only w<i>. With `optimizer`, the
/// backward also writes w<i>/grad and an update op (phase 2P-2-i) reads w<i>, w<i>/grad and a
/// float32 state w<i>/m and writes w<i> and w<i>/m.
inline Json phased_chain(int P, const std::vector<std::int64_t>& shape, double flops_fwd,
                         double flops_bwd, bool optimizer) {
  Json tensors = Json::array(), ops = Json::array();
  for (int i = 0; i < P; ++i) {
    const std::string w = "w" + std::to_string(i);
    tensors.push_back({{"name", w}, {"shape", shape}, {"dtype", "float16"}, {"kind", "weight"}});
    ops.push_back({{"name", "fwd" + std::to_string(i)},
                   {"forward_phase", i},
                   {"flops", flops_fwd},
                   {"inputs", {w}}});
    Json bwd = {{"name", "bwd" + std::to_string(i)},
                {"pass", "backward"},
                {"forward_phase", i},
                {"flops", flops_bwd},
                {"inputs", {w}}};
    if (optimizer) {
      tensors.push_back(
          {{"name", w + "/grad"}, {"shape", shape}, {"dtype", "float16"}, {"kind", "gradient"}});
      tensors.push_back({{"name", w + "/m"},
                         {"shape", shape},
                         {"dtype", "float32"},
                         {"kind", "optimizer_state"}});
      bwd["outputs"] = {w + "/grad"};
      ops.push_back({{"name", w + "/update"},
                     {"pass", "optimizer"},
                     {"forward_phase", i},
                     {"per_micro_batch", false},
                     {"unit", "vector"},
                     {"dtype", "float32"},
                     {"flops", 1.0},
                     {"inputs", {w, w + "/grad", w + "/m"}},
                     {"outputs", {w, w + "/m"}}});
    }
    ops.push_back(bwd);
  }
  return {{"generator", "explicit"}, {"tensors", tensors}, {"ops", ops}};
}

/// A system preset running one training workload to completion.
struct TrainingRun {
  std::unique_ptr<System> system;
  std::unique_ptr<Workload> workload;
  Json results, memory;

  /// Elaborates configs/systems/<preset>.json with `workload` and runs sc_start().
  static TrainingRun make(const std::string& preset, const Json& workload) {
    register_sim_params();
    register_model_params();
    register_runtime_params();
    Json root = ConfigDoc::load_file(source_dir() + "/configs/systems/" + preset + ".json").root();
    root["workload"] = workload;
    ConfigDoc doc = ConfigDoc::from_json(root, "test:" + preset);
    TrainingRun r;
    r.system = build_system(doc);
    r.workload = make_workload(*r.system, ConfigNode(doc, "").child("workload"));
    sc_core::sc_start();
    REQUIRE(r.workload->failure().empty());
    REQUIRE(r.workload->finished());
    r.results = r.workload->results();
    r.memory = r.workload->memory();
    return r;
  }

  /// Time of one compute op of `flops` (float16, AMP) on `tiles` tiles, ns.
  double compute_ns(double flops, std::uint32_t tiles) const {
    ComputeSpec c;
    c.flops = flops;
    c.dtype = ComputeDType::Float16;
    c.unit = ComputeUnit::Amp;
    c.tiles = tiles;
    return system->clock().cycles_to_ns(static_cast<double>(compute_cycles(system->chip(), c)));
  }

  /// Time of a remote load of `bytes` into IPU `ipu` alone on the DDR and gateway link, ns.
  double load_ns(std::uint64_t bytes, std::uint32_t ipu = 0) const {
    return system->lone_transfer_ns(system->remote_load_route(ipu), bytes);
  }

  /// Time of a remote store of `bytes` from IPU `ipu` alone on the DDR and gateway link, ns.
  double store_ns(std::uint64_t bytes, std::uint32_t ipu = 0) const {
    return system->lone_transfer_ns(system->remote_store_route(ipu), bytes);
  }

  /// Duration of each phase of the step in the report, in program order.
  std::vector<double> phase_times() const {
    std::vector<double> out;
    for (const Json& p : results["phases"]) out.push_back(p["time_ns"].get<double>());
    return out;
  }
};

}  // namespace ipusim::test
