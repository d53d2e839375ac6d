// Host streams through the gateway buffer, and the tiles' external exchange port bound.
#include "models/system/host_stream.hpp"

#include <algorithm>

namespace ipusim {

double tile_external_port_ns(const ChipParams& chip, double bytes_per_tile) {
  return bytes_per_tile / (chip.external_exchange_bytes_per_cycle_per_tile * chip.clock_GHz);
}

double HostStreamTiming::total_bytes() const {
  return bytes_per_iteration * static_cast<double>(repeat);
}

double HostStreamTiming::host_side_GBps() const {
  const double d = host_end_ns - host_start_ns;
  return d > 0 ? total_bytes() / d : 0.0;
}

double HostStreamTiming::tile_side_GBps() const {
  const double d = tile_end_ns - tile_start_ns;
  return d > 0 ? total_bytes() / d : 0.0;
}

HostStreamTiming host_stream_timing(const HwParams& hw, bool to_tiles, std::uint32_t tiles,
                                    std::uint64_t bytes_per_transfer, std::uint64_t repeat) {
  const MachineParams& m = hw.machine;
  HostStreamTiming t;
  t.repeat = repeat;
  t.bytes_per_iteration = static_cast<double>(tiles) * static_cast<double>(bytes_per_transfer);
  // The buffer lives in the gateway's DDR (PG 2.4): both streams cross it.
  const double buffer_GBps = m.ddr_bandwidth_GBps * m.ddr_efficiency;
  t.host_rate_GBps = std::min(m.host_link_GBps * m.host_link_efficiency, buffer_GBps);
  // Tiles: each moves bytes_per_transfer through its external port per transfer.
  const double port_GBps = static_cast<double>(tiles) *
                           hw.chip.external_exchange_bytes_per_cycle_per_tile * hw.chip.clock_GHz;
  t.tile_rate_GBps =
      std::min({m.ipu_gateway_link_GBps * m.ipu_gateway_link_efficiency, buffer_GBps, port_GBps});
  // Why host side and tile side differ: the host moves the run as one RDMA stream (its link
  // latency once, then its rate), while the tiles move one small transfer per iteration, each
  // paying the buffer's per-transfer latency. The tool reports each side's bytes over that
  // side's own time.
  //
  // Why the directions differ: the consumer of the buffer *reads* it (h2d: the tiles pull
  // from the buffer; d2h: the host pulls from it), and a read is a request/response: one
  // transfer waits for its request to cross the link and the data to come back (2 x the
  // link's latency) before the next is issued. The producer *writes* (posted: no reply to
  // wait for). gc-hosttraffictest shows exactly this: in both directions the consumer side is
  // the slower one (h2d tile side < host side; d2h host side < tile side).
  const double n = static_cast<double>(repeat);
  const double tile_read_round_trip_ns = to_tiles ? 2.0 * m.ipu_gateway_link_latency_ns : 0.0;
  t.tile_transfer_ns =
      m.buffer_latency_ns + tile_read_round_trip_ns + t.bytes_per_iteration / t.tile_rate_GBps;
  if (to_tiles) {
    // The host writes from t = 0 as one stream; tile transfer i needs iteration i in the buffer.
    const double host_stream_ns =
        m.host_link_latency_ns + n * t.bytes_per_iteration / t.host_rate_GBps;
    const double host_first_ns = m.host_link_latency_ns + t.bytes_per_iteration / t.host_rate_GBps;
    t.host_start_ns = 0;
    t.host_end_ns = host_stream_ns;
    t.tile_start_ns = host_first_ns;
    t.tile_end_ns =
        std::max(host_first_ns + n * t.tile_transfer_ns, host_stream_ns + t.tile_transfer_ns);
  } else {
    // The tiles write from t = 0; the host reads each iteration once it is in the buffer, one
    // read (a link round trip plus the bytes at its rate) at a time.
    const double host_read_ns =
        2.0 * m.host_link_latency_ns + t.bytes_per_iteration / t.host_rate_GBps;
    t.tile_start_ns = 0;
    t.tile_end_ns = n * t.tile_transfer_ns;
    t.host_start_ns = t.tile_transfer_ns;
    t.host_end_ns = std::max(t.tile_transfer_ns + n * host_read_ns, t.tile_end_ns + host_read_ns);
  }
  t.end_ns = std::max(t.host_end_ns, t.tile_end_ns);
  return t;
}

}  // namespace ipusim
