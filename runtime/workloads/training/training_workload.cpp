// The training workload: read the model and session, lower, account memory, elaborate the
// executor; report afterwards.
#include "runtime/workloads/training/training_workload.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "models/system/system.hpp"
#include "runtime/exec/link_utilisation.hpp"
#include "runtime/generators/model_gen.hpp"
#include "runtime/generators/model_gen_cnn.hpp"
#include "runtime/ir/ir_json.hpp"
#include "runtime/passes/pass_lower.hpp"
#include "runtime/passes/pass_pipeline.hpp"
#include "runtime/workloads/training/model_generators.hpp"
#include "runtime/workloads/training/onnx_model.hpp"
#include "runtime/workloads/training/training_state.hpp"
#include "runtime/workloads/training/work_estimate.hpp"
#include "sim/errors.hpp"
#include "sim/param_spec_helpers.hpp"
#include "sim/params.hpp"

namespace ipusim {
namespace {

using namespace rt;

class TrainingWorkload : public Workload {
 public:
  TrainingWorkload(System& system, std::unique_ptr<TrainingState> st, ExecutorOptions opt)
      : system_(system),
        st_(std::move(st)),
        ex_(std::make_unique<Executor>("training", system, st_->program,
                                       st_->session.replicatedGraphCount,
                                       st_->session.ipusPerReplica, opt)) {}
  bool finished() const override { return ex_->done(); }
  double total_time_ns() const override { return ex_->end_ns(); }
  Json breakdown_ns() const override { return training_breakdown(*ex_); }
  Json utilisation() const override { return link_utilisation(system_, ex_->end_ns()); }
  Json memory() const override { return training_memory(*st_); }
  Json results() const override {
    return st_->pipelined ? pipeline_results(*st_, *ex_, system_)
                          : training_results(*st_, *ex_, system_);
  }
  std::string failure() const override { return ex_->failure(); }
  std::string stall_report() const override { return ex_->stall_report(); }
  std::string summary() const override {
    return st_->pipelined ? pipeline_summary(*st_, *ex_) : training_summary(*st_, *ex_);
  }

 private:
  System& system_;
  std::unique_ptr<TrainingState> st_;
  std::unique_ptr<Executor> ex_;
};

/// Refuses a lowered program too large to build or play (ConfigError), naming what makes it
/// large: the number of phases, or the repetitions of the loop.
void guard_program_size(const ProgramCounts& c, const SessionOptions& s,
                        const ConfigNode& workload) {
  const double phase_share = c.phases * std::max<std::uint32_t>(1, s.ipusPerReplica) * 2;
  if (phase_share > c.lowered_ops) {
    check_work_estimate(training_work_estimate(
                            c, s, "model",
                            "fewer execution phases (phase numbers of the ops, " +
                                std::to_string(static_cast<long long>(c.phases)) + " phases now)"),
                        workload);
  }
  check_work_estimate(training_work_estimate(
                          c, s, "session",
                          "a smaller accumulationFactor (" + std::to_string(s.accumulationFactor) +
                              ") or batchSerializationSettings.factor (" +
                              std::to_string(s.batchSerializationFactor) + "), or a smaller model"),
                      workload);
}

/// Refuses batch serialisation where the lowering would not play it (ConfigError): the
/// pipelined / accumulation-loop lowering runs whole micro-batches, so a factor there would be
/// silently ignored.
void check_serialisation_lowered(const TrainingState& st, ConfigNode& node) {
  if (!st.pipelined || st.session.batchSerializationFactor <= 1) return;
  node.child("session")
      .child("batchSerializationSettings")
      .fail("factor", std::to_string(st.session.batchSerializationFactor) +
                          ": batch serialisation is modelled in phased execution only; this run "
                          "uses the pipelined / accumulation-loop "
                          "lowering (enablePipelining, or a model without execution phases such as "
                          "the cnn generator): set factor 1");
}

Model build_model(ConfigNode& node, TrainingState& st, System& system, bool training) {
  OptimizerSpec opt;
  {
    ConfigNode o = node.child("optimizer");
    opt.type = o.get_enum("type");
    opt.state_dtype = read_dtype(o, "state_dtype");
    opt.max_reduce_many_buffer_bytes = o.get_uint("max_reduce_many_buffer_size");
    opt.clip_all_weights = o.get_bool("clip_all_weights");
    opt.accumulate = st.session.batchSerializationFactor * st.session.accumulationFactor > 1;
    // A PopART session lowers the update through AdamDecompose; a popxl application (io_mode
    // set) builds its own optimizer graph, not modelled op by op.
    opt.popart_decompose = st.session.io_mode == IoMode::Unset;
    if (opt.clip_all_weights &&
        (!opt.popart_decompose || (opt.type != "adam" && opt.type != "lamb")))
      o.fail("clip_all_weights",
             "gradient clipping is modelled for a PopART session (session/io_mode unset) with "
             "optimizer type adam or lamb; got type " +
                 opt.type + (opt.popart_decompose ? "" : " with io_mode set"));
    o.finish();
  }
  GeneratorInput in{node, st, system, opt, training};
  if (node.has("onnx") || (node.has("generator") && node.get_enum("generator") == "onnx")) {
    if (node.has("generator") && node.get_enum("generator") != "onnx")
      node.fail("generator",
                "an ONNX model (/workload/model/onnx) is its own generator: remove generator or "
                "set it to onnx");
    return model_generator_table().find("onnx")->build(in);
  }
  if (!training)
    node.fail("onnx",
              "/workload/kind inference runs an ONNX model (PopART's InferenceSession): give "
              "/workload/model/onnx");
  st.generator = node.get_enum("generator");
  // get_enum refuses a name not in the table (with "did you mean"), so the generator exists.
  return model_generator_table().find(st.generator)->build(in);
}

/// Puts the memory account's per-tile peaks into the tile models of every IPU that runs a
/// replica, so the stats' sram_max_per_tile_bytes and sram_fits say what the memory report says.
void note_sram_peaks(System& system, const TrainingState& st, const MemoryParams& mp) {
  const std::uint32_t io = std::min(mp.io_tiles, mp.tiles - 1);
  const std::uint32_t compute = mp.tiles - io;
  std::vector<std::uint64_t> compute_peak(mp.ipus_per_replica, 0), io_peak(mp.ipus_per_replica, 0);
  for (const PhaseMemory& pm : st.memory.phases) {
    const auto vg = static_cast<std::size_t>(pm.vg);
    if (vg >= compute_peak.size()) continue;
    // The same balanced split plus code reserve as account_memory (max_tile_bytes).
    compute_peak[vg] = std::max(
        compute_peak[vg], (pm.compute_bytes + compute - 1) / compute + mp.code_bytes_per_tile);
    if (io > 0)
      io_peak[vg] = std::max(io_peak[vg], (pm.io_bytes + io - 1) / io + mp.code_bytes_per_tile);
  }
  for (std::uint32_t r = 0; r < mp.replicas; ++r) {
    for (std::uint32_t vg = 0; vg < mp.ipus_per_replica; ++vg) {
      system.ipu(r * mp.ipus_per_replica + vg)
          .tiles()
          .note_sram_peak(compute_peak[vg], io_peak[vg], io);
    }
  }
}

}  // namespace

void register_training_params() {
  using namespace ipusim::spec;
  register_model_generators();
  register_session_params();
  register_ir_json_params();
  register_cnn_params();
  register_onnx_params();
  const std::string m = "/workload/model/", t = m + "transformer/", p = m + "mlp/";
  ParamRegistry::instance().add({
      choice(m + "generator", "transformer", model_generator_table().names(),
             "Model source: a generator, explicit tensors/ops, or an ONNX model "
             "(/workload/model/onnx)"),
      choice(m + "optimizer/type", "adam", {"sgd", "adam", "lamb", "lars"},
             "Optimizer (state tensors and update flops)"),
      choice(m + "optimizer/state_dtype", "float32", {"float16", "float32"},
             "Optimizer state dtype (PopXL apps: float32)"),
      flag(m + "optimizer/clip_all_weights", false,
           "PopART's gradient clipping by the global norm of all the weights' gradients "
           "(ClipNormSettings.clipAllWeights; MLPerf v1.1 and v2.0 BERT set "
           "gradient_clipping_norm): per weight a ReduceSumSquareOp of its gradient (a "
           "reduction to a scalar) and a MulOp by the clip factor "
           "(transforms/clipweightgradientsbynorm.cpp). Not modelled: the IpuCopies of the "
           "scalar norms to one virtual graph and of the factor back, and, from SDK 2.5, the "
           "all-reduce of a sharded weight's norm. PopART sessions with adam or lamb only"),
      integer(m + "optimizer/max_reduce_many_buffer_size", "B", 0, 0, {},
              "TensorFlow's optimizations.maximum_reduce_many_buffer_size: the LARS norms "
              "(reductions to a scalar) whose outputs fit in this many bytes run as one popops "
              "ReduceMany, timed as one reduction. 0 (TensorFlow's default, "
              "CompilerInformation::max_reduce_many_buffer_size) combines none; MLPerf v1.1 "
              "ResNet-50 sets 216 on Pod64, Pod128 and Pod256 (configs.yml), the 108 FP16 "
              "norms of its 54 LARS-scaled weights"),
      integer(t + "layers", "", 24, 1, 100000, "Transformer layers"),
      integer(t + "hidden", "", 1024, 1, {}, "Hidden size"),
      integer(t + "heads", "", 16, 1, {}, "Attention heads"),
      integer(t + "sequence_length", "", 128, 1, {}, "Sequence length"),
      integer(t + "vocab", "", 30522, 1, {}, "Vocabulary size"),
      integer(t + "micro_batch", "", 8, 1, {},
              "PopART micro-batch (the batch axis of a step's tensors); "
              "batchSerializationSettings.factor must divide it and each serialised step "
              "processes micro_batch / factor samples"),
      choice(t + "dtype", "float16", {"float16", "float32"}, "Weights and activations dtype"),
      integer(t + "layers_per_phase", "", 1, 1, {},
              "Layers per forward phase (PopXL apps 1, PopART legacy BERT 3)"),
      integer(t + "tensor_parallel", "", 1, 1, {},
              "Tensor-parallel degree: weights split over consecutive replica groups of this size"),
      integer(t + "activation_shards", "", 1, 1, {},
              "Activations split this many ways (2-D tensor parallel: TP2); ASSUMPTION"),
      integer(t + "attention_serialisation", "", 1, 1, {}, "Divides the attention working memory"),
      integer(t + "head_tokens", "", 0, 0, {},
              "Tokens projected to the vocabulary by the head (0 = sequence_length; BERT MLM: "
              "masked tokens)"),
      integer(t + "ffn_factor", "", 4, 1, {}, "Feed-forward intermediate size / hidden"),
      flag(t + "recompute", true,
           "Phased execution: backward recomputes the forward (backward = 3x forward flops); "
           "pipelines use /workload/session/autoRecomputation"),
      choice(t + "partials_type", "half", {"half", "float"},
             "PopART partialsType of the matmuls: half (FP16 accumulation, MLPerf BERT on IPUs) or "
             "float (FP32 accumulators, the AMP's FP16.32 rate)"),
      flag(t + "no_dropout", true,
           "Graphcore's PopART BERT key: false = its hidden dropouts (bert_model.py: on the "
           "embedding's output and after each layer's attention-output and feed-forward-output "
           "projections), each poprand::dropout forward and on its gradient (MLPerf v1.0, v1.1, "
           "v2.0 BERT configs: false); true (a generic transformer) = none"),
      flag(t + "no_attn_dropout", true,
           "Graphcore's PopART BERT key: false = also a dropout on the attention probabilities "
           "(mb x heads x seq^2, after the softmax; MLPerf v2.0 BERT configs: false, v1.0 and "
           "v1.1: true); only with no_dropout false, as bert_model.py's dropout() does nothing "
           "when no_dropout"),
      choice(t + "attention_mask", "none", {"none", "per_ipu", "per_layer"},
             "Graphcore's PopART BERT attention (bert_model.py attention_onnx): none = a generic "
             "transformer (matmuls, softmax, dropout); per_ipu = also the scores' mul by "
             "1/sqrt(d) and the ApplyMask add, the mask built once per IPU (unpacked runs); "
             "per_layer = also the AttentionMask custom op per layer (packed runs: MLPerf v1.0 to "
             "v2.0, SL512 packed); docs/bert_micro_batch.md"),
      flag(t + "split_qkv", false,
           "Graphcore's PopART BERT key: true = Q, K, V as three h x h weights concatenated on "
           "every forward (bert_model.py qkv_weights) and the gradient sliced back (MLPerf v1.0 "
           "and v1.1 POD16: true; POD64, POD128, v2.0: false)"),
      choice(t + "head", "lm", {"lm", "mlm_nsp"},
             "Heads: lm (dense + decoder) or mlm_nsp (BERT pre-training: MLM with the decoder tied "
             "to the word embedding, NSP)"),
      integer(t + "max_sequences_per_pack", "", 1, 1, 64,
              "Packed sequences: at most this many sequences per sample (NSP head runs per "
              "sequence); MLPerf BERT on IPUs: 3"),
      real(t + "sequences_per_pack", "", 1.0, 1.0, 64.0,
           "Packed sequences: average sequences per sample (reported as sequences_per_sample); "
           "MLPerf BERT on IPUs: about 2"),
      raw(t + "layers_per_ipu", Json(),
          "Pipelining: encoder layers per IPU, one entry per IPU of the replica, e.g. [3, 7, 7, 7] "
          "or [0, 3, 3, 3, 3, 4, 4, 4]"),
      raw(t + "att_ffn_placement", Json(),
          "Pipelining with attention and feed-forward halves placed apart (Graphcore's PopART "
          "BERT key, MLPerf v1.1 pod128-closed.json): [[ipu, [attention, ffn]], ...], one entry "
          "per pipeline stage after the embedding's stage 0, filled in layer order; replaces "
          "layers_per_ipu"),
      integer(t + "embedding_ipu", "", 0, 0, 63,
              "Pipelining: IPU of the embedding (pipeline stage of that IPU)"),
      integer(t + "head_ipu", "", -1, -1, 63,
              "Pipelining: IPU of the heads (-1 = the embedding's IPU: the MLM decoder is tied to "
              "the word embedding, so the heads form a last pipeline stage there)"),
      raw(p + "layer_sizes", Json::array({784, 512, 512, 512, 10}),
          "MLP layer widths (W13: 784 512 512 512 10)"),
      integer(p + "micro_batch", "", 8, 1, {},
              "PopART micro-batch (the batch axis of a step's tensors); "
              "batchSerializationSettings.factor must divide it and each serialised step "
              "processes micro_batch / factor samples"),
      choice(p + "dtype", "float32", {"float16", "float32"}, "Weights and activations dtype"),
      choice("/workload/memory/on_overflow", "warn", {"warn", "error"},
             "SRAM overflow: warn (report it) or error (exit 2)"),
      integer("/workload/memory/code_bytes_per_tile", "B", 0, 0, {},
              "SRAM per tile reserved for code and control (ASSUMPTION: set per preset)"),
      flag("/workload/executor/collective_cache", true,
           "Replay the measured time of an identical collective instead of re-simulating it"),
      integer("/workload/executor/grain_bytes", "B", 8, 1, 1 << 20,
              "per_tile fidelity: grain of Poplar's linear tile mapping of op outputs and "
              "IoTileCopies (poputil::mapTensorLinearly with "
              "grainSize = the target's vector width, 64 bits: 4 halves or 2 floats); the busiest "
              "tile sets an op's time"),
      choice(
          "/workload/executor/simulate_replicas", "all", {"all", "first_machine"},
          "Remote/host IO on all IPUs, or on the first machine's IPUs only (identical machines)"),
      integer("/workload/report/list_micro_batches", "", 2, 0, {},
              "List loop ops of the first N batch-serialisation steps per phase"),
  });
}

std::unique_ptr<Workload> make_training_workload(System& system, ConfigNode node) {
  auto st = std::make_unique<TrainingState>();
  const bool training = node.get_enum("kind") != "inference";
  st->session = read_session(node.child("session"), system.num_ipus(), system.ild_size_ipus());
  st->system_ipus = system.num_ipus();
  if (!training && st->session.accumulationFactor != 1)
    throw ConfigError(
        "/workload/session/accumulationFactor: " + std::to_string(st->session.accumulationFactor) +
        ": an inference session has no gradient accumulation (set 1; batchesPerStep sets the "
        "batches per run)");
  const ChipParams& chip = system.chip();
  if (st->session.numIOTiles >= chip.tiles) {
    node.child("session").fail("numIOTiles", std::to_string(st->session.numIOTiles) +
                                                 " IO tiles leave no compute tiles on a " +
                                                 std::to_string(chip.tiles) + "-tile IPU");
  }
  // IO tiles are set aside in whole supertiles: the two tiles of one share an exchange bus,
  // so one cannot be an IO tile while the other computes.
  if (st->session.numIOTiles % chip.tiles_per_supertile != 0) {
    node.child("session").fail("numIOTiles",
                               std::to_string(st->session.numIOTiles) +
                                   " is not a whole number of supertiles: expected a multiple of " +
                                   std::to_string(chip.tiles_per_supertile) +
                                   " (/chip/tiles_per_supertile, tiles sharing one exchange bus)");
  }
  ConfigNode model_node = node.child("model");
  st->model = build_model(model_node, *st, system, training);
  model_node.finish();
  st->pipelined = uses_pipeline_lowering(st->model, st->session);
  check_serialisation_lowered(*st, node);
  if (st->pipelined) {
    try {
      st->plan = plan_pipeline(st->model, st->session);
      guard_program_size(pipelined_program_counts(st->model, st->session, st->plan), st->session,
                         node);
      st->program = lower_pipeline(st->plan, st->session);
    } catch (const std::invalid_argument& e) {
      node.fail("session", e.what());
    }
  } else {
    if (st->session.batchesPerStep != 1)
      node.child("session").fail("batchesPerStep",
                                 "phased execution runs one step (batchesPerStep 1)");
    try {
      st->layout = assign_phases(st->model, st->session.stages, st->session.phases,
                                 static_cast<int>(st->session.ipusPerReplica));
    } catch (const std::invalid_argument& e) {
      node.fail("model", e.what());
    }
    guard_program_size(phased_program_counts(st->model, st->session, st->layout.total_phases),
                       st->session, node);
    try {
      st->resolved = resolve_locations(st->model, st->session);
      st->program = lower_program(st->model, st->layout, st->resolved, st->session);
    } catch (const std::invalid_argument& e) {
      node.fail("session", e.what());
    }
  }
  ConfigNode mem = node.child("memory");
  st->on_overflow = mem.get_enum("on_overflow");
  MemoryParams mp;
  mp.tiles = chip.tiles;
  mp.io_tiles = st->session.numIOTiles;
  mp.sram_per_tile_bytes = chip.sram_per_tile_bytes;
  mp.code_bytes_per_tile = mem.get_uint("code_bytes_per_tile");
  mp.ipus_per_machine = system.ipus_per_machine();
  mp.ipus_per_replica = st->session.ipusPerReplica;
  mp.replicas = st->session.replicatedGraphCount;
  mem.finish();
  st->memory = account_memory(st->program, mp);
  if (!st->memory.fits) {
    if (st->on_overflow == "error")
      node.child("memory").fail("on_overflow",
                                "error: the model does not fit in SRAM: " + st->memory.overflow);
    spdlog::warn("the model does not fit in SRAM: {}", st->memory.overflow);
  }
  // Remote buffers must fit in every machine's streaming memory (ConfigError otherwise).
  for (std::uint32_t mc = 0; mc < system.num_machines(); ++mc)
    system.gateway(mc).memory().allocate("training.remote_buffers",
                                         st->memory.streaming_memory_per_machine_bytes);
  ConfigNode exn = node.child("executor");
  ExecutorOptions opt;
  opt.num_io_tiles = st->session.numIOTiles;
  opt.collective_cache = exn.get_bool("collective_cache");
  opt.first_machine_only = exn.get_enum("simulate_replicas") == "first_machine";
  opt.grain_bytes = exn.get_uint("grain_bytes");
  exn.finish();
  note_sram_peaks(system, *st, mp);
  ConfigNode rep = node.child("report");
  st->list_micro_batches = static_cast<std::uint32_t>(rep.get_uint("list_micro_batches"));
  rep.finish();
  node.finish();
  return std::make_unique<TrainingWorkload>(system, std::move(st), opt);
}

}  // namespace ipusim
