#include "sim/run_info.hpp"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <systemc>

#include "ipusim_source_revision.hpp"  // generated (top CMakeLists.txt)

#ifndef IPUSIM_VERSION
#define IPUSIM_VERSION "0.0.0"
#endif

namespace ipusim {

std::uint64_t& model_event_counter() {
  static std::uint64_t counter = 0;
  return counter;
}

double peak_rss_MiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

const char* ipusim_version() { return IPUSIM_VERSION; }

const char* ipusim_source_revision() { return IPUSIM_SOURCE_REVISION; }

RunInfo::RunInfo() : start_(std::chrono::steady_clock::now()) {}

Json RunInfo::to_json(std::uint32_t num_ipus) const {
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::uint64_t events = model_event_counter();
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  utsname uts{};
  uname(&uts);
  Json info{{"wall_time_s", wall_s},
            {"model_events", events},
            {"model_events_per_s", wall_s > 0 ? static_cast<double>(events) / wall_s : 0.0},
            {"systemc_delta_cycles", sc_core::sc_delta_count()},
            {"peak_rss_MiB", peak_rss_MiB()},
            {"ipusim_version", ipusim_version()},
            {"source_revision", ipusim_source_revision()},
            {"systemc_version", sc_core::sc_release()},
            {"host", std::string(host) + " (" + uts.sysname + " " + uts.machine + ")"}};
  if (num_ipus > 0) {
    info["ipus"] = num_ipus;
    info["peak_rss_bytes_per_ipu"] = peak_rss_MiB() * 1048576.0 / num_ipus;
  }
  return info;
}

}  // namespace ipusim
