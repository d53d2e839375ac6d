// Microbenchmark workload: parse steps, play them in one SC_THREAD, report per-step timing.
#include "runtime/workloads/microbenchmark/microbenchmark.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "models/system/system.hpp"
#include "runtime/exec/link_utilisation.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark_step.hpp"
#include "sim/errors.hpp"
#include "sim/format.hpp"
#include "sim/resource_guard.hpp"
#include "sim/sim_time.hpp"
#include "sim/trace.hpp"

namespace ipusim {

namespace {

using Kind = Microbenchmark::Kind;
using mb::category;
using mb::is_network;
using mb::kind_name;

Kind parse_kind(const std::string& s) {
  static const Kind all[] = {Kind::Transfer,
                             Kind::Exchange,
                             Kind::RemoteLoad,
                             Kind::RemoteStore,
                             Kind::HostRead,
                             Kind::HostWrite,
                             Kind::Sync,
                             Kind::Compute,
                             Kind::Concurrent,
                             Kind::TileTransfer,
                             Kind::HostBufferWrite,
                             Kind::HostBufferRead,
                             Kind::TileTraffic,
                             Kind::Gemm,
                             Kind::Convolution};
  for (Kind k : all) {
    if (s == kind_name(k)) return k;
  }
  throw ConfigError("unknown microbenchmark step kind '" + s + "'");
}

/// A non-negative JSON integer (signed or unsigned storage).
bool is_count(const Json& j) {
  return j.is_number_unsigned() || (j.is_number_integer() && j.get<std::int64_t>() >= 0);
}

/// Semantic checks of an exchange step that the cost model would silently accept: a root
/// tile outside the active tiles, and explicit traffic that nobody sends or nobody receives.
void check_exchange_spec(const ConfigNode& n, const ExchangeSpec& x, std::uint32_t chip_tiles) {
  if (x.pattern == ExchangePattern::OneToAll || x.pattern == ExchangePattern::AllToOne) {
    const std::uint32_t active = x.tiles == 0 ? chip_tiles : x.tiles;
    if (x.root_tile >= active) {
      n.fail("root_tile", "tile " + std::to_string(x.root_tile) + " is not one of the " +
                              std::to_string(active) + " active tiles (0.." +
                              std::to_string(active - 1) + ")");
    }
  }
  if (x.pattern != ExchangePattern::Explicit) return;
  std::uint64_t sent = 0, received = 0;
  for (const TileTraffic& t : x.per_tile) {
    sent += t.sent;
    received += t.received;
  }
  // On-chip data can be received by several tiles (so received may exceed sent), but every
  // byte sent is received somewhere and every byte received was sent by some tile.
  if (sent > 0 && received == 0) {
    n.fail("per_tile_bytes",
           "the tiles send " + std::to_string(sent) +
               " B but no tile receives anything (an exchange needs a receiver for what is sent)");
  }
  if (received > 0 && sent == 0) {
    n.fail("per_tile_bytes",
           "the tiles receive " + std::to_string(received) + " B but no tile sends anything");
  }
}

}  // namespace

Microbenchmark::Microbenchmark(sc_core::sc_module_name name, System& system, ConfigNode workload)
    : sc_core::sc_module(name), system_(system) {
  workload.mark_used("kind");
  std::vector<ConfigNode> nodes = workload.children("steps");
  if (nodes.empty()) workload.fail("steps", "a microbenchmark needs at least one step");
  for (std::size_t i = 0; i < nodes.size(); ++i)
    steps_.push_back(parse_step(nodes[i], "step" + std::to_string(i), false));
  check_remote_buffers(workload);
  workload.finish();
  check_work(workload);
  SC_THREAD(run);
}

Microbenchmark::~Microbenchmark() = default;

Microbenchmark::Step Microbenchmark::parse_step(ConfigNode n, const std::string& default_name,
                                                bool nested) {
  Step s;
  s.kind = parse_kind(n.get_enum("kind"));
  s.name = n.get_string("name");
  if (s.name.empty()) s.name = default_name + "_" + kind_name(s.kind);
  s.repeat = n.get_uint("repeat");
  const std::uint32_t num_ipus = system_.num_ipus();
  auto read_ipu = [&](const char* key) {
    const std::uint64_t v = n.get_uint(key);
    if (v >= num_ipus) {
      n.fail(key, "IPU " + std::to_string(v) + " does not exist (the system has " +
                      std::to_string(num_ipus) + " IPUs)");
    }
    return static_cast<std::uint32_t>(v);
  };
  // "all", a count n (IPUs 0..n-1) or a list of distinct IPU ids.
  auto read_ipus = [&] {
    std::vector<std::uint32_t> out;
    const Json ipus = n.get_json("ipus");
    if (ipus == Json("all")) {
      for (std::uint32_t i = 0; i < num_ipus; ++i) out.push_back(i);
    } else if (is_count(ipus)) {
      const std::uint64_t c = ipus.get<std::uint64_t>();
      if (c == 0 || c > num_ipus)
        n.fail("ipus", "count " + std::to_string(c) + " is not in 1.." + std::to_string(num_ipus));
      for (std::uint32_t i = 0; i < c; ++i) out.push_back(i);
    } else if (ipus.is_array() && !ipus.empty()) {
      for (const Json& e : ipus) {
        if (!is_count(e) || e.get<std::uint64_t>() >= num_ipus) {
          n.fail("ipus", "entry " + e.dump() + " is not an IPU of the system (0.." +
                             std::to_string(num_ipus - 1) + ")");
        }
        if (std::find(out.begin(), out.end(), e.get<std::uint32_t>()) != out.end()) {
          n.fail("ipus", "IPU " + e.dump() + " is listed twice in " + ipus.dump() +
                             " (each IPU takes part in a sync once)");
        }
        out.push_back(e.get<std::uint32_t>());
      }
    } else {
      n.fail("ipus", "expected a count or a non-empty list of IPU ids, got " + ipus.dump());
    }
    return out;
  };
  switch (s.kind) {
    case Kind::Transfer:
      s.src = read_ipu("src_ipu");
      s.dst = read_ipu("dst_ipu");
      s.req.bytes = n.get_uint("bytes");
      s.req.route = system_.route(s.src, s.dst);
      break;
    case Kind::RemoteLoad:
    case Kind::RemoteStore:
    case Kind::HostRead:
    case Kind::HostWrite:
      s.ipu = read_ipu("ipu");
      s.src = s.dst = s.ipu;
      s.req.bytes = n.get_uint("bytes");
      if (s.kind == Kind::RemoteLoad) s.req.route = system_.remote_load_route(s.ipu);
      if (s.kind == Kind::RemoteStore) s.req.route = system_.remote_store_route(s.ipu);
      if (s.kind == Kind::HostRead) s.req.route = system_.host_read_route(s.ipu);
      if (s.kind == Kind::HostWrite) s.req.route = system_.host_write_route(s.ipu);
      if (s.kind == Kind::RemoteLoad || s.kind == Kind::RemoteStore) {
        s.buffer = n.get_string("buffer");
        if (s.buffer.empty()) s.buffer = s.name;
        // Elaboration-time capacity check: the buffer must fit in the machine's DDR.
        system_.gateway_of(s.ipu).memory().allocate(s.buffer, s.req.bytes);
      }
      break;
    case Kind::Exchange: {
      s.ipu = read_ipu("ipu");
      s.exchange.pattern = parse_exchange_pattern(n.get_enum("pattern"));
      s.exchange.bytes_per_tile = n.get_uint("bytes_per_tile");
      s.exchange.tiles = static_cast<std::uint32_t>(n.get_uint("tiles"));
      s.exchange.root_tile = static_cast<std::uint32_t>(n.get_uint("root_tile"));
      if (s.exchange.pattern == ExchangePattern::Explicit) {
        const Json list = n.get_json("per_tile_bytes");
        if (!list.is_array())
          n.fail("per_tile_bytes", "explicit exchanges need a list of per-tile bytes");
        for (std::size_t i = 0; i < list.size(); ++i) {
          const Json& e = list[i];
          TileTraffic t;
          if (is_count(e)) {
            t.sent = t.received = e.get<std::uint64_t>();
          } else if (e.is_array() && e.size() == 2 && is_count(e[0]) && is_count(e[1])) {
            t.sent = e[0].get<std::uint64_t>();
            t.received = e[1].get<std::uint64_t>();
          } else {
            n.fail("per_tile_bytes", "entry " + std::to_string(i) +
                                         " must be a byte count or [sent, received], got " +
                                         e.dump());
          }
          s.exchange.per_tile.push_back(t);
        }
        s.exchange.shared_receive = n.get_bool("shared_receive");
      }
      check_exchange_spec(n, s.exchange, system_.chip().tiles);
      try {
        (void)exchange_totals(s.exchange, system_.chip().tiles);  // validates tiles and root
      } catch (const ConfigError& e) {
        n.fail("pattern", e.what());
      }
      break;
    }
    case Kind::Compute:
      s.ipu = read_ipu("ipu");
      s.compute.flops = n.get_double("flops");
      if (n.has("bytes")) s.compute.bytes = n.get_uint("bytes");
      s.compute.dtype = parse_compute_dtype(n.get_enum("dtype"));
      s.compute.unit = parse_compute_unit(n.get_enum("unit"));
      s.compute.tiles = static_cast<std::uint32_t>(n.get_uint("tiles"));
      if (s.compute.tiles > system_.chip().tiles) {
        n.fail("tiles", "the IPU has " + std::to_string(system_.chip().tiles) + " tiles");
      }
      break;
    case Kind::Gemm:
    case Kind::Convolution:
      s.ipu = read_ipu("ipu");
      parse_shape_step(n, s);
      break;
    case Kind::Sync:
    case Kind::TileTraffic: {
      if (s.kind == Kind::TileTraffic && nested)
        n.fail("kind", "tile_traffic steps run on their own, not inside a concurrent step");
      s.sync_ipus = read_ipus();
      if (s.kind == Kind::TileTraffic) parse_tile_step(n, s);
      break;
    }
    case Kind::TileTransfer:
    case Kind::HostBufferWrite:
    case Kind::HostBufferRead: {
      if (nested)
        n.fail("kind", std::string(kind_name(s.kind)) +
                           " steps run on their own, not inside a concurrent step");
      s.tiles = static_cast<std::uint32_t>(n.get_uint("tiles"));
      if (s.tiles == 0) s.tiles = system_.chip().tiles;
      if (s.tiles > system_.chip().tiles)
        n.fail("tiles", "the IPU has " + std::to_string(system_.chip().tiles) + " tiles");
      if (s.kind == Kind::TileTransfer) {
        s.src = read_ipu("src_ipu");
        s.dst = read_ipu("dst_ipu");
        if (s.src == s.dst) n.fail("dst_ipu", "a tile_transfer needs two different IPUs");
        s.ipu = s.src;
        s.bytes_per_tile = n.get_uint("bytes_per_tile");
        s.bidirectional = n.get_bool("bidirectional");
        s.req.route = system_.route(s.src, s.dst);
        s.req.bytes = s.bytes_per_tile * s.tiles;
        parse_tile_step(n, s);
      } else {
        // One IPU (`ipu`), or several moving their data in one stream copy (`ipus`).
        if (n.has("ipus")) {
          if (n.has("ipu")) n.fail("ipus", "give ipu (one IPU) or ipus (several), not both");
          s.sync_ipus = read_ipus();
          s.ipu = s.sync_ipus.front();
          // Each IPU's process runs its repetitions on its own; only a single copy keeps
          // them in the one sync a multi-IPU stream copy has.
          if (s.sync_ipus.size() > 1 && s.repeat > 1)
            n.fail("repeat",
                   "a host_buffer step over several IPUs (ipus) runs once; repeat it "
                   "as separate steps");
        } else {
          s.ipu = read_ipu("ipu");
          s.sync_ipus = {s.ipu};
        }
        s.src = s.dst = s.ipu;
        s.bytes_per_tile = n.get_uint("bytes_per_transfer");
        s.simultaneous = n.get_bool("simultaneous");
        s.stream_copy_syncs = n.get_bool("stream_copy_syncs");
        // The handshakes cross a C2 card's own PCIe link; on an IPU-M2000 the gateway's host
        // proxy answers syncs for data it holds (US 10,970,131 B2), which is not modelled.
        if (s.stream_copy_syncs && !system_.topology().pcie_card())
          n.fail("stream_copy_syncs",
                 "stream copy syncs are modelled on machine.host_attachment pcie_card only (the "
                 "C2 card's PCIe link); this machine reaches its host through a gateway");
      }
      break;
    }
    case Kind::Concurrent: {
      if (nested) n.fail("kind", "concurrent steps cannot be nested");
      std::vector<ConfigNode> kids = n.children("steps");
      if (kids.empty()) n.fail("steps", "a concurrent step needs at least one step");
      for (std::size_t i = 0; i < kids.size(); ++i) {
        s.children.push_back(parse_step(kids[i], s.name + "." + std::to_string(i), true));
      }
      if (s.repeat != 1) n.fail("repeat", "repeat a concurrent step's children instead");
      break;
    }
  }
  s.tier = s.req.route.empty() ? LinkTier::Local : system_.tier(s.req.route);
  n.finish();
  return s;
}

namespace {

/// Kernel events of one step (lower bound): two per network transfer (its start and its end),
/// one per repetition of a timed step (exchange, compute, sync: one model call each); a
/// tile-level step waits for its sync, set-up and phase (3) and starts one flow per IPU pair; a
/// host_buffer step's tiles sync, request and read or write per repetition (3 + 2), and the host
/// reads one transfer per repetition (d2h, 3) or writes two streams (h2d); stream copy syncs
/// add four messages and a sync per repetition (4 x 2 + 1).
double step_events(const Microbenchmark::Step& s) {
  const double r = static_cast<double>(s.repeat);
  switch (s.kind) {
    case Kind::Concurrent: {
      double sum = 0;
      for (const auto& c : s.children) sum += step_events(c);
      return sum;
    }
    case Kind::TileTransfer:
    case Kind::TileTraffic:
      return r * (3 + 2 * static_cast<double>(s.plan.pair_bytes.size()));
    case Kind::HostBufferWrite:
      return static_cast<double>(s.sync_ipus.size()) * (r * (s.stream_copy_syncs ? 14 : 5) + 4);
    case Kind::HostBufferRead:
      return static_cast<double>(s.sync_ipus.size()) * r * (s.stream_copy_syncs ? 17 : 8);
    default:
      return is_network(s.kind) ? 2 * r : r;
  }
}

}  // namespace

void Microbenchmark::check_remote_buffers(const ConfigNode& workload) const {
  // A load of a buffer no step stored reads what the host put there before the run (the
  // way weights start in streaming memory), but a load larger than what an earlier step
  // stored would read bytes that were never written. Buffers are per machine (its DDR).
  std::map<std::pair<std::uint32_t, std::string>, std::pair<std::uint64_t, std::string>>
      stored;  // -> bytes, step path
  auto visit = [&](const Step& s, const std::string& path) {
    const auto key = std::make_pair(system_.machine_of(s.ipu), s.buffer);
    if (s.kind == Kind::RemoteStore) {
      auto& b = stored[key];
      b = {std::max(b.first, s.req.bytes), path};
    } else if (s.kind == Kind::RemoteLoad) {
      auto it = stored.find(key);
      if (it != stored.end() && s.req.bytes > it->second.first) {
        workload.fail(path.substr(1) + "/bytes",
                      "remote_load of " + std::to_string(s.req.bytes) + " B from buffer '" +
                          s.buffer + "', but only " + std::to_string(it->second.first) +
                          " B were stored in it (" + workload.path() + it->second.second + ")");
      }
    }
  };
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    const std::string path = "/steps/" + std::to_string(i);
    // Children of a concurrent step run at once: their stores do not precede their loads.
    for (std::size_t c = 0; c < steps_[i].children.size(); ++c)
      if (steps_[i].children[c].kind == Kind::RemoteLoad)
        visit(steps_[i].children[c], path + "/steps/" + std::to_string(c));
    for (std::size_t c = 0; c < steps_[i].children.size(); ++c)
      if (steps_[i].children[c].kind == Kind::RemoteStore)
        visit(steps_[i].children[c], path + "/steps/" + std::to_string(c));
    visit(steps_[i], path);
  }
}

void Microbenchmark::check_work(const ConfigNode& workload) const {
  WorkEstimate e;
  e.memory_parts.push_back({"steps", static_cast<double>(steps_.size() * sizeof(Step))});
  std::size_t worst = 0;
  double worst_events = -1;
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    const double ev = step_events(steps_[i]);
    e.events += ev;
    if (ev > worst_events) worst = i, worst_events = ev;
  }
  const Step& w = steps_[worst];
  char what[160];
  std::snprintf(what, sizeof what, "%.4g of them in step %zu '%s', %s x repeat %llu", worst_events,
                worst, w.name.c_str(), kind_name(w.kind),
                static_cast<unsigned long long>(w.repeat));
  e.events_what = what;
  e.key = "steps/" + std::to_string(worst) + "/repeat";
  e.advice =
      "lower the repeat counts (the bandwidth of a long transfer is that of a few repetitions)";
  check_work_estimate(e, workload);
}

void Microbenchmark::run() {
  try {
    for (Step& s : steps_) {
      if (s.kind == Kind::Concurrent) {
        run_concurrent(s);
      } else {
        run_sequential(s);
      }
    }
    finished_ = true;
  } catch (const std::exception& e) {
    // Exceptions must not escape a SystemC process; the caller reports failure().
    failure_ = e.what();
  }
  end_ns_ = now_ns();
}

std::uint64_t Microbenchmark::timed_cycles(Step& s) {
  std::uint64_t total = 0;
  for (std::uint64_t r = 0; r < s.repeat; ++r) {
    switch (s.kind) {
      case Kind::Exchange:
        total += system_.ipu(s.ipu).exchange(s.exchange);
        break;
      case Kind::Compute:
      case Kind::Gemm:
      case Kind::Convolution:
        total += system_.ipu(s.ipu).compute(s.compute);
        break;
      case Kind::Sync:
        total += system_.sync(s.sync_ipus).cycles;
        break;
      default:
        break;
    }
  }
  if (s.kind == Kind::Exchange) {
    s.moved_bytes = exchange_totals(s.exchange, system_.chip().tiles).received * s.repeat;
  }
  s.cycles = total;
  s.done = s.repeat;
  return total;
}

void Microbenchmark::run_sequential(Step& s) {
  s.start_ns = now_ns();
  if (s.kind == Kind::TileTransfer || s.kind == Kind::TileTraffic) return run_tile_traffic(s);
  if (s.kind == Kind::HostBufferWrite || s.kind == Kind::HostBufferRead) return run_host_buffer(s);
  if (is_network(s.kind)) {
    Network& net = system_.network();
    for (std::uint64_t r = 0; r < s.repeat; ++r) {
      const TransferResult res = net.transfer(s.req);
      ++transfers_done_;
      ++s.done;
      s.moved_bytes += s.req.bytes;
      trace_step(s, res.start_ns, res.duration_ns());
    }
    s.end_ns = now_ns();
    return;
  }
  const std::uint64_t cycles = timed_cycles(s);
  const double ns = system_.clock().cycles_to_ns(static_cast<double>(cycles));
  s.start_ns = occupy_tiles(s, s.start_ns, ns);
  sc_core::wait(ns_to_sc(s.start_ns + ns) - sc_core::sc_time_stamp());
  s.end_ns = now_ns();
  trace_step(s, s.start_ns, s.end_ns - s.start_ns);
}

double Microbenchmark::occupy_tiles(const Step& s, double ready_ns, double duration_ns) {
  // A sync holds every IPU it spans; exchange and compute hold their IPU. The step starts when
  // all of them are free and then holds them for its whole duration (repeats back to back).
  const std::vector<std::uint32_t> one{s.ipu};
  const std::vector<std::uint32_t>& ipus = s.kind == Kind::Sync ? s.sync_ipus : one;
  double start = ready_ns;
  for (std::uint32_t i : ipus) start = std::max(start, system_.ipu(i).compute_tiles_free_ns());
  for (std::uint32_t i : ipus) system_.ipu(i).occupy_compute_tiles(start, duration_ns);
  return start;
}

void Microbenchmark::start_network_chain(Step& s, std::uint64_t remaining, std::size_t* pending,
                                         sc_core::sc_event* done) {
  Network& net = system_.network();
  // Repeats as one stream inside the network: the same times and stats as the chain of
  // callbacks below, without a callback (and a wake) per repeat. A traced run keeps the chain,
  // which traces every repeat.
  if (remaining > 1 && net.can_stream() && !TraceWriter::instance().enabled() && s.req.bytes > 0 &&
      !s.req.route.empty()) {
    net.start_stream(s.req, remaining,
                     [this, &s, remaining, pending, done](const TransferResult& r) {
                       transfers_done_ += remaining;
                       s.done += remaining;
                       s.moved_bytes += s.req.bytes * remaining;
                       s.end_ns = r.end_ns;
                       if (--*pending == 0) done->notify(sc_core::SC_ZERO_TIME);
                     });
    return;
  }
  net.start(s.req, [this, &s, remaining, pending, done](const TransferResult& r) {
    ++transfers_done_;
    ++s.done;
    s.moved_bytes += s.req.bytes;
    trace_step(s, r.start_ns, r.duration_ns());
    if (remaining > 1) {
      start_network_chain(s, remaining - 1, pending, done);
      return;
    }
    s.end_ns = r.end_ns;
    if (--*pending == 0) done->notify(sc_core::SC_ZERO_TIME);
  });
}

void Microbenchmark::run_concurrent(Step& s) {
  const double t0 = now_ns();
  s.start_ns = t0;
  std::size_t pending = 0;
  sc_core::sc_event done;
  double timed_end = t0;
  for (Step& c : s.children) {
    c.start_ns = t0;
    if (is_network(c.kind)) {
      ++pending;
      start_network_chain(c, c.repeat, &pending, &done);
    } else {
      // BSP: steps on the same IPU's compute tiles run one after another (in the order given);
      // steps on other IPUs overlap.
      const std::uint64_t cycles = timed_cycles(c);
      const double ns = system_.clock().cycles_to_ns(static_cast<double>(cycles));
      c.start_ns = occupy_tiles(c, t0, ns);
      c.end_ns = c.start_ns + ns;
      timed_end = std::max(timed_end, c.end_ns);
      trace_step(c, c.start_ns, c.end_ns - c.start_ns);
    }
  }
  if (pending > 0) sc_core::wait(done);
  const sc_core::sc_time target = ns_to_sc(timed_end);
  if (target > sc_core::sc_time_stamp()) sc_core::wait(target - sc_core::sc_time_stamp());
  s.end_ns = now_ns();
}
std::unique_ptr<Workload> make_microbenchmark_workload(System& system, ConfigNode workload) {
  return std::make_unique<Microbenchmark>("microbenchmark", system, std::move(workload));
}

}  // namespace ipusim
