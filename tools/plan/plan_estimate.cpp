// Analytic estimates of the plan (see plan_estimate.hpp). The time model is a ranking aid,
// not a prediction: compute at the calibrated AMP efficiency, the pipeline's ramp and
// imbalance, one fixed overhead per op, streaming-memory traffic of off-chip tensors at the
// gateway's DDR rate shared by a machine's IPUs, and the gradient all-reduce on IPU-Links.
#include "tools/plan/plan_estimate.hpp"

#include <algorithm>
#include <cstdlib>

namespace ipusim::cli {

namespace {

/// Compute ops per encoder layer per micro-batch step, forward and backward (ASSUMPTION:
/// about what the transformer generator emits; it only weights the per-op overhead).
constexpr double kOpsPerLayer = 40;
/// Compute ops of ResNet-50 per micro-batch step, forward and backward (ASSUMPTION, as above).
constexpr double kOpsPerCnnStep = 480;
/// IPU-Links a ring all-reduce uses per IPU (ASSUMPTION: one ring, both directions).
constexpr double kRingLinks = 2;

/// Replicas sharing one RTS shard's group (1 when RTS is off).
double shard_group(const PlanCandidate& c) {
  if (c.rts == "off") return 1;
  if (c.rts == "all") return static_cast<double>(c.replicas);
  return std::strtod(c.rts.substr(c.rts.find(':') + 1).c_str(), nullptr);
}

}  // namespace

PlanEstimate estimate_candidate(const PlanCandidate& c, const ModelFacts& f) {
  PlanEstimate e;
  const bool pipelined = c.execution == "pipelined", phased = c.execution == "phased";
  const double ipr = static_cast<double>(c.ipus_per_replica);
  // Parameters and per-sample work on the fullest IPU (pipelines: IPU 0 holds embedding +
  // heads besides its layers; otherwise the replica's IPUs share the model evenly).
  double params_ipu = f.total_parameters / ipr;
  double flops_ipu = (f.outer_flops_per_sample + f.layers * f.layer_flops_per_sample) / ipr;
  double layers_ipu = static_cast<double>(f.layers) / ipr;
  if (pipelined) {
    params_ipu = 0;
    flops_ipu = 0;
    for (std::size_t i = 0; i < c.layers_per_ipu.size(); ++i) {
      const double n = static_cast<double>(c.layers_per_ipu[i]);
      params_ipu = std::max(params_ipu, n * f.layer_parameters + (i == 0 ? f.outer_parameters : 0));
      flops_ipu = std::max(flops_ipu,
                           n * f.layer_flops_per_sample + (i == 0 ? f.outer_flops_per_sample : 0));
      layers_ipu = std::max(layers_ipu, n);
    }
  }
  const double group = shard_group(c);
  const double weight_shard = (phased && c.weights == "off_chip") ? group : 1;
  // --- SRAM lower bound ---
  double resident = 0;
  if (c.weights == "on_chip") resident += params_ipu * f.weight_bytes / weight_shard;
  if (c.optimizer_state == "on_chip") {
    resident += params_ipu * f.optimizer_states * f.state_bytes / group;
    if (c.accumulation > 1) resident += params_ipu * f.weight_bytes / group;  // accumulators
  }
  e.sram_bytes_per_tile_lower_bound =
      static_cast<double>(f.code_bytes_per_tile) + resident / static_cast<double>(f.tiles);
  // --- step time ---
  const double clock_hz = f.clock_GHz * 1e9;
  const double compute_tiles = static_cast<double>(f.tiles - c.io_tiles);
  const double rate = compute_tiles * f.amp_flops_per_cycle_per_tile * clock_hz * f.amp_efficiency;
  const double recompute =
      c.recomputation == "none" ? 3.0 : 4.0;  // forward + 2x backward (+ forward)
  const double samples_per_micro = static_cast<double>(c.micro_batch);
  const double steps = static_cast<double>(c.accumulation * c.batch_serialisation);
  const double ops_per_step = f.generator == "cnn" ? kOpsPerCnnStep : kOpsPerLayer * layers_ipu;
  const double overhead_s = ops_per_step * f.op_overhead_cycles / clock_hz;
  const double micro_s = flops_ipu * recompute * samples_per_micro / rate +
                         overhead_s * static_cast<double>(c.batch_serialisation);
  double compute_s = micro_s * static_cast<double>(c.accumulation);
  if (pipelined) {
    const double stages = 2 * (ipr + 1) - 1;  // forward stages incl. the heads, then backward
    compute_s = micro_s * (static_cast<double>(c.accumulation) + stages - 1);
  }
  // Streaming memory: a machine's DDR serves its IPUs.
  const double stream_Bps = f.ddr_GBps_per_machine * 1e9 / static_cast<double>(f.ipus_per_machine);
  double stream_bytes = 0;
  if (c.weights == "off_chip") {
    const double loads = phased ? steps / static_cast<double>(c.batch_serialisation) : 1;
    stream_bytes += params_ipu * f.weight_bytes / weight_shard * (loads + 1);
  }
  if (c.optimizer_state == "off_chip")
    stream_bytes += 2 * params_ipu * (f.optimizer_states * f.state_bytes + f.weight_bytes) / group;
  if (c.activations == "off_chip")
    stream_bytes += 2 * f.activation_bytes_per_layer_per_sample * layers_ipu * samples_per_micro *
                    static_cast<double>(c.accumulation);
  const double stream_s = stream_bytes / stream_Bps;
  // Gradient all-reduce (or reduce-scatter + all-gather with RTS: the same bytes).
  const double r = static_cast<double>(c.replicas);
  const double link_Bps = kRingLinks * f.ipu_link_GBps * 1e9 * f.ipu_link_efficiency;
  const double reduce_s = r > 1 ? 2 * params_ipu * f.weight_bytes * (r - 1) / r / link_Bps : 0;
  // IO tiles overlap streaming with compute; without them the two add up.
  const double step_s =
      (c.io_tiles > 0 ? std::max(compute_s, stream_s) : compute_s + stream_s) + reduce_s;
  e.step_time_ns = step_s * 1e9;
  e.samples_per_s = static_cast<double>(c.replicas * c.micro_batch * c.accumulation) / step_s;
  return e;
}

}  // namespace ipusim::cli
