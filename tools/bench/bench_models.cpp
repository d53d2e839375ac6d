// Simulator-speed benchmark of the hardware models (not a test):
//   bench_models                 runs every scenario, each in its own process
//   bench_models elab-pod64      elaborate Pod64, per_tile fidelity
//   bench_models elab-multipod   elaborate 64 x Pod64 = 4096 IPUs, aggregated fidelity
//   bench_models saturated [N]   N transfers (default 1M) through one saturated IPU-Link
//   bench_models parallel [N]    N transfers spread over the 32 rung bundles of a Pod64
// Each scenario prints one JSON line: wall time, peak RSS, and simulated transfers per second.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <systemc>

#include "models/system/system.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark.hpp"
#include "runtime/workloads/runtime_params.hpp"
#include "sim/config.hpp"
#include "sim/errors.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double peak_rss_MB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

ipusim::ConfigDoc preset(const std::string& name,
                         const ipusim::Json& extra = ipusim::Json::object()) {
  ipusim::Json root = ipusim::ConfigDoc::load_file(std::string(IPUSIM_SOURCE_DIR) +
                                                   "/configs/systems/" + name + ".json")
                          .root();
  for (auto it = extra.begin(); it != extra.end(); ++it) root[it.key()] = it.value();
  return ipusim::ConfigDoc::from_json(root, name);
}

int elaborate(const std::string& preset_name) {
  const auto t0 = Clock::now();
  ipusim::ConfigDoc doc = preset(preset_name);
  auto system = ipusim::build_system(doc);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // end of elaboration
  const double wall = seconds_since(t0);
  std::printf(
      "{\"scenario\": \"elab-%s\", \"ipus\": %u, \"fidelity\": \"%s\", \"resources\": %zu, "
      "\"wall_s\": %.3f, \"peak_rss_MB\": %.1f}\n",
      preset_name.c_str(), system->num_ipus(), ipusim::to_string(system->fidelity()).c_str(),
      system->network().engine().num_resources(), wall, peak_rss_MB());
  return 0;
}

int transfers(const std::string& scenario, std::uint64_t n) {
  using ipusim::Json;
  ipusim::register_runtime_params();  // the microbenchmark's step keys (strict config)
  Json kids = Json::array();
  if (scenario == "saturated") {
    // 8 streams of back-to-back transfers share the rail link IPU 0 -> IPU 2. Sizes differ
    // (64 KiB + s x 4 KiB) so that completions never coincide: every start and end is its
    // own event and a reallocation of the 8 sharing flows.
    for (int s = 0; s < 8; ++s) {
      kids.push_back({{"kind", "transfer"},
                      {"src_ipu", 0},
                      {"dst_ipu", 2},
                      {"bytes", 65536 + 4096 * s},
                      {"repeat", n / 8}});
    }
  } else {
    // 64 streams, one per IPU to its rung partner: independent flows (fast path).
    for (int s = 0; s < 64; ++s) {
      kids.push_back({{"kind", "transfer"},
                      {"src_ipu", s},
                      {"dst_ipu", s ^ 1},
                      {"bytes", 65536},
                      {"repeat", n / 64}});
    }
  }
  ipusim::ConfigDoc doc = preset(
      "pod64", Json{{"sim", {{"fidelity", "aggregated"}}},
                    {"workload",
                     {{"kind", "microbenchmark"},
                      {"steps", Json::array({{{"kind", "concurrent"}, {"steps", kids}}})}}}});
  auto system = ipusim::build_system(doc);
  ipusim::ConfigNode root(doc, "");
  ipusim::Microbenchmark mb("mb", *system, root.child("workload"));
  const auto t0 = Clock::now();
  sc_core::sc_start();
  const double wall = seconds_since(t0);
  if (!mb.finished()) {
    std::fprintf(stderr, "benchmark did not finish: %s\n", mb.failure().c_str());
    return 3;
  }
  const double done = static_cast<double>(mb.transfers_completed());
  std::printf(
      "{\"scenario\": \"%s\", \"transfers\": %.0f, \"simulated_ns\": %.1f, \"achieved_GBps\": "
      "%.3f, "
      "\"network_wakeups\": %llu, \"wall_s\": %.3f, \"transfers_per_s\": %.0f, \"peak_rss_MB\": "
      "%.1f}\n",
      scenario.c_str(), done, mb.total_time_ns(),
      mb.results()["steps"][0]["bandwidth_GBps"].get<double>(),
      static_cast<unsigned long long>(system->network().wakeups()), wall, done / wall,
      peak_rss_MB());
  return 0;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  const std::string mode = argc > 1 ? argv[1] : "all";
  const std::uint64_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
  try {
    if (mode == "elab-pod64") return elaborate("pod64");
    if (mode == "elab-multipod") return elaborate("multipod");
    if (mode == "saturated" || mode == "parallel") return transfers(mode, n);
    if (mode != "all") {
      std::fprintf(
          stderr,
          "usage: bench_models [elab-pod64|elab-multipod|saturated|parallel] [transfers]\n");
      return 2;
    }
    // One SystemC elaboration per process: run each scenario as a child process.
    int rc = 0;
    for (const char* m : {"elab-pod64", "elab-multipod", "saturated", "parallel"}) {
      std::fflush(stdout);
      const std::string cmd = std::string("\"") + argv[0] + "\" " + m;
      rc |= std::system(cmd.c_str());
    }
    return rc == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_models: %s\n", e.what());
    return 2;
  }
}
