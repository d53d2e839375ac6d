#pragma once
// One microbenchmark step as parsed and as played (shared by the microbenchmark's sources:
// microbenchmark.cpp parses and plays the plain steps, microbenchmark_components.cpp the
// tile-level and GEMM ones, microbenchmark_host.cpp the host streams, microbenchmark_report.cpp
// writes the results).
#include <cstdint>
#include <string>
#include <vector>

#include "models/ipu/compute.hpp"
#include "models/ipu/exchange.hpp"
#include "models/ipu/reduce_plan.hpp"
#include "models/network/network.hpp"
#include "models/network/routing.hpp"
#include "runtime/workloads/microbenchmark/microbenchmark.hpp"
#include "runtime/workloads/microbenchmark/tile_traffic.hpp"

namespace ipusim {

struct Microbenchmark::Step {
  Kind kind = Kind::Transfer;
  std::string name;
  std::uint64_t repeat = 1;
  std::uint32_t src = 0, dst = 0, ipu = 0;
  TransferRequest req;  ///< route and bytes of network steps
  LinkTier tier = LinkTier::Local;
  std::string buffer;
  ExchangeSpec exchange;
  ComputeSpec compute;
  std::vector<std::uint32_t> sync_ipus;
  std::vector<Step> children;
  // tile_transfer, tile_traffic and host_buffer_* steps.
  std::uint32_t tiles = 0;
  std::uint64_t bytes_per_tile = 0;  ///< tile_*: per tile; host_buffer_*: per transfer
  bool bidirectional = false;
  bool host_timed = true;     ///< tile_*: the timed interval includes the sync before the transfer
  bool simultaneous = false;  ///< host_buffer_*: the two sides do not wait for each other's data
  /// host_buffer_* on a C2 card: each repetition is a Poplar stream copy without prefetch, which
  /// syncs with the host before and after its data (StreamCopyBegin and StreamCopyEnd).
  bool stream_copy_syncs = false;
  TileTrafficSpec tile;  ///< tile_transfer and tile_traffic: the messages
  TileTrafficPlan plan;  ///< ... expanded once at parse time
  ComputeDType reduce_dtype = ComputeDType::Float32;  ///< tile_traffic reduce: element type
  /// tile_traffic reduce: one stage of popops::reduce (models/ipu/reduce_plan.hpp) with its
  /// messages expanded, and the time of its parts in the last repetition (ns).
  struct ReduceStep {
    ReduceStage stage;
    TileTrafficPlan plan;
    double exchange_ns = 0, reduce_ns = 0;
  };
  std::vector<ReduceStep> reduce_stages;  ///< empty for the other patterns
  // Results.
  double start_ns = 0, end_ns = 0;
  std::uint64_t moved_bytes = 0;
  std::uint64_t cycles = 0;
  std::uint64_t done = 0;
  // host_buffer_*: each side's first start and last end (ns), and the tiles' sync-to-data time.
  double host_start_ns = 0, host_end_ns = 0, tile_start_ns = 0, tile_end_ns = 0;
  // tile_*: time of the parts of the last repetition (ns): the sync (0 when not host-timed),
  // the external exchange set-up (0 when no data leaves an IPU), the busiest IPU's exchange
  // phase, the network, and the reduction vertex.
  double sync_ns = 0, setup_ns = 0, exchange_ns = 0, network_ns = 0, reduce_ns = 0;
  /// The longest time an IPU's link ports needed for the step's off-chip bytes (its port
  /// groups' share of each bundle, Microbenchmark::link_ports_ns()).
  double link_ports_ns = 0;
  /// tile_traffic reduce: the op overhead the reduce pays once (/chip/compute/op_overhead_cycles).
  double op_overhead_ns = 0;
};

namespace mb {
/// The step kind's name in configs and reports ("tile_traffic", ...).
const char* kind_name(Microbenchmark::Kind k);
/// True for the kinds that are one network transfer per repetition.
bool is_network(Microbenchmark::Kind k);
/// Breakdown category of a leaf step (compute, exchange, sync, ipu_link, gw_link, ...).
std::string category(Microbenchmark::Kind k, LinkTier tier);
}  // namespace mb

}  // namespace ipusim
