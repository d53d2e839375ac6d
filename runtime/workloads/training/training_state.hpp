#pragma once
// Internal: everything a training run builds before simulating (model, session, lowered
// program, memory), shared by the workload and its report functions.
#include <map>
#include <memory>
#include <string>

#include "runtime/exec/executor.hpp"
#include "runtime/ir/ir_model.hpp"
#include "runtime/ir/program.hpp"
#include "runtime/ir/training_session.hpp"
#include "runtime/passes/memory_accounting.hpp"
#include "runtime/passes/pass_locations.hpp"
#include "runtime/passes/pass_phases.hpp"
#include "runtime/passes/pass_pipeline.hpp"
#include "sim/json.hpp"

namespace ipusim {
class System;
}

namespace ipusim::rt {

/// The lowered step and its static facts.
struct TrainingState {
  std::string generator;
  Model model;
  SessionOptions session;
  PhaseLayout layout;
  std::map<std::string, ResolvedTensor> resolved;
  Program program;
  MemoryReport memory;
  std::string on_overflow;
  std::uint32_t list_micro_batches = 2;
  bool pipelined = false;  ///< lowered by lower_pipeline (pipelined or plain accumulation loop)
  PipelinePlan plan;       ///< when pipelined
  double sequences_per_sample = 1;  ///< packed data: sequences per sample
  std::uint64_t micro_batch =
      1;  ///< samples per micro-batch (PopART's; a serialised step runs micro_batch / factor)
  std::uint32_t tensor_parallel =
      1;  ///< replicas holding one copy of the model (its tensor-parallel shards)
  std::uint64_t tokens_per_sample =
      0;  ///< transformer: sequence_length (tokens/s); 0 = not a language model
  std::uint32_t system_ipus = 0;  ///< IPUs of the system the step runs on (a partition or all)
};

/// Samples, tokens and sequences per second of a run of `steps` weight updates in `run_ns`.
struct Throughput {
  std::uint32_t data_parallel_replicas =
      1;  ///< replicas / tensor_parallel: model copies fed different samples
  std::uint64_t samples_per_step =
      0;  ///< the global batch: data-parallel replicas x micro-batch x accumulationFactor
  double samples_per_s = 0;
  double tokens_per_s = 0;     ///< samples/s x sequence length (0 when tokens_per_sample is 0)
  double sequences_per_s = 0;  ///< samples/s x sequences per sample (packed data)
};
/// The throughput of `steps` steps taking `run_ns` in all (0 throughput when run_ns is 0).
Throughput training_throughput(const TrainingState& st, double run_ns, std::uint64_t steps);
/// Adds the throughput fields to a report's results (`tokens_per_s` for language models
/// only, `sequences_per_s` only when `with_sequences`).
void add_throughput(Json& results, const TrainingState& st, const Throughput& t,
                    bool with_sequences);
/// The report's `model` object: tensors, ops, parameters per replica, tensor-parallel
/// degree and parameters of the whole model.
Json model_json(const TrainingState& st);
/// The summary lines "training ..." (parameters per replica, per shard, whole model) and
/// "throughput ...", each ending in a newline; `execution` is appended to the first line.
std::string training_summary_head(const TrainingState& st, const std::string& execution);
std::string throughput_summary(const TrainingState& st, const Throughput& t);
/// The summary lines "memory ..." (peak SRAM per tile, fits or not, streaming memory per
/// machine) and, when it does not fit, "overflow ...".
std::string memory_summary(const TrainingState& st);

/// results() of a pipelined / accumulation-loop run: step, stages (busy vs idle), IpuCopy
/// traffic, collectives after the loop by tier, throughput.
Json pipeline_results(const TrainingState& st, const Executor& ex, const System& system);
/// Readable summary lines of a pipelined / accumulation-loop run.
std::string pipeline_summary(const TrainingState& st, const Executor& ex);

/// results(): step time, phases with their ordered ops, RTS and memory details.
Json training_results(const TrainingState& st, const Executor& ex, const System& system);
/// breakdown_ns(): busy intervals swept by priority (compute > exchange > gw_link >
/// ipu_link > streaming_memory > host_io > sync), the rest idle; sums to the step time.
Json training_breakdown(const Executor& ex);
/// memory(): numeric leaves (max_tile_bytes, per_ipu_bytes, streaming_memory_per_machine_bytes,
/// ...).
Json training_memory(const TrainingState& st);
/// Readable summary lines.
std::string training_summary(const TrainingState& st, const Executor& ex);

}  // namespace ipusim::rt
