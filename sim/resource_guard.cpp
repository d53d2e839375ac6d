#include "sim/resource_guard.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/config.hpp"
#include "sim/errors.hpp"
#include "sim/params.hpp"
#include "sim/sim_options.hpp"

namespace ipusim {
namespace {

/// Share of the available memory a run may plan to use by default (the rest: the OS, page
/// cache, and the error of the estimate).
constexpr double kDefaultMemoryShare = 0.8;

ResourceLimits& limits_storage() {
  static ResourceLimits limits = [] {
    ResourceLimits l;
    l.max_memory_bytes = kDefaultMemoryShare * available_memory_bytes();
    l.max_events = kDefaultMaxEvents;
    return l;
  }();
  return limits;
}

/// A "Key:   123 kB" line of a /proc file, in bytes (-1 if absent).
double proc_kib_field(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0 || line.size() <= key.size() ||
        line[key.size()] != ':')
      continue;
    std::istringstream fields(line.substr(key.size() + 1));
    double kib = -1;
    fields >> kib;
    return kib >= 0 ? kib * 1024.0 : -1.0;
  }
  return -1.0;
}

std::string format_count(double n) {
  char buf[64];
  if (n < 1e6) {
    std::snprintf(buf, sizeof buf, "%.0f", n);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", n);
  }
  return buf;
}

}  // namespace

double WorkEstimate::memory_bytes() const {
  double sum = 0;
  for (const auto& part : memory_parts) sum += part.second;
  return sum;
}

double available_memory_bytes() {
  double avail = proc_kib_field("/proc/meminfo", "MemAvailable");
  if (avail < 0) {
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    avail = pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
  }
  // `ulimit -v` (RLIMIT_AS) caps the address space: what is already mapped counts against it.
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const double mapped = std::max(0.0, proc_kib_field("/proc/self/status", "VmSize"));
    const double room = std::max(0.0, static_cast<double>(as.rlim_cur) - mapped);
    if (avail <= 0 || room < avail) avail = room;
  }
  return avail;
}

void read_resource_limits(const SimOptions& sim) {
  ResourceLimits l;
  const double mem = sim.max_memory_bytes;
  l.memory_is_default = mem <= 0;
  l.max_memory_bytes = l.memory_is_default ? kDefaultMemoryShare * available_memory_bytes() : mem;
  l.max_events = sim.max_events;
  limits_storage() = l;
}

const ResourceLimits& resource_limits() { return limits_storage(); }

void set_resource_limits(const ResourceLimits& limits) { limits_storage() = limits; }

std::string format_bytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 6) {
    bytes /= 1024.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return buf;
}

void check_work_estimate(const WorkEstimate& e, const ConfigNode& node) {
  const ResourceLimits& l = resource_limits();
  const double mem = e.memory_bytes();
  std::ostringstream out;
  if (l.max_memory_bytes > 0 && mem > l.max_memory_bytes) {
    out << "the run would need at least " << format_bytes(mem) << " of memory (";
    for (std::size_t i = 0; i < e.memory_parts.size(); ++i)
      out << (i ? " + " : "") << e.memory_parts[i].first << " "
          << format_bytes(e.memory_parts[i].second);
    out << "), more than /sim/max_memory_bytes = " << format_bytes(l.max_memory_bytes)
        << (l.memory_is_default ? " (80 % of the memory available)" : "") << "; " << e.advice
        << ", or raise /sim/max_memory_bytes if the machine has the memory";
    node.fail(e.key, out.str());
  }
  if (l.max_events > 0 && e.events > l.max_events) {
    out << "the run would take at least " << format_count(e.events) << " kernel events ("
        << e.events_what << "), more than /sim/max_events = " << format_count(l.max_events) << "; "
        << e.advice << ", or raise /sim/max_events (0 = no limit)";
    node.fail(e.key, out.str());
  }
}

}  // namespace ipusim
