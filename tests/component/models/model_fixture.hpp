#pragma once
// Helpers for the model component tests: build a config from a preset plus overrides,
// elaborate a System and a Microbenchmark, and read resolved parameters for oracles.
#include <cstdlib>
#include <memory>
#include <string>
#include <systemc>

#include "models/params/model_params.hpp"
#include "models/system/system.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark.hpp"
#include "runtime/workloads/runtime_params.hpp"
#include "sim/config.hpp"
#include "sim/json.hpp"

namespace ipusim::test {

/// Root of the source tree (CTest sets IPUSIM_SOURCE_DIR).
inline std::string source_dir() {
  const char* d = std::getenv("IPUSIM_SOURCE_DIR");
#ifdef IPUSIM_TEST_SOURCE_DIR
  if (!d || !*d) d = IPUSIM_TEST_SOURCE_DIR;
#endif
  return d ? d : ".";
}

/// Deep merge of `overlay` into `base` (objects merge, anything else replaces).
inline void merge(Json& base, const Json& overlay) {
  for (auto it = overlay.begin(); it != overlay.end(); ++it) {
    if (it.value().is_object() && base.contains(it.key()) && base[it.key()].is_object()) {
      merge(base[it.key()], it.value());
    } else {
      base[it.key()] = it.value();
    }
  }
}

/// configs/systems/<preset>.json with `extra` merged on top.
inline ConfigDoc preset_config(const std::string& preset, const Json& extra = Json::object()) {
  register_model_params();
  register_runtime_params();  // the microbenchmark's step fields
  Json root = ConfigDoc::load_file(source_dir() + "/configs/systems/" + preset + ".json").root();
  merge(root, extra);
  return ConfigDoc::from_json(root, "test:" + preset);
}

/// A resolved parameter (the value the simulator used, default or not).
inline double resolved(const ConfigDoc& doc, const std::string& pointer) {
  return doc.resolved().at(Json::json_pointer(pointer)).get<double>();
}

/// A system plus a microbenchmark elaborated from one config.
struct Bench {
  std::unique_ptr<System> system;
  std::unique_ptr<Microbenchmark> mb;

  /// Elaborates `doc` (whose /workload holds the steps) under module name `name`.
  static Bench make(ConfigDoc& doc, const std::string& name = "system") {
    Bench b;
    b.system = build_system(doc, name);
    ConfigNode root(doc, "");
    b.mb =
        std::make_unique<Microbenchmark>((name + "_mb").c_str(), *b.system, root.child("workload"));
    return b;
  }
  /// Duration of top-level step i, ns.
  double duration(std::size_t i) const {
    return mb->results()["steps"][i]["duration_ns"].get<double>();
  }
  Json step(std::size_t i) const { return mb->results()["steps"][i]; }
};

/// {"workload": {"kind": "microbenchmark", "steps": steps}}.
inline Json workload(const Json& steps) {
  return {{"workload", {{"kind", "microbenchmark"}, {"steps", steps}}}};
}

/// One IPU cycle of the resolved chip, ns.
inline double cycle_ns(const ConfigDoc& doc) { return 1.0 / resolved(doc, "/chip/clock_GHz"); }

/// Usable bytes per ns of a bundle of `links` IPU-Links (resolved parameters).
inline double ipu_link_Bpns(const ConfigDoc& doc, double links) {
  return links * resolved(doc, "/ipu_link/bandwidth_GBps_per_link") *
         resolved(doc, "/ipu_link/efficiency");
}

}  // namespace ipusim::test
