#pragma once
// The microbenchmark workload: a list of hardware-level steps (transfers over any link tier,
// exchange phases, remote loads/stores, host I/O, syncs, compute, and concurrent groups of
// them) played in order by one SC_THREAD, with per-step timing and bandwidth. Inside a
// concurrent group, compute, exchange and sync steps that share an IPU serialise (BSP: an
// IPU's compute tiles do one of them at a time); network steps (IO) overlap with them.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "models/ipu/compute.hpp"
#include "models/ipu/exchange.hpp"
#include "models/network/routing.hpp"
#include "runtime/workloads/workload.hpp"
#include "sim/config.hpp"
#include "sim/json.hpp"

namespace ipusim {

struct TileTrafficPlan;

class System;

/// Runs `/workload/steps` on a System during sc_start().
class Microbenchmark : public sc_core::sc_module, public Workload {
 public:
  SC_HAS_PROCESS(Microbenchmark);
  /// Parses and checks every step (ConfigError with the JSON path on bad input), allocates
  /// the streaming-memory buffers of remote steps, and registers the SC_THREAD.
  Microbenchmark(sc_core::sc_module_name name, System& system, ConfigNode workload);
  ~Microbenchmark() override;

  bool finished() const override { return finished_; }
  double total_time_ns() const override { return end_ns_; }
  /// ns by kind: compute, exchange, sync, ipu_link, gw_link, streaming_memory, host_io, idle.
  Json breakdown_ns() const override;
  /// Mean utilisation of the used resources of each link tier over the run.
  Json utilisation() const override;
  Json memory() const override;
  /// {"steps": [{name, kind, start_ns, end_ns, duration_ns, bytes, bandwidth_GBps, ...}],
  ///  "total_ns", "total_cycles", "transfers", "breakdown_ns"}. bandwidth_GBps is bytes moved
  ///  (both directions of a bidirectional tile_transfer summed) / duration; host_buffer_* steps
  ///  add host_side_GBps (bytes / the host <-> buffer stream's time) and tile_side_GBps
  ///  (bytes / the tiles' time from their first transfer's start to their last's end).
  Json results() const override;
  std::string failure() const override { return failure_; }
  std::string summary() const override;
  /// Network transfers completed (for simulator-speed benchmarks).
  std::uint64_t transfers_completed() const { return transfers_done_; }

  /// What a step does.
  /// TileTransfer: tiles of one IPU to tiles of another (gc-iputraffictest); HostBufferWrite /
  /// HostBufferRead: host -> gateway buffer -> tiles and back (gc-hosttraffictest); TileTraffic:
  /// tile -> tile messages over N IPUs (the Citadel component tests); Gemm / Convolution: one
  /// matmul or convolution of a given shape on one IPU.
  enum class Kind {
    Transfer,
    Exchange,
    RemoteLoad,
    RemoteStore,
    HostRead,
    HostWrite,
    Sync,
    Compute,
    Concurrent,
    TileTransfer,
    HostBufferWrite,
    HostBufferRead,
    TileTraffic,
    Gemm,
    Convolution
  };
  struct Step;

 private:
  Step parse_step(ConfigNode node, const std::string& default_name, bool nested);
  /// Refuses (ConfigError) steps whose kernel events exceed /sim/max_events before running.
  void check_work(const ConfigNode& workload) const;
  /// Refuses (ConfigError) a remote_load larger than what an earlier step stored in its buffer.
  void check_remote_buffers(const ConfigNode& workload) const;
  void run();
  void run_sequential(Step& s);
  /// Parses the fields of a tile_transfer / tile_traffic step (microbenchmark_components.cpp).
  void parse_tile_step(ConfigNode& n, Step& s);
  /// Parses a gemm / convolution step into an AMP compute spec with its GEMM shape.
  void parse_shape_step(ConfigNode& n, Step& s);
  /// tile_transfer and tile_traffic: repeat x (sync, then each IPU's exchange phase and the
  /// network at once; a reduce runs popops::reduce's stages, each such a superstep followed by
  /// its reduction vertices).
  void run_tile_traffic(Step& s);
  /// The time of one superstep's parts (ns).
  struct SuperstepTimes {
    double sync_ns = 0, setup_ns = 0, exchange_ns = 0, network_ns = 0, link_ports_ns = 0;
  };
  /// One BSP superstep of `plan` over the step's IPUs from now: the barriers (in the timed
  /// interval only with `timed_sync`), the external set-up when data leaves an IPU, then each
  /// IPU's exchange phase beside the network; returns when all are done.
  SuperstepTimes tile_superstep(const Step& s, const TileTrafficPlan& plan, bool timed_sync);
  /// Expands a reduce step's popops::reduce stages into their messages (parse time).
  void plan_reduce_stages(ConfigNode& n, Step& s);
  /// Per IPU, the time (ns) its IPU-Link ports need for a tile step's off-chip bytes: per link
  /// bundle and direction, each port group's bytes at its share (external_ports_ns()).
  std::map<std::uint32_t, double> link_ports_ns(const TileTrafficPlan& plan) const;
  /// host_buffer_*: the host's side and the tiles' side as two processes on the network, on
  /// each of the step's IPUs at once.
  void run_host_buffer(Step& s);
  /// Each side's first start and last end (ns) of one IPU's host stream.
  struct HostBufferSides {
    double host_start_ns = 0, host_end_ns = 0, tile_start_ns = 0, tile_end_ns = 0;
  };
  /// One IPU's part of a host_buffer_* step from `t0`: its host side and its tiles' side, whose
  /// first sync starts at `not_before_ns` at the earliest (all the step's IPUs free).
  HostBufferSides run_host_buffer_on(const Step& s, std::uint32_t ipu_id, double t0,
                                     double not_before_ns);
  /// Result fields of tile_*, gemm / convolution and host_buffer_* steps.
  void component_step_json(const Step& s, Json& j) const;
  void run_concurrent(Step& s);
  void start_network_chain(Step& s, std::uint64_t remaining, std::size_t* pending,
                           sc_core::sc_event* done);
  std::uint64_t timed_cycles(Step& s);
  /// Reserves the compute tiles of the step's IPU(s) (all of a sync's) for `duration_ns` from
  /// the first instant at or after `ready_ns` when they are all free; returns the start.
  double occupy_tiles(const Step& s, double ready_ns, double duration_ns);
  void trace_step(const Step& s, double start_ns, double dur_ns) const;
  Json step_json(const Step& s) const;

  System& system_;
  std::vector<Step> steps_;
  bool finished_ = false;
  double end_ns_ = 0;
  std::string failure_;
  std::uint64_t transfers_done_ = 0;
};

/// Factory used by make_workload() for `"kind": "microbenchmark"`.
std::unique_ptr<Workload> make_microbenchmark_workload(System& system, ConfigNode workload);

}  // namespace ipusim
