#pragma once
// Closed forms of the two Graphcore link microbenchmarks' transfers (plain C++):
//  - tiles of one IPU sending to another IPU's tiles (gc-iputraffictest): each tile's
//    external exchange port bounds the transfer as well as the IPU-Links;
//  - host streams through the gateway buffer (gc-hosttraffictest): a host <-> buffer stream
//    and a buffer <-> tiles stream that run at once, each timed on its own.
#include <cstdint>

#include "models/params/hw_params.hpp"

namespace ipusim {

/// ns for one tile to push (or take) `bytes_per_tile` through its external exchange port:
/// bytes / (external_exchange_bytes_per_cycle_per_tile x clock).
double tile_external_port_ns(const ChipParams& chip, double bytes_per_tile);

/// Timing of a host stream of `repeat` transfers of `tiles x bytes_per_transfer` bytes
/// through the gateway buffer, all times from the step start, ns.
struct HostStreamTiming {
  double bytes_per_iteration = 0;
  double host_rate_GBps = 0;  ///< host <-> buffer: min(host link x eff, DDR buffer x eff)
  double tile_rate_GBps =
      0;  ///< buffer <-> tiles: min(gateway link x eff, DDR x eff, tiles x port rate)
  double tile_transfer_ns =
      0;  ///< one buffer <-> tiles transfer: buffer latency (+ read round trip) + bytes / rate
  double host_start_ns = 0, host_end_ns = 0;  ///< the host's stream
  double tile_start_ns = 0, tile_end_ns = 0;  ///< the tiles' transfers, first start to last end
  double end_ns = 0;                          ///< the step: both streams done
  /// Bytes moved / the host's stream time (GB/s = B/ns).
  double host_side_GBps() const;
  /// Bytes moved / the tiles' time from their first transfer's start to their last's end.
  double tile_side_GBps() const;
  double total_bytes() const;
  std::uint64_t repeat = 0;
};

/// Closed form of a host stream. `to_tiles`: host -> buffer -> tiles (the host produces,
/// the tiles consume); otherwise tiles -> buffer -> host. The producer writes (posted), the
/// consumer reads (each read waits a round trip of its link: 2 x its latency). A consumer never
/// overtakes its producer: with constant rates, the consumer's end is the later of (first data
/// ready + its own N transfers) and (last data ready + its last transfer). The buffer is assumed
/// large enough that the producer never waits (true for the gc-hosttraffictest sizes).
HostStreamTiming host_stream_timing(const HwParams& hw, bool to_tiles, std::uint32_t tiles,
                                    std::uint64_t bytes_per_transfer, std::uint64_t repeat);

}  // namespace ipusim
