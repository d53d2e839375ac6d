#include "runtime/workloads/work_estimate.hpp"

#include <algorithm>
#include <cstdio>

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

ProgramCounts transformer_program_counts(const TransformerSpec& spec,
                                         const SessionOptions& session) {
  // Each layer emits the same forward, backward and optimizer ops (and phases), so the
  // difference of the two probes is what layers_per_phase more layers add.
  TransformerSpec probe = spec;
  probe.layers_per_ipu.clear();
  const std::int64_t step = std::max<std::int64_t>(1, spec.layers_per_phase);
  auto counts = [&](std::int64_t layers) {
    probe.layers = layers;
    const Model m = generate_transformer(probe, session.replicatedGraphCount);
    if (session.enablePipelining)
      return ProgramCounts{static_cast<double>(m.ops.size()), static_cast<double>(m.ops.size()), 0};
    return phased_program_counts(m, session, 2 * m.forward_phases - 1);
  };
  try {
    const ProgramCounts one = counts(step), two = counts(2 * step);
    const double more = static_cast<double>(spec.layers - step) / static_cast<double>(step);
    return {one.model_ops + (two.model_ops - one.model_ops) * more,
            one.lowered_ops + (two.lowered_ops - one.lowered_ops) * more,
            one.phases + (two.phases - one.phases) * more};
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
