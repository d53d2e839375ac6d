// Microbenchmark results: per-step JSON, breakdown, summary and trace slices.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "models/system/system.hpp"
#include "runtime/exec/link_utilisation.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark_step.hpp"
#include "sim/format.hpp"
#include "sim/trace.hpp"

namespace ipusim {
namespace mb {

using Kind = Microbenchmark::Kind;

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Transfer:
      return "transfer";
    case Kind::Exchange:
      return "exchange";
    case Kind::RemoteLoad:
      return "remote_load";
    case Kind::RemoteStore:
      return "remote_store";
    case Kind::HostRead:
      return "host_read";
    case Kind::HostWrite:
      return "host_write";
    case Kind::Sync:
      return "sync";
    case Kind::Compute:
      return "compute";
    case Kind::Concurrent:
      return "concurrent";
    case Kind::TileTransfer:
      return "tile_transfer";
    case Kind::HostBufferWrite:
      return "host_buffer_write";
    case Kind::HostBufferRead:
      return "host_buffer_read";
    case Kind::TileTraffic:
      return "tile_traffic";
    case Kind::Gemm:
      return "gemm";
    case Kind::Convolution:
      return "convolution";
  }
  return "?";
}

bool is_network(Kind k) {
  return k == Kind::Transfer || k == Kind::RemoteLoad || k == Kind::RemoteStore ||
         k == Kind::HostRead || k == Kind::HostWrite;
}

/// Breakdown category of a leaf step.
std::string category(Kind k, LinkTier tier) {
  switch (k) {
    case Kind::Transfer:
    case Kind::TileTransfer:
    case Kind::TileTraffic:
      // A transfer inside one IPU is an on-chip exchange.
      return tier == LinkTier::Local    ? kExchangeCategory
             : tier == LinkTier::GwLink ? to_string(LinkTier::GwLink)
                                        : to_string(LinkTier::IpuLink);
    case Kind::Gemm:
    case Kind::Convolution:
      return kComputeCategory;
    case Kind::HostBufferWrite:
    case Kind::HostBufferRead:
      return to_string(LinkTier::HostIo);
    case Kind::RemoteLoad:
    case Kind::RemoteStore:
      return to_string(LinkTier::StreamingMemory);
    case Kind::HostRead:
    case Kind::HostWrite:
      return to_string(LinkTier::HostIo);
    case Kind::Exchange:
      return kExchangeCategory;
    case Kind::Compute:
      return kComputeCategory;
    case Kind::Sync:
      return kSyncCategory;
    case Kind::Concurrent:
      return kIdleCategory;
  }
  return kIdleCategory;
}
}  // namespace mb

using mb::category;
using mb::is_network;
using mb::kind_name;

void Microbenchmark::trace_step(const Step& s, double start_ns, double dur_ns) const {
  TraceWriter& tw = TraceWriter::instance();
  if (!tw.enabled()) return;
  const std::uint32_t ipu =
      s.kind == Kind::Transfer ? s.src : (s.kind == Kind::Sync ? s.sync_ipus.front() : s.ipu);
  Json args = {{"kind", kind_name(s.kind)}};
  if (is_network(s.kind)) args["bytes"] = s.req.bytes;
  if (s.kind == Kind::Transfer) args["dst_ipu"] = s.dst;
  if (s.kind == Kind::Sync) args["ipus"] = s.sync_ipus.size();
  tw.complete("ipu" + std::to_string(ipu), kind_name(s.kind), s.name, start_ns, dur_ns, args);
  if (!is_network(s.kind)) return;
  const FlowEngine& e = system_.network().engine();
  const std::string process = "links: " + to_string(s.tier);
  for (ResourceId r : s.req.route)
    tw.complete(process, e.resource(r).name, s.name, start_ns, dur_ns, args);
}

Json Microbenchmark::step_json(const Step& s) const {
  Json j = Json::object();
  j["name"] = s.name;
  j["kind"] = kind_name(s.kind);
  switch (s.kind) {
    case Kind::Transfer:
      j["src_ipu"] = s.src;
      j["dst_ipu"] = s.dst;
      break;
    case Kind::TileTransfer:
      j["src_ipu"] = s.src;
      j["dst_ipu"] = s.dst;
      j["tiles"] = s.tiles;
      j["bytes_per_tile"] = s.bytes_per_tile;
      j["bidirectional"] = s.bidirectional;
      break;
    case Kind::HostBufferWrite:
    case Kind::HostBufferRead:
      j["ipu"] = s.ipu;
      if (s.sync_ipus.size() > 1) j["ipus"] = s.sync_ipus.size();
      j["tiles"] = s.tiles;
      j["bytes_per_transfer"] = s.bytes_per_tile;
      if (s.simultaneous) j["simultaneous"] = true;
      break;
    case Kind::TileTraffic:
      j["pattern"] = to_string(s.tile.pattern);
      j["ipus"] = s.tile.ipus.size();
      break;
    case Kind::Sync:
      j["ipus"] = s.sync_ipus.size();
      break;
    case Kind::Concurrent:
      break;
    default:
      j["ipu"] = s.ipu;
  }
  if (s.repeat != 1) j["repeat"] = s.repeat;
  j["start_ns"] = s.start_ns;
  j["end_ns"] = s.end_ns;
  const double dur = s.end_ns - s.start_ns;
  j["duration_ns"] = dur;
  if (s.kind == Kind::Exchange || s.kind == Kind::Compute || s.kind == Kind::Sync ||
      s.kind == Kind::Gemm || s.kind == Kind::Convolution)
    j["cycles"] = s.cycles;
  std::uint64_t bytes = s.moved_bytes;
  for (const Step& c : s.children) bytes += c.moved_bytes;
  j["bytes"] = bytes;
  j["bandwidth_GBps"] = dur > 0 ? static_cast<double>(bytes) / dur : 0.0;
  component_step_json(s, j);
  if (is_network(s.kind)) {
    j["tier"] = to_string(s.tier);
    j["hops"] = s.req.route.size();
    // Closed form for one repetition alone on an idle network, for comparison.
    j["lone_transfer_ns"] = system_.lone_transfer_ns(s.req.route, s.req.bytes);
  }
  if (!s.children.empty()) {
    Json kids = Json::array();
    for (const Step& c : s.children) kids.push_back(step_json(c));
    j["steps"] = std::move(kids);
  }
  return j;
}

Json Microbenchmark::breakdown_ns() const {
  Json b = zero_breakdown();
  double used = 0;
  for (const Step& s : steps_) {
    const double dur = s.end_ns - s.start_ns;
    std::string cat = category(s.kind, s.tier);
    if (s.kind == Kind::Concurrent) {
      // The critical path decides: the child that ended last (first such child on ties).
      const Step* last = &s.children.front();
      for (const Step& c : s.children) {
        if (c.end_ns > last->end_ns) last = &c;
      }
      cat = category(last->kind, last->tier);
    }
    b[cat] = b[cat].get<double>() + dur;
    used += dur;
  }
  b[kIdleCategory] = b[kIdleCategory].get<double>() + std::max(0.0, end_ns_ - used);
  return b;
}

Json Microbenchmark::utilisation() const { return link_utilisation(system_, end_ns_); }

Json Microbenchmark::memory() const {
  std::uint64_t used = 0, peak = 0;
  for (std::uint32_t m = 0; m < system_.num_machines(); ++m) {
    const StreamingMemory& mem = const_cast<System&>(system_).gateway(m).memory();
    used += mem.used_bytes();
    peak = std::max(peak, mem.peak_bytes());
  }
  return {{"streaming_memory_bytes", used}, {"streaming_memory_peak_bytes_per_machine", peak}};
}

Json Microbenchmark::results() const {
  Json r = Json::object();
  r["total_ns"] = end_ns_;
  r["total_cycles"] = system_.clock().ns_to_cycles_round(end_ns_);
  r["transfers"] = transfers_done_;
  Json steps = Json::array();
  for (const Step& s : steps_) steps.push_back(step_json(s));
  r["steps"] = std::move(steps);
  r["breakdown_ns"] = breakdown_ns();
  return r;
}

std::string Microbenchmark::summary() const {
  std::ostringstream o;
  o << "  steps\n";
  for (const Step& s : steps_) {
    const double dur = s.end_ns - s.start_ns;
    std::uint64_t bytes = s.moved_bytes;
    for (const Step& c : s.children) bytes += c.moved_bytes;
    char line[256];
    std::snprintf(line, sizeof line, "    %-24s %-13s %14s", s.name.c_str(), kind_name(s.kind),
                  format_ns(dur).c_str());
    o << line;
    if (bytes > 0 && dur > 0) {
      std::snprintf(line, sizeof line, "  %12llu B  %9.3f GB/s",
                    static_cast<unsigned long long>(bytes), static_cast<double>(bytes) / dur);
      o << line;
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace ipusim
