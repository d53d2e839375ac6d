// Analytic estimates of the plan (see plan_estimate.hpp). The time model is a ranking aid,
// not a prediction: compute at the calibrated AMP efficiency, the pipeline's ramp and
// imbalance, one fixed overhead per op, streaming-memory traffic of off-chip tensors at the
// gateway's DDR rate shared by a machine's IPUs, and the gradient all-reduce on IPU-Links.
#include "tools/plan/plan_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "models/ipu/gemm_tiling.hpp"

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

/// The chip values the compute model's GEMM cost reads, from the plan's facts, at FP16.
ChipParams gemm_chip(const ModelFacts& f) {
  ChipParams c;
  c.tiles = static_cast<std::uint32_t>(f.tiles);
  c.worker_threads = static_cast<std::uint32_t>(f.worker_threads);
  c.amp_flops_per_cycle_fp16 = f.amp_flops_per_cycle_per_tile;
  c.amp_flops_per_cycle_fp32 = f.amp_flops_per_cycle_per_tile;
  c.amp_flops_per_cycle_fp16_32 = f.amp_flops_per_cycle_per_tile;
  c.vector_flops_per_cycle_fp16 = f.vector_flops_per_cycle_per_tile;
  c.vector_flops_per_cycle_fp32 = f.vector_flops_per_cycle_per_tile;
  c.exchange_bytes_per_cycle_per_tile = f.exchange_bytes_per_cycle_per_tile;
  c.amp_efficiency = f.amp_efficiency;
  return c;
}

/// Cycles of one GEMM (m x n x k, `groups` of them) in the compute model, from below, for any
/// assignment of the three dimensions to m, n and k (the backward GEMMs permute them): the
/// least, over the six assignments, of the model's FP16 cost of the busiest tile's block under
/// the cycle-minimising split (models/ipu/gemm_tiling.hpp), plus the per-op overhead. No
/// window: only the transformer's GEMMs are bounded (step_time_lower_bound_s has no CNN bound),
/// and none of them is a windowed convolution.
double gemm_cycles_lower_bound(const ModelFacts& f, double m, double n, double k, double groups) {
  const ChipParams chip = gemm_chip(f);
  const double tiles = static_cast<double>(f.tiles);
  const double d[3] = {m, k, n};
  const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  double best = -1;
  for (const auto& p : perms) {
    const double cycles =
        gemm_tile_block(chip, ComputeDType::Float16, d[p[0]], d[p[1]], d[p[2]], groups, tiles)
            .cycles();
    if (best < 0 || cycles < best) best = cycles;
  }
  return best + f.op_overhead_cycles;
}

/// Cycles of one vector op of `flops` from below (the flop term at the FP16 rate, no bytes).
double vector_cycles_lower_bound(const ModelFacts& f, double flops) {
  return flops / (static_cast<double>(f.tiles) * f.vector_flops_per_cycle_per_tile) +
         f.op_overhead_cycles;
}

/// One encoder layer's cycles per micro-batch of `mb` samples from below: the GEMMs and
/// vector ops the transformer generator emits (forward; the forward again when recomputed;
/// backward: every GEMM's weight and input gradient except the first layer's input
/// gradient, which the first layer may not need).
double layer_cycles_lower_bound(const ModelFacts& f, double mb, bool recomputed) {
  const double T = mb * static_cast<double>(f.sequence_length), h = f.hidden, F = f.ffn_factor;
  const double seq = static_cast<double>(f.sequence_length), dh = h / f.heads;
  const double groups = mb * f.heads;
  auto gemm = [&](double m, double n, double k, double g) {
    return gemm_cycles_lower_bound(f, m, n, k, g);
  };
  const double qkv = gemm(T, h, 3 * h, 1), scores = gemm(seq, dh, seq, groups),
               context = gemm(seq, seq, dh, groups), attn_out = gemm(T, h, h, 1),
               ff1 = gemm(T, h, F * h, 1), ff2 = gemm(F * h, T, h, 1);
  const double hidden_el = T * h, score_el = groups * seq * seq, ffn_el = T * F * h;
  // Softmax 5, norm 8, GELU 10 flops per element (model_gen_transformer.cpp); backward twice.
  const double vec_fwd = vector_cycles_lower_bound(f, 5 * score_el) +
                         2 * vector_cycles_lower_bound(f, 8 * hidden_el) +
                         vector_cycles_lower_bound(f, 10 * ffn_el);
  const double forward = qkv + scores + context + attn_out + ff1 + ff2 + vec_fwd;
  const double backward = qkv + 2 * (scores + context + attn_out + ff1 + ff2) +
                          vector_cycles_lower_bound(f, 5 * score_el) +
                          2 * vector_cycles_lower_bound(f, 16 * hidden_el) +
                          vector_cycles_lower_bound(f, 20 * ffn_el);
  return forward * (recomputed ? 2 : 1) + backward;
}

/// The heads' GEMMs per micro-batch from below (dense and decoder over the head tokens,
/// forward and both gradients; the heads are not recomputed).
double head_cycles_lower_bound(const ModelFacts& f, double mb) {
  const double M = mb * f.head_tokens, h = f.hidden;
  return 3 *
         (gemm_cycles_lower_bound(f, M, h, h, 1) + gemm_cycles_lower_bound(f, M, h, f.vocab, 1));
}

/// Lower bound of the step time in seconds (0: no bound).
double step_time_lower_bound_s(const PlanCandidate& c, const ModelFacts& f) {
  const double clock_hz = f.clock_GHz * 1e9;
  const double accumulation = static_cast<double>(c.accumulation);
  // Batch serialisation splits a micro-batch into smaller GEMMs: more overhead and exchange,
  // so the whole micro-batch's shapes stay a lower bound.
  const double mb = static_cast<double>(c.micro_batch);
  if (f.generator != "transformer" || f.hidden <= 0) return 0;
  const double head = head_cycles_lower_bound(f, mb);
  if (c.execution == "pipelined") {
    // Each IPU's compute ops run one after another; over a step it runs every micro-batch's
    // forward, recomputation and backward of its stages (IPU 0 also the heads).
    const double layer = layer_cycles_lower_bound(f, mb, c.recomputation != "none");
    double busiest = 0;
    for (std::size_t i = 0; i < c.layers_per_ipu.size(); ++i)
      busiest =
          std::max(busiest, static_cast<double>(c.layers_per_ipu[i]) * layer + (i == 0 ? head : 0));
    return accumulation * busiest / clock_hz;
  }
  // Phased: every op of an execution phase runs on that phase's IPU (pass_phases: virtual
  // graph = phase mod stages) and the phases run one after another, so a replica's compute
  // is serial across its IPUs.
  const double layer = layer_cycles_lower_bound(f, mb, false);
  return accumulation * (static_cast<double>(f.layers) * layer + head) / clock_hz;
}

/// Lower bound of a pipelined IPU's activation bytes (stash x micro-batches in flight,
/// recomputation buffer, working memory, stage-copy buffer) as lower_pipeline accounts
/// them: stage i of S = IPUs + 1 forward stages (the heads last) keeps 2(S-1-i)+1
/// micro-batches in flight.
double pipeline_activation_bytes(const PlanCandidate& c, const ModelFacts& f, std::size_t ipu) {
  const double n = static_cast<double>(c.layers_per_ipu[ipu]);
  if (n <= 0) return 0;
  const double mb = static_cast<double>(c.micro_batch),
               seq = static_cast<double>(f.sequence_length);
  const double h = f.hidden, wb = f.weight_bytes;
  const double act = mb * seq * h / f.activation_shards * wb;  // one layer input
  // Korthikanti et al. 2022, eq. 1 (model_gen_transformer.cpp: layer_stash_bytes).
  const double layer_stash = mb * seq * h * (34 + 5 * f.heads * seq / h) * wb / 2;
  const double in_flight = 2 * static_cast<double>(c.layers_per_ipu.size() - ipu) + 1;
  const double copy_in = ipu > 0 ? act : 0;
  double stash = n * layer_stash, buffer = 0;
  if (c.recomputation == "standard" || c.recomputation == "pipeline") {
    // Each layer's input: the stage input and the checkpoints, stashed per micro-batch in
    // flight (pass_pipeline.cpp: PopART's pipeline recomputation stashes its checkpoints too);
    // one layer rebuilt at a time.
    stash = std::max(n * act, copy_in);
    buffer = layer_stash;
  }
  const double temp =
      mb * f.heads * seq * seq * wb / f.attention_serialisation + mb * seq * f.ffn_factor * h * wb;
  return stash * in_flight + buffer + temp + copy_in;
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
  // Per parameter: optimizer state on chip (sharded by RTS) and, when accumulating, the
  // accumulators (sharded with the state when phased; a pipeline keeps them whole).
  auto state_bytes = [&](bool whole_accumulators) {
    double b = c.optimizer_state == "on_chip" ? f.optimizer_states * f.state_bytes / group : 0;
    if (c.accumulation > 1 && (whole_accumulators || c.optimizer_state == "on_chip"))
      b += f.weight_bytes / (whole_accumulators ? 1 : group);
    return b;
  };
  double busiest_bytes = 0;
  if (pipelined) {
    // lower_pipeline keeps every stage's weights and accumulators on its IPU whatever their
    // location; the fullest IPU is the largest of weights + state + activations.
    for (std::size_t i = 0; i < c.layers_per_ipu.size(); ++i) {
      const double params = static_cast<double>(c.layers_per_ipu[i]) * f.layer_parameters +
                            (i == 0 ? f.outer_parameters : 0);
      busiest_bytes = std::max(busiest_bytes, params * (f.weight_bytes + state_bytes(true)) +
                                                  pipeline_activation_bytes(c, f, i));
    }
  } else {
    if (c.weights == "on_chip") busiest_bytes += params_ipu * f.weight_bytes / weight_shard;
    busiest_bytes += params_ipu * state_bytes(false);
    if (f.generator == "transformer") {
      // A layer's phase holds the working memory of its largest op (lower_loop): attention
      // scores and the FFN's hidden activations of one micro-batch, of a serialised part of
      // it at least.
      const double part =
          static_cast<double>(c.micro_batch) / static_cast<double>(c.batch_serialisation);
      const double seq = static_cast<double>(f.sequence_length);
      busiest_bytes +=
          part * f.weight_bytes *
          (f.heads * seq * seq / f.attention_serialisation + seq * f.ffn_factor * f.hidden);
    }
  }
  e.sram_bytes_per_tile_lower_bound =
      static_cast<double>(f.code_bytes_per_tile) + busiest_bytes / static_cast<double>(f.tiles);
  const double bound_s = step_time_lower_bound_s(c, f);
  e.step_time_ns_lower_bound = bound_s * 1e9;
  e.samples_per_s_upper_bound =
      bound_s > 0 ? static_cast<double>(c.replicas * c.micro_batch * c.accumulation) / bound_s : 0;
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
