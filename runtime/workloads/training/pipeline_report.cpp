// Report of a pipelined (or plain accumulation-loop) training run: the step, each stage's
// busy and idle time (the bubble), IpuCopy traffic, collectives after the loop, throughput.
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <utility>

#include "models/system/system.hpp"
#include "runtime/generators/model_gen.hpp"
#include "runtime/workloads/training/training_state.hpp"

namespace ipusim::rt {
namespace {

/// Loop and optimizer extents of step 0, and per-vg compute busy time inside the loop.
struct LoopTimes {
  double loop_ns = 0, optimizer_ns = 0;
  std::map<int, double> busy_ns;         ///< compute per virtual graph during the loop
  std::map<int, double> fwd_ns, bwd_ns;  ///< per forward stage: one micro-batch (main cycles)
  std::uint64_t ipu_copy_bytes = 0;      ///< per replica, whole step
  double ipu_copy_ns = 0;
  std::uint64_t in_stage_collectives = 0;  ///< collectives inside stages, whole step
  double in_stage_collective_ns = 0, in_stage_gw_link_ns = 0;
};

LoopTimes loop_times(const TrainingState& st, const Executor& ex) {
  LoopTimes lt;
  const std::uint64_t cycles = st.plan.cycles();
  const auto& ph = ex.phase_ns();
  if (ph.size() < cycles + 1) return lt;
  std::map<int, std::pair<int, double>> fwd_mb, bwd_mb;  // stage -> (micro-batch, compute ns)
  lt.loop_ns = ph[cycles - 1].second - ph[0].first;
  lt.optimizer_ns = ph[cycles].second - ph[cycles].first;
  for (std::size_t p = 0; p < cycles; ++p) {
    const LPhase& phase = st.program.phases[p];
    for (std::size_t k = 0; k < phase.ops.size(); ++k) {
      const LOp& op = phase.ops[k];
      const OpTiming& t = ex.timings()[p][k];
      const double d = t.end_ns - t.start_ns;
      if (op.kind == LKind::Compute) {
        lt.busy_ns[op.vg] += d;
        const int stage = std::stoi(op.label.substr(6));  // "stage N forward|backward mb i"
        // A pass split by in-stage collectives has several compute ops per micro-batch: the
        // figure is the sum of the last micro-batch's.
        auto& per_mb = (op.role == "pipeline_forward" ? fwd_mb : bwd_mb)[stage];
        if (per_mb.first != op.micro_batch) per_mb = {op.micro_batch, 0.0};
        per_mb.second += d;
      }
      if (op.kind == LKind::Collective) {
        ++lt.in_stage_collectives;
        lt.in_stage_collective_ns += d;
        lt.in_stage_gw_link_ns += std::min(t.gw_link_ns, d);
      }
      if (op.kind == LKind::IpuCopy) {
        lt.ipu_copy_bytes += op.bytes;
        lt.ipu_copy_ns += d;
      }
    }
  }
  for (const auto& [stage, v] : fwd_mb) lt.fwd_ns[stage] = v.second;
  for (const auto& [stage, v] : bwd_mb) lt.bwd_ns[stage] = v.second;
  return lt;
}

}  // namespace

Json pipeline_results(const TrainingState& st, const Executor& ex, const System& system) {
  Json r = Json::object();
  const PipelinePlan& plan = st.plan;
  const SessionOptions& s = st.session;
  const double total = ex.end_ns();
  const double step = total / std::max<std::uint32_t>(1, s.batchesPerStep);
  r["step_time_ns"] = step;
  r["step_cycles"] = system.clock().ns_to_cycles_round(step);
  r["run_time_ns"] = total;
  r["generator"] = st.generator;
  r["execution"] = plan.pipelined ? "pipelined" : "accumulation_loop";
  r["replicas"] = s.replicatedGraphCount;
  r["ipus_per_replica"] = s.ipusPerReplica;
  r["micro_batch"] = st.micro_batch;
  r["accumulation_factor"] = s.accumulationFactor;
  r["batches_per_step"] = s.batchesPerStep;
  r["recomputation"] = to_string(s.autoRecomputation);
  // Throughput over the whole run (batchesPerStep weight updates); samples_per_step is
  // PopART's step (batchesPerStep global batches).
  const Throughput tp = training_throughput(st, total, s.batchesPerStep);
  r["samples_per_step"] = tp.samples_per_step * s.batchesPerStep;
  add_throughput(r, st, tp, true);
  if (!plan.training) {
    // Inference: batch 0 enters in cycle 0 and leaves the last stage at the end of cycle S-1.
    const std::size_t S = plan.stages.size();
    const auto& ph = ex.phase_ns();
    const double latency = ph.size() >= S && S > 0 ? ph[S - 1].second - ph[0].first : 0.0;
    r["inference"] = {
        {"batches", plan.micro_batches},
        {"samples_per_batch", static_cast<std::uint64_t>(s.replicatedGraphCount) * st.micro_batch},
        {"latency_per_batch_ns", latency},
        {"time_per_batch_ns", plan.micro_batches > 0 ? total / plan.micro_batches : 0.0},
        {"batches_per_s", total > 0 ? plan.micro_batches / (total * 1e-9) : 0.0}};
  }
  r["model"] = model_json(st);

  const LoopTimes lt = loop_times(st, ex);
  Json pipe = Json::object();
  pipe["forward_stages"] = plan.stages.size();
  pipe["pipeline_stages"] = plan.pipeline_stages();
  pipe["cycles"] = plan.cycles();
  const int fill = plan.pipeline_stages() - 1;
  pipe["ramp_up_cycles"] = fill;
  pipe["main_cycles"] =
      std::max<std::int64_t>(0, static_cast<std::int64_t>(plan.micro_batches) - fill);
  pipe["ramp_down_cycles"] = fill;
  pipe["loop_time_ns"] = lt.loop_ns;
  // Each cycle of step 0 including its closing sync: the fill/flush bubble is visible here.
  Json cyc = Json::array();
  for (std::uint64_t c = 0; c < plan.cycles() && c < ex.phase_ns().size(); ++c)
    cyc.push_back(ex.phase_ns()[c].second - ex.phase_ns()[c].first);
  pipe["cycle_time_ns"] = std::move(cyc);
  pipe["optimizer_time_ns"] = lt.optimizer_ns;
  Json stages = Json::array();
  for (const PipelineStage& ps : plan.stages) {
    stages.push_back(
        {{"stage", ps.stage},
         {"vgraph", ps.vg},
         {"first_op", ps.first_op},
         {"last_op", ps.last_op},
         {"forward_flops_per_micro_batch", ps.fwd_flops},
         {"backward_flops_per_micro_batch", ps.bwd_flops},
         {"recompute_flops_per_micro_batch", ps.recompute_flops},
         {"forward_ns_per_micro_batch", lt.fwd_ns.count(ps.stage) ? lt.fwd_ns.at(ps.stage) : 0.0},
         {"backward_ns_per_micro_batch", lt.bwd_ns.count(ps.stage) ? lt.bwd_ns.at(ps.stage) : 0.0},
         {"micro_batches_in_flight", ps.in_flight},
         {"stash_bytes", ps.stash_bytes_per_mb * static_cast<std::uint64_t>(ps.in_flight)},
         {"recompute_buffer_bytes", ps.recompute_buffer_bytes}});
  }
  pipe["stages"] = std::move(stages);
  Json ipus = Json::array();
  for (const auto& [vg, busy] : lt.busy_ns)
    ipus.push_back({{"vgraph", vg},
                    {"busy_ns", busy},
                    {"idle_ns", std::max(0.0, lt.loop_ns - busy)},
                    {"busy_fraction", lt.loop_ns > 0 ? busy / lt.loop_ns : 0.0}});
  pipe["ipus"] = std::move(ipus);
  pipe["ipu_copy"] = {{"bytes_per_replica", lt.ipu_copy_bytes}, {"time_ns", lt.ipu_copy_ns}};
  // Collectives inside the stages (e.g. distributed batch norm), only when the model has them.
  if (lt.in_stage_collectives > 0)
    pipe["in_stage_collectives"] = {{"ops", lt.in_stage_collectives},
                                    {"time_ns", lt.in_stage_collective_ns},
                                    {"gw_link_ns", lt.in_stage_gw_link_ns}};
  r["pipeline"] = std::move(pipe);

  // Collectives after the loop (step 0), with their tier.
  Json coll = Json::array();
  Json by_tier = Json::object();
  const std::size_t opt_phase = static_cast<std::size_t>(plan.cycles());
  if (opt_phase < st.program.phases.size() && opt_phase < ex.timings().size()) {
    const LPhase& ph = st.program.phases[opt_phase];
    for (std::size_t k = 0; k < ph.ops.size(); ++k) {
      const LOp& op = ph.ops[k];
      const OpTiming& t = ex.timings()[opt_phase][k];
      const double d = t.end_ns - t.start_ns;
      Json j = {{"label", op.label},
                {"vgraph", op.vg},
                {"kind", to_string(op.kind)},
                {"duration_ns", d},
                {"bytes", op.bytes}};
      if (op.kind == LKind::Collective) {
        j["op"] = coll::to_string(op.cop);
        j["group"] = op.group ? op.group->str() : "";
        j["elements"] = op.elements;
        j["tier"] = t.tier;
        const double gw = std::min(t.gw_link_ns, d);
        const std::string gw_key = to_string(LinkTier::GwLink);
        const std::string ipu_key = to_string(LinkTier::IpuLink);
        by_tier[gw_key] = by_tier.value(gw_key, 0.0) + gw;
        by_tier[ipu_key] = by_tier.value(ipu_key, 0.0) + (d - gw);
      }
      coll.push_back(std::move(j));
    }
  }
  r["after_loop"] = {{"ops", std::move(coll)}, {"collective_ns_by_tier", std::move(by_tier)}};
  // How many were replayed from the collective cache is a fact of the run, not of the result
  // (the report is the same with the cache off): the summary says it, the report does not.
  r["collectives"] = {{"ops", ex.collectives_played() + ex.collectives_cached()}};

  Json mem = Json::object();
  mem["fits"] = st.memory.fits;
  if (!st.memory.fits) mem["overflow"] = st.memory.overflow;
  mem["worst_vgraph"] = st.memory.worst.vg;
  Json largest = Json::array();
  for (const MemoryItem& m : st.memory.worst.largest)
    largest.push_back({{"tensor", m.tensor}, {"bytes", m.bytes}, {"what", m.what}});
  mem["largest_on_worst_ipu"] = std::move(largest);
  mem["per_ipu_peak_bytes"] = st.memory.per_ipu_peak_bytes;
  r["memory"] = std::move(mem);
  return r;
}

std::string pipeline_summary(const TrainingState& st, const Executor& ex) {
  std::ostringstream o;
  const SessionOptions& s = st.session;
  const double total = ex.end_ns();
  const double step = total / std::max<std::uint32_t>(1, s.batchesPerStep);
  char line[512];
  o << training_summary_head(st, st.plan.pipelined ? "pipelined" : "accumulation loop");
  std::snprintf(line, sizeof line,
                "  pipeline         %zu forward stages, %d pipeline stages, %llu cycles (%u "
                "micro-batches of %llu), recomputation %s\n",
                st.plan.stages.size(), st.plan.pipeline_stages(),
                static_cast<unsigned long long>(st.plan.cycles()), s.accumulationFactor,
                static_cast<unsigned long long>(st.micro_batch),
                to_string(s.autoRecomputation).c_str());
  o << line;
  std::snprintf(line, sizeof line, "  step time        %.3f ms\n", step / 1e6);
  o << line;
  o << "  collectives      " << ex.collectives_played() << " simulated, " << ex.collectives_cached()
    << " replayed from the collective cache\n";
  o << throughput_summary(st, training_throughput(st, total, s.batchesPerStep));
  o << memory_summary(st);
  return o.str();
}

}  // namespace ipusim::rt
