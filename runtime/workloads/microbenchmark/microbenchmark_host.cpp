// gc-hosttraffictest's host streams through the network: host -> gateway buffer (in the
// gateway's DDR) -> tiles, and back. The host's side and the tiles' side run as two processes,
// each moving its data as flows over the host link, the DDR and the IPU <-> gateway link (the
// resources training's streams and remote buffers use, shared with any other traffic). Writes
// into the buffer and the gateway's pushes to the host are posted (Network::send); only the
// tiles' reads wait for a request to cross their link. A step over several IPUs (`ipus`) is
// one stream copy into all of them: each IPU's tiles and its host side run as above, at once,
// their flows sharing whatever resources their routes share (on a C2 server the host PCIe
// switches' uplinks), after one sync of all the IPUs.
// sc_spawn (the host's process) needs the dynamic-process API.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <algorithm>
#include <cmath>
#include <systemc>

#include "models/system/system.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark_step.hpp"
#include "sim/sim_time.hpp"

namespace ipusim {

void Microbenchmark::run_host_buffer(Step& s) {
  const std::uint64_t B = static_cast<std::uint64_t>(s.tiles) * s.bytes_per_tile;
  const std::uint64_t n = s.repeat;
  const double t0 = now_ns();
  double not_before = t0;
  for (std::uint32_t i : s.sync_ipus)
    not_before = std::max(not_before, system_.ipu(i).compute_tiles_free_ns());
  HostBufferSides all;
  if (s.sync_ipus.size() == 1) {
    all = run_host_buffer_on(s, s.ipu, t0, not_before);
  } else {
    // Every IPU's stream at once; the step's sides run from the first start to the last end.
    std::vector<HostBufferSides> sides(s.sync_ipus.size());
    std::size_t running = sides.size();
    sc_core::sc_event all_done;
    for (std::size_t i = 0; i < sides.size(); ++i) {
      sc_core::sc_spawn([&, i] {
        sides[i] = run_host_buffer_on(s, s.sync_ipus[i], t0, not_before);
        if (--running == 0) all_done.notify(sc_core::SC_ZERO_TIME);
      });
    }
    sc_core::wait(all_done);
    all = sides.front();
    for (const HostBufferSides& x : sides) {
      all.host_start_ns = std::min(all.host_start_ns, x.host_start_ns);
      all.tile_start_ns = std::min(all.tile_start_ns, x.tile_start_ns);
      all.host_end_ns = std::max(all.host_end_ns, x.host_end_ns);
      all.tile_end_ns = std::max(all.tile_end_ns, x.tile_end_ns);
    }
  }
  s.host_start_ns = all.host_start_ns;
  s.host_end_ns = all.host_end_ns;
  s.tile_start_ns = all.tile_start_ns;
  s.tile_end_ns = all.tile_end_ns;
  s.done = n;
  s.moved_bytes = static_cast<std::uint64_t>(s.sync_ipus.size()) * n * B;
  s.end_ns = now_ns();
  trace_step(s, s.start_ns, s.end_ns - s.start_ns);
}

Microbenchmark::HostBufferSides Microbenchmark::run_host_buffer_on(const Step& s,
                                                                   std::uint32_t ipu_id, double t0,
                                                                   double not_before_ns) {
  // Per repetition the tiles sync (the stream copy starts a BSP step) and move tiles x
  // bytes_per_transfer between their ports and the gateway buffer, their exchange phase and the
  // link flow running at once. Host -> tiles: the host writes the run into the buffer as one
  // posted stream; the tiles read each repetition (the request across the gateway link, then
  // the data back). Tiles -> host: the tiles write (posted); the gateway pushes each landed
  // repetition to the host as a posted DMA (the DDR access, then the bytes over the host link)
  // and starts the next once the bytes have left, not once they have arrived: no request
  // crosses the host link and its latency is paid once, in flight.
  const bool to_tiles = s.kind == Kind::HostBufferWrite;
  const MachineParams& m = system_.params().machine;
  const ChipParams& chip = system_.chip();
  const ClockDomain& clock = system_.clock();
  Network& net = system_.network();
  const Route write = system_.host_write_route(ipu_id);  // host link, DDR, gateway -> IPU
  const Route read = system_.host_read_route(ipu_id);    // IPU -> gateway, DDR, host link
  // On a C2 card (host_attachment pcie_card) the buffer is in host memory, which the IPU reads
  // and writes directly: the tiles' transfers cross the whole route (the host PCIe switch and
  // the IPU's PCIe link), and the host side moves nothing over any link.
  const bool pcie = system_.topology().pcie_card();
  const Route host_to_buffer = pcie ? Route{} : Route{write[0], write[1]};
  const Route buffer_to_tiles = pcie ? write : Route{write[1], write[2]};
  const Route tiles_to_buffer = pcie ? read : Route{read[0], read[1]};
  const Route buffer_to_host = pcie ? Route{} : Route{read[1], read[2]};
  // A read's request crosses the IPU's link to the buffer before the data comes back.
  const double request_ns = pcie ? m.pcie_card_link_latency_ns : m.ipu_gateway_link_latency_ns;
  const std::uint64_t host_bytes =
      pcie ? 0 : static_cast<std::uint64_t>(s.tiles) * s.bytes_per_tile;
  const std::uint64_t B = static_cast<std::uint64_t>(s.tiles) * s.bytes_per_tile;
  const std::uint64_t n = s.repeat;
  // The tiles' exchange phase: each of `tiles` tiles sends or receives bytes_per_transfer off
  // chip through its port.
  ExchangeSpec phase;
  phase.pattern = ExchangePattern::Explicit;
  const double scale =
      chip.exchange_bytes_per_cycle_per_tile / chip.external_exchange_bytes_per_cycle_per_tile;
  const auto port_bytes =
      static_cast<std::uint64_t>(std::ceil(static_cast<double>(s.bytes_per_tile) * scale - 1e-9));
  for (std::uint32_t t = 0; t < s.tiles; ++t)
    phase.per_tile.push_back(to_tiles ? TileTraffic{0, port_bytes} : TileTraffic{port_bytes, 0});
  Ipu& ipu = system_.ipu(ipu_id);
  // The step's IPUs sync together; one IPU's process records the syncs in the stats.
  const std::vector<std::uint32_t>& me = s.sync_ipus;
  const bool record_syncs = ipu_id == s.sync_ipus.front();
  // A barrier across IPUs runs each IPU's internal barrier before the external one (Graphcore
  // patent US 10,579,585 B2, claim 1), as in tile steps.
  const double internal_ns = clock.cycles_to_ns(static_cast<double>(chip.sync_internal_cycles));
  auto sync_ns = [&] {
    const SyncCost c = record_syncs ? system_.sync(me) : system_.sync_cost(me);
    return c.ns + (c.scope == SyncScope::Internal ? 0.0 : internal_ns);
  };
  HostBufferSides out;

  // Progress shared by the two processes: repetitions whose data is in the buffer.
  std::uint64_t in_buffer = 0;
  sc_core::sc_event landed, host_done;
  bool host_finished = false;
  // A Poplar stream copy that was not prefetched syncs with the host before and after its data
  // (StreamCopyBegin, StreamCopyEnd; docs/c2_host_stream_copy.md): the IPU's request crosses
  // to the host and the host's release comes back, as messages with no payload over the same
  // PCIe resources as the data. The host runtime's own reaction is not modelled (no source).
  auto host_handshake = [&] {
    net.transfer({read, 0});   // IPU -> host: the sync request
    net.transfer({write, 0});  // host -> IPU: the release
  };
  auto tiles_repetition = [&](const Route& route) {
    // The sync starts once the tiles of every IPU of the step are free (`not_before_ns`: when
    // they all were at the step's start, before any of its IPUs' processes took its own).
    const double ready = std::max({now_ns(), ipu.compute_tiles_free_ns(), not_before_ns});
    const double sync = sync_ns();
    const std::uint64_t cycles =
        system_.fidelity() == Fidelity::PerTile
            ? ipu.exchange(phase)
            : exchange_cycles_per_tile(ExchangeRates::from(chip), phase.per_tile, false);
    double phase_start = ready + sync;
    const double phase_ns = clock.cycles_to_ns(static_cast<double>(cycles));
    ipu.occupy_compute_tiles(ready, sync + phase_ns);
    sc_core::wait(ns_to_sc(phase_start) - sc_core::sc_time_stamp());
    if (s.stream_copy_syncs) {  // StreamCopyBegin: the data moves once the host has answered
      host_handshake();
      phase_start = now_ns();
    }
    if (to_tiles) sc_core::wait(ns_to_sc(request_ns));  // the read request
    if (B > 0) net.transfer({route, B});
    ++transfers_done_;
    const double end = std::max(now_ns(), phase_start + phase_ns);
    if (end > now_ns()) sc_core::wait(ns_to_sc(end) - sc_core::sc_time_stamp());
    if (s.stream_copy_syncs) {  // StreamCopyEnd: the tiles sync, then the host answers again
      sc_core::wait(ns_to_sc(sync_ns()));
      host_handshake();
    }
  };

  if (to_tiles) {
    // The host writes the run as one posted stream: the first repetition, then the rest (the
    // tiles may start once the first is in; the last waits for the whole stream). Simultaneous
    // sides: the tiles read the buffer at their own pace, not waiting for the stream.
    sc_core::sc_spawn([&] {
      if (host_bytes > 0) net.transfer({host_to_buffer, B});
      ++transfers_done_;
      in_buffer = 1;
      landed.notify(sc_core::SC_ZERO_TIME);
      if (n > 1 && host_bytes > 0) net.transfer({host_to_buffer, (n - 1) * B});
      ++transfers_done_;
      in_buffer = n;
      out.host_end_ns = now_ns();
      host_finished = true;
      landed.notify(sc_core::SC_ZERO_TIME);
      host_done.notify(sc_core::SC_ZERO_TIME);
    });
    out.host_start_ns = t0;
    for (std::uint64_t i = 0; i < n; ++i) {
      // The stream lands progressively; only the first and the last repetition wait for it
      // (the rest is one flow, whose progress the network does not report). Waiting for the
      // whole stream before the second repetition would put the host's time into the tiles'.
      const std::uint64_t needed = s.simultaneous ? 0
                                   : i + 1 < n    ? std::min<std::uint64_t>(i + 1, 1)
                                                  : n;
      while (in_buffer < needed) sc_core::wait(landed);
      if (i == 0) out.tile_start_ns = now_ns();
      tiles_repetition(buffer_to_tiles);
    }
    out.tile_end_ns = now_ns();
    if (!host_finished) sc_core::wait(host_done);
  } else {
    // The tiles write each repetition; the gateway pushes each one to the host once it has
    // landed (simultaneous sides: at its own pace, not waiting for the tiles), one DMA at a
    // time, the next as soon as the previous one's bytes have left the DDR (posted: the
    // host-link flight overlaps the next push). The host side ends at the last arrival.
    sc_core::sc_spawn([&] {
      std::uint64_t arrived = 0;
      sc_core::sc_event all_arrived;
      for (std::uint64_t i = 0; i < n; ++i) {
        while (!s.simultaneous && in_buffer <= i) sc_core::wait(landed);
        if (i == 0) out.host_start_ns = now_ns();
        ++transfers_done_;
        if (host_bytes == 0) {
          ++arrived;
          continue;
        }
        net.send({buffer_to_host, B}, [&](const TransferResult&) {
          if (++arrived == n) all_arrived.notify(sc_core::SC_ZERO_TIME);
        });
      }
      if (arrived < n) sc_core::wait(all_arrived);
      out.host_end_ns = now_ns();
      host_finished = true;
      host_done.notify(sc_core::SC_ZERO_TIME);
    });
    out.tile_start_ns = t0;
    for (std::uint64_t i = 0; i < n; ++i) {
      tiles_repetition(tiles_to_buffer);
      ++in_buffer;
      landed.notify(sc_core::SC_ZERO_TIME);
    }
    out.tile_end_ns = now_ns();
    if (!host_finished) sc_core::wait(host_done);
  }
  if (pcie) {
    // The host's side of a C2 card's stream is the tiles' transfers themselves.
    out.host_start_ns = out.tile_start_ns;
    out.host_end_ns = out.tile_end_ns;
  }
  return out;
}

}  // namespace ipusim
