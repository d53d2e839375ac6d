#pragma once
// The table of model generators (`/workload/model/generator`) of the training and inference
// kinds: one entry per generator, added by an explicit call (register_model_generators(), no
// static initialisers). Dispatch (build_model), the registry's enum choices (so the config
// error's "did you mean") and the `run --help` list are generated from it.
#include <string>

#include "runtime/generators/model_gen_optimizer.hpp"
#include "runtime/ir/ir_model.hpp"
#include "runtime/workloads/training/training_state.hpp"
#include "sim/config.hpp"
#include "sim/named_table.hpp"

namespace ipusim {

class System;

/// What a generator reads and fills while it builds the model.
struct GeneratorInput {
  ConfigNode& model;                   ///< `/workload/model`
  rt::TrainingState& st;               ///< session read; micro-batch, tokens, ... set here
  System& system;                      ///< for the guards before generating (memory, events)
  const rt::OptimizerSpec& optimizer;  ///< `/workload/model/optimizer`, already read
  bool training;                       ///< false: kind inference (forward only)
};

/// One model generator: its `/workload/model/generator` name, what it builds and how.
struct ModelGenerator {
  std::string name;     ///< the `/workload/model/generator` value
  std::string summary;  ///< what it builds, a phrase
  /// Builds the model (ConfigError naming the JSON path on bad input).
  rt::Model (*build)(GeneratorInput& in) = nullptr;
};

/// The process-wide table of generators (filled by register_model_generators()).
NamedTable<ModelGenerator>& model_generator_table();

/// Adds the shipped generators to the table (one explicit call each); safe to call more than once.
void register_model_generators();

/// The `/workload/model/generator` values with what each builds, one line each, for `--help`.
std::string model_generators_help();

/// Reads the IR dtype at `key` (an enum of the registry).
rt::DType read_dtype(ConfigNode& n, const std::string& key);

}  // namespace ipusim
