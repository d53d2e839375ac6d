#include "runtime/workloads/training/work_estimate.hpp"

#include <algorithm>
#include <cstdio>

#include "runtime/passes/memory_accounting.hpp"
#include "runtime/passes/pass_lower.hpp"
#include "runtime/passes/pass_phases.hpp"

namespace ipusim::rt {
namespace {

// Bytes per item: peak-RSS growth per item measured on this build (gcc 12, -O2), rounded
// down so that the estimate stays a lower bound (2026-11-23):
//   lowered op: an LOp with its label, deps and tensor list, its OpTiming, busy interval and
//     report entry: bert_large_phased_pod64 at 24 / 300 layers grows from 26 to 147 MiB for
//     3.7 k to ~47 k lowered ops and 1 k to 12.6 k model ops (2.6-3.5 KiB per lowered op
//     after 1 KB per model op);
//   model op: a generated op with its name, inputs, outputs and tensors (ASSUMPTION: about
//     1 KB; its share of the totals above is small);
//   phase: an LPhase with one memory list per IPU of the replica, its sync and report entry:
//     one explicit op in forward phase 10,000 (20,001 phases) takes 60 MiB, 12 MiB without.
constexpr double kBytesPerModelOp = 1000;
constexpr double kBytesPerLoweredOp = 2500;
constexpr double kBytesPerPhasePerIpu = 2000;
/// Largest probe (lowered ops) lowered for the streaming-memory estimate: a few ms (a 6-layer
/// BERT-Large probe with batch serialisation 4 has about 1,000).
constexpr double kMaxProbeLoweredOps = 1e5;

/// Peak streaming memory of one machine for the generated probe `m`, exactly as the training
/// workload computes it after lowering (0 when the probe would be too large to lower).
double probe_streaming_bytes(Model m, const SessionOptions& session,
                             std::uint32_t ipus_per_machine) {
  SessionOptions once = session;
  once.accumulationFactor = 1;  // repetitions change the ops, not the remote buffers
  if (phased_program_counts(m, once, 2 * m.forward_phases - 1).lowered_ops > kMaxProbeLoweredOps)
    return 0;
  try {
    const PhaseLayout layout =
        assign_phases(m, once.stages, once.phases, static_cast<int>(once.ipusPerReplica));
    const Program prog = lower_program(m, layout, resolve_locations(m, once), once);
    MemoryParams mp;  // tiles and SRAM do not enter the streaming-memory figure
    mp.ipus_per_machine = ipus_per_machine;
    mp.ipus_per_replica = once.ipusPerReplica;
    mp.replicas = once.replicatedGraphCount;
    return static_cast<double>(account_memory(prog, mp).streaming_memory_per_machine_bytes);
  } catch (const std::exception&) {
    return 0;  // the real lowering reports the problem with its own message
  }
}

}  // namespace

ProgramCounts phased_program_counts(const Model& model, const SessionOptions& s, int total_phases) {
  const double A = std::max<std::uint32_t>(1, s.accumulationFactor),
               K = std::max<std::uint32_t>(1, s.batchSerializationFactor);
  ProgramCounts c;
  c.model_ops = static_cast<double>(model.ops.size());
  for (const ModelOp& o : model.ops) {
    if (o.pass == Pass::Optimizer) {
      c.lowered_ops += 1;  // the optimizer runs in the last repetition only
    } else {
      c.lowered_ops += A * (o.per_micro_batch ? K : 1);
    }
  }
  c.phases = A * (static_cast<double>(std::max(total_phases, 0)) + 1);  // + the preload prologue
  return c;
}

ProgramCounts pipelined_program_counts(const Model& model, const SessionOptions& s,
                                       const PipelinePlan& plan) {
  ProgramCounts c;
  c.model_ops = static_cast<double>(model.ops.size());
  c.phases = static_cast<double>(std::max<std::uint32_t>(1, s.batchesPerStep)) *
             (static_cast<double>(plan.cycles()) + 1);
  c.lowered_ops = c.phases;
  return c;
}

ProgramCounts transformer_program_counts(const TransformerSpec& spec, const SessionOptions& session,
                                         std::uint32_t ipus_per_machine) {
  // Each layer emits the same forward, backward and optimizer ops (and phases), so the
  // difference of the two probes is what layers_per_phase more layers add.
  TransformerSpec probe = spec;
  probe.layers_per_ipu.clear();
  const std::int64_t step = std::max<std::int64_t>(1, spec.layers_per_phase);
  auto counts = [&](std::int64_t layers) {
    probe.layers = layers;
    const Model m = generate_transformer(probe, session.replicatedGraphCount);
    if (session.enablePipelining)
      return ProgramCounts{static_cast<double>(m.ops.size()), static_cast<double>(m.ops.size()), 0,
                           0};
    ProgramCounts c = phased_program_counts(m, session, 2 * m.forward_phases - 1);
    // An explicit phases setting sized for the real model would give the probes mostly empty
    // phases: no estimate then (the check after lowering still applies).
    if (ipus_per_machine > 0 && session.phases <= 0)
      c.streaming_bytes_per_machine = probe_streaming_bytes(m, session, ipus_per_machine);
    return c;
  };
  try {
    const ProgramCounts one = counts(step), two = counts(2 * step);
    const double more = static_cast<double>(spec.layers - step) / static_cast<double>(step);
    ProgramCounts c{one.model_ops + (two.model_ops - one.model_ops) * more,
                    one.lowered_ops + (two.lowered_ops - one.lowered_ops) * more,
                    one.phases + (two.phases - one.phases) * more, 0};
    // Layers that layers_per_phase does not divide are refused by the generator, with its
    // own message: no estimate for them.
    if (one.streaming_bytes_per_machine > 0 && two.streaming_bytes_per_machine > 0 &&
        spec.layers % step == 0)
      c.streaming_bytes_per_machine =
          one.streaming_bytes_per_machine +
          (two.streaming_bytes_per_machine - one.streaming_bytes_per_machine) * more;
    return c;
  } catch (const std::exception&) {
    return {};
  }
}

WorkEstimate training_work_estimate(const ProgramCounts& c, const SessionOptions& s,
                                    const std::string& key, const std::string& advice) {
  WorkEstimate e;
  char what[64];
  std::snprintf(what, sizeof what, "%.3g model ops", c.model_ops);
  e.memory_parts.push_back({what, c.model_ops * kBytesPerModelOp});
  if (c.lowered_ops > 0) {
    std::snprintf(what, sizeof what, "%.3g lowered ops", c.lowered_ops);
    e.memory_parts.push_back({what, c.lowered_ops * kBytesPerLoweredOp});
  }
  if (c.phases > 0) {
    std::snprintf(what, sizeof what, "%.3g phases x %u IPUs", c.phases, s.ipusPerReplica);
    e.memory_parts.push_back(
        {what, c.phases * std::max<std::uint32_t>(1, s.ipusPerReplica) * kBytesPerPhasePerIpu});
  }
  // Every lowered op waits at least once and every phase ends with a sync.
  e.events = c.lowered_ops + c.phases;
  e.events_what = "one per lowered op and one per phase";
  e.key = key;
  e.advice = advice;
  return e;
}

}  // namespace ipusim::rt
