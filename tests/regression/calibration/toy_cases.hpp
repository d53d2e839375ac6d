#pragma once
// Toy calibration problems for the calibrate / validate tests: a host -> IPU write on an
// IPU-POD4 (one cheap simulation, ~30 ms). Its time is
//   host-link latency + DDR latency + bytes / (IPU-gateway link rate x efficiency)
// (the IPU <-> gateway link is the bottleneck), so /machine/host_link/latency_ns and
// /machine/gateway/ipu_gateway_link_efficiency (both ASSUMPTION) are what it depends on,
// and /ipu_link/latency_ns is a parameter it does not depend on.
#include <string>
#include <vector>

#include "tests/regression/tools/cli_harness.hpp"

namespace ipusim::test {

inline const char* kEfficiency = "/machine/gateway/ipu_gateway_link_efficiency";
inline const char* kHostLatency = "/machine/host_link/latency_ns";
inline const char* kUnrelated = "/ipu_link/latency_ns";
inline const char* kDuration = "/workload/steps/0/duration_ns";

/// Writes the host-write setup config into the scratch folder; returns its path.
inline std::string write_host_setup(const Scratch& s) {
  // The host link at full efficiency, so the IPU <-> gateway link (15.75 GB/s) is the
  // bottleneck; that link's efficiency starts at 1.0 here (the shipped one is fitted), so the
  // toy's hand-worked times and starting point do not follow the shipped fit.
  Json config = {
      {"$include", Json::array({source_path("configs/systems/pod4.json")})},
      {"machine",
       {{"host_link", {{"efficiency", 1.0}}}, {"gateway", {{"ipu_gateway_link_efficiency", 1.0}}}}},
      {"workload",
       {{"kind", "microbenchmark"},
        {"steps", Json::array({Json{
                      {"kind", "host_write"}, {"name", "h2d"}, {"ipu", 0}, {"bytes", 4096}}})}}}};
  return s.write("setups/host_write_pod4.json", config.dump(2));
}

/// Simulates the setup with overrides and returns the value at `pointer`.
inline double simulate(const Scratch& s, const std::string& config,
                       const std::vector<std::string>& sets,
                       const std::string& pointer = kDuration) {
  static int counter = 0;
  const std::string out = s.path("sim_" + std::to_string(counter++));
  std::vector<std::string> args = {"run", config, "--out", out, "--quiet"};
  for (const auto& set : sets) args.insert(args.end(), {"--set", set});
  const CliResult r = run_cli(s, args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json report = cli::read_json_file(out + "/report.json");
  const Json* v = cli::find_pointer(report, pointer);
  REQUIRE(v);
  return v->get<double>();
}

/// A case document (the fields every test needs; `extra` overrides or adds keys).
inline Json case_doc(const std::string& name, const std::string& role, const std::string& config,
                     const std::vector<std::string>& sets, double measured,
                     const Json& extra = Json::object()) {
  Json doc = {{"name", name},
              {"role", role},
              {"config", config},
              {"set", sets},
              {"report_path", kDuration},
              {"measured", {{"value", measured}, {"unit", "ns"}}},
              {"tolerance_pct", 1.0},
              {"source", "synthetic: simulated with chosen parameter values (test)"}};
  for (auto it = extra.begin(); it != extra.end(); ++it) {
    if (it.value().is_null())
      doc.erase(it.key());
    else
      doc[it.key()] = it.value();
  }
  return doc;
}

/// Writes a case document as `cases/<name>.json`; returns its path.
inline std::string write_case(const Scratch& s, const std::string& folder, const Json& doc) {
  return s.write(folder + "/" + doc["name"].get<std::string>() + ".json", doc.dump(2));
}

/// Writes one calibration case per ratio into `cases/`: case j is the host write of 64 MiB >> j
/// (its own set-up) with every latency and chunking off, so simulated = bytes / (15.75 GB/s x
/// eff), "measured" as that at eff = 1 divided by r[j]; fitting eff on a set of them gives the
/// geometric mean of their r. Case names are toy_<j>.
inline void write_bandwidth_cases(const Scratch& s, const std::string& config,
                                  const std::vector<double>& r) {
  const std::vector<std::string> common = {"machine.host_link.latency_ns=0",
                                           "machine.gateway.ddr_latency_ns=0",
                                           "machine.gateway.ipu_gateway_link_latency_ns=0",
                                           "machine.host_link.chunk_bytes=0",
                                           "machine.gateway.ddr_chunk_bytes=0",
                                           "machine.gateway.ipu_gateway_link_chunk_bytes=0"};
  for (std::size_t j = 0; j < r.size(); ++j) {
    const long bytes = 67108864L >> j;
    std::vector<std::string> sets = common;
    sets.insert(sets.begin(), "workload.steps.0.bytes=" + std::to_string(bytes));
    const double d = simulate(s, config, sets);
    REQUIRE(d == Approx(bytes / 15.75).epsilon(1e-6));
    write_case(s, "cases",
               case_doc("toy_" + std::to_string(j), "calibration", config, sets, d / r[j]));
  }
}

}  // namespace ipusim::test
