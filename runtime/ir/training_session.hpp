#pragma once
// Session options of the training workload, shaped like PopART's SessionOptions (same
// names and defaults where PopART has them) plus popxl's io_mode. Read from
// `/workload/session`.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/ir/ir_model.hpp"
#include "sim/config.hpp"

namespace ipusim::rt {

/// popart::ExecutionPhaseIOSchedule.
enum class IOSchedule { Preload, OnDemand };
/// popart::ExecutionPhaseSchedule.
enum class PhaseSchedule { Interleaving, Batch, BatchClusteredIO };
/// popart::BatchSerializationBatchSchedule.
enum class BatchSchedule { Scheduler, Isomorphic, OverlapOnIo, OverlapOnCompute };
/// popart::RecomputationType (the values ipusim models).
enum class Recomputation { None, Standard, Pipeline };
/// popart::VirtualGraphMode.
enum class VirtualGraphMode { Off, Manual, Auto, ExecutionPhases };
std::string to_string(Recomputation r);

/// popart::AccumulateOuterFragmentSchedule: how the ops after the accumulation loop (gradient
/// reduction, optimizer, weight gathers) of different virtual graphs are ordered.
enum class OuterFragmentSchedule {
  Scheduler,
  Serial,
  OverlapCycleOptimized,
  OverlapMemoryOptimized
};

/// popxl application io_mode.
enum class IoMode { Unset, Compute, Io, IoOverlapped };

std::string to_string(IOSchedule s);
std::string to_string(BatchSchedule s);

/// popart::TensorLocationSettings for one tensor category.
struct LocationSettings {
  TensorLocation location;
  std::uint64_t minElementsForOffChip = 2;
  std::uint64_t minElementsForReplicatedTensorSharding = 8192;
};

/// Everything the lowering passes need from the session.
struct SessionOptions {
  std::uint32_t replicatedGraphCount = 1;  ///< resolved (0 in the config = all IPUs)
  std::uint32_t ipusPerReplica = 1;
  std::uint32_t accumulationFactor = 1;
  std::uint32_t batchesPerStep =
      1;  ///< the step (accumulation loop + update) repeats this often per run
  bool enablePipelining = false;
  VirtualGraphMode virtualGraphMode = VirtualGraphMode::Off;
  Recomputation autoRecomputation = Recomputation::None;
  // executionPhaseSettings
  int phases = 0;  ///< 0 = the model's 2P-1
  int stages = 1;
  IOSchedule weightIOSchedule = IOSchedule::Preload;
  IOSchedule activationIOSchedule = IOSchedule::Preload;
  IOSchedule optimizerStateIOSchedule = IOSchedule::OnDemand;
  IOSchedule accumulatorIOSchedule = IOSchedule::Preload;
  PhaseSchedule schedule = PhaseSchedule::Interleaving;
  std::uint32_t numIOTiles = 0;
  LocationSettings weight, optimizerState, accumulator, activation;
  std::map<std::string, TensorLocation> tensorLocationSettingsOverride;
  std::uint32_t batchSerializationFactor = 1;
  BatchSchedule batchSchedule = BatchSchedule::Isomorphic;
  IoMode io_mode = IoMode::Unset;
  /// Where RTS and gradient collectives run (popxl builds them with use_io_tiles=False).
  TileSet collectiveTileSet = TileSet::Compute;
  /// Replicas of one IPU-Link domain (for the "pod" RTS convenience domain).
  std::uint32_t replicas_per_ild = 1;
  /// accumulateOuterFragmentSettings.schedule (PopART's default: Serial).
  OuterFragmentSchedule outerFragmentSchedule = OuterFragmentSchedule::Serial;
  /// accumulateOuterFragmentSettings.excludedVirtualGraphs: never run alongside other graphs.
  std::vector<int> outerFragmentExcludedVirtualGraphs;
  /// MLPerf BERT's custom ZFusedReplicatedAllReducePattern (enabled by its bert.py under
  /// poprun): every gradient all-reduce of a virtual graph becomes one fused GCL call.
  /// false (PopART's own behaviour): one GCL call per weight's collective.
  bool fusedGradientAllReduce = false;

  /// True if virtual graph `vg`'s accumulate-outer-fragment ops run alongside other graphs'
  /// (an overlap schedule, the optimizer state off chip so that PopART's parallelizer has remote
  /// ops to tie together, and `vg` not excluded); false if they run on their own.
  bool outer_fragment_parallel(int vg) const;

  /// Settings of the category of a tensor kind (gradients use the activation settings).
  const LocationSettings& settings_for(TensorKind kind) const;
  /// IO schedule of a tensor kind.
  IOSchedule io_schedule_for(TensorKind kind) const;
};

/// Reads `/workload/session` (ConfigError naming the file and the JSON path on bad input).
/// `num_ipus` gives an absent replicatedGraphCount (all IPUs / ipusPerReplica) and checks the
/// replicas' partition; `ild_size_ipus` gives the "pod" RTS domain.
SessionOptions read_session(ConfigNode node, std::uint32_t num_ipus, std::uint32_t ild_size_ipus);

/// Declares the ParamSpecs of `/workload/session/...`.
void register_session_params();

}  // namespace ipusim::rt
