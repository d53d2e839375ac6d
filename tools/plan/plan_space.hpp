#pragma once
// The search space of `ipusim plan`: what a PopART user chooses for a training config
// (replicas x IPUs per replica, pipelining or execution phases, micro-batch x gradient
// accumulation for a global batch, replicated tensor sharding and its domain, tensor
// locations, IO tiles, recomputation, batch serialisation), the model facts the choices
// depend on, and the enumeration of every combination into config overrides.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/json.hpp"

namespace ipusim::cli {

/// What the plan needs to know about the base config's model and system (read once from
/// the merged base config, falling back to the parameter registry's defaults).
struct ModelFacts {
  std::string file;       ///< the base config, for error messages
  std::string generator;  ///< "transformer" or "cnn"
  std::int64_t total_ipus = 0, ipus_per_machine = 4;
  std::int64_t tiles = 1472, sram_per_tile_bytes = 638976, code_bytes_per_tile = 0;
  double clock_GHz = 1.325, amp_flops_per_cycle_per_tile = 128, amp_efficiency = 0.359;
  double op_overhead_cycles = 0;
  /// /chip/worker_threads (the AMP vertex's workers, models/ipu/conv_vertices.hpp).
  double worker_threads = 6;
  double ddr_GBps_per_machine = 38.4, ipu_link_GBps = 17.18, ipu_link_efficiency = 0.85;
  std::int64_t layers = 0;            ///< transformer encoder layers (0 for the CNN)
  std::int64_t sequence_length = 1;   ///< tokens per sample (1 for the CNN)
  double weight_bytes = 2;            ///< bytes per weight element (model dtype)
  double state_bytes = 4;             ///< bytes per optimizer-state element
  double optimizer_states = 2;        ///< state tensors per weight (adam/lamb 2, lars 1, sgd 0)
  double layer_parameters = 0;        ///< per encoder layer (matmul weights: a lower bound)
  double outer_parameters = 0;        ///< embedding + heads (on pipeline stage 0)
  double total_parameters = 0;        ///< whole model (lower bound)
  double layer_flops_per_sample = 0;  ///< forward flops of one encoder layer per sample
  double outer_flops_per_sample = 0;  ///< forward flops of embedding + heads per sample
  double activation_bytes_per_layer_per_sample = 0;  ///< one layer input (stash unit)
  // Transformer shape (the pipeline stash, working memory and GEMM shapes of the bounds).
  double hidden = 0, heads = 1, ffn_factor = 4, vocab = 0, head_tokens = 0;
  double activation_shards = 1, attention_serialisation = 1;
  // Compute model terms a lower bound of the simulated step time may use (chips/*.json).
  double exchange_bytes_per_cycle_per_tile = 4, vector_flops_per_cycle_per_tile = 4;
  double image_size = 224;  ///< CNN input side in pixels
  std::int64_t base_micro_batch = 1, base_replicas = 1, base_accumulation = 1;
  std::int64_t base_global_batch = 1;
  bool base_transformer_recompute = true;  ///< kept where it does not apply (not phased)
  std::string micro_batch_key;             ///< "workload.model.<generator>.micro_batch"
};

/// Reads the model facts of a merged base config; ConfigError (exit 2) naming `file` and
/// the JSON path for models the plan cannot search (generator other than transformer/cnn,
/// tensor parallelism, inference).
ModelFacts read_model_facts(const Json& base, const std::string& file);

/// The axes of the search. Each is a list of the values tried; see kPlanSpaceHelp.
struct PlanSpace {
  std::vector<std::int64_t> ipus_per_replica;
  std::vector<std::string> execution;       ///< pipelined | phased | single
  std::vector<std::string> pipeline_split;  ///< time | memory (pipelined only)
  std::vector<std::int64_t> micro_batch;
  std::vector<std::string> rts;  ///< off | all | consecutive:K | orthogonal:K
  std::vector<std::string> weights, optimizer_state, activations;  ///< on_chip | off_chip
  std::vector<std::int64_t> io_tiles;
  std::vector<std::string> recomputation;  ///< none | standard | pipeline
  std::vector<std::int64_t> batch_serialisation;
};

/// The documentation of the space file and of the defaults (printed by `plan --help`).
extern const char* const kPlanSpaceHelp;

/// The default space derived from the model and system (kPlanSpaceHelp says how).
PlanSpace default_space(const ModelFacts& facts);

/// Reads a space file: an object with any of the axes' keys (each a non-empty list),
/// replacing the default of that axis; unknown keys and bad values are ConfigError naming
/// the file and JSON path.
PlanSpace load_space(const std::string& path, const ModelFacts& facts);

/// The space as JSON (the keys of the space file).
Json space_to_json(const PlanSpace& space);

/// One configuration of the space.
struct PlanCandidate {
  std::int64_t replicas = 1, ipus_per_replica = 1, micro_batch = 1, accumulation = 1;
  std::int64_t io_tiles = 0, batch_serialisation = 1;
  std::string execution, pipeline_split, rts, weights, optimizer_state, activations, recomputation;
  std::vector<std::int64_t> layers_per_ipu;  ///< pipelined transformer: layers per IPU
  std::string invalid;  ///< a pruning reason found by the enumeration ("" = valid)
  std::string invalid_detail;
};

/// The configuration as plan.json's "config" object (the keys documented in tools/plan).
Json candidate_json(const PlanCandidate& c);

/// Every combination of the space for `global_batch` samples, in a fixed order. Choices
/// that do not apply (IO tiles with nothing off chip, a split without pipelining, ...) are
/// not combined; combinations PopART refuses get `invalid` (global_batch, sharding_domain,
/// pipeline_depth).
std::vector<PlanCandidate> enumerate_space(const PlanSpace& space, const ModelFacts& facts,
                                           std::int64_t global_batch);

/// The config keys (dotted paths) every configuration sets, in a fixed order.
std::vector<std::string> override_paths(const ModelFacts& facts);

/// The values of override_paths() for a configuration.
std::vector<Json> override_values(const PlanCandidate& c, const ModelFacts& facts);

/// The base config with every key of override_paths() written out (the registry's default
/// where the config has none), so that each configuration is a list of `--set`s.
Json materialise_base(Json base, const ModelFacts& facts);

}  // namespace ipusim::cli
