// Pipeline analysis: ops -> forward stages, stage copies, stashes, optimizer per virtual graph
// (see pass_pipeline.hpp). The lowering into cycles is in lower_pipeline.cpp.
#include "runtime/passes/pass_pipeline.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace ipusim::rt {
namespace {

ComputePart part_of(const ModelOp& o) {
  ComputePart p;
  p.flops = o.flops;
  p.bytes = o.bytes;
  p.scalar_reductions = o.scalar_reductions;
  p.chained_ops = o.chained_ops;
  p.vector_tile_cycles = o.vector_tile_cycles;
  p.unit = o.unit;
  p.op_class = o.op_class;
  p.backward = o.pass == Pass::Backward;
  p.gemm = o.gemm;
  p.dtype = o.dtype;
  return p;
}

bool is_activation(const Model& m, const std::string& t) {
  return m.has_tensor(t) && m.tensor(t).kind == TensorKind::Activation;
}

/// The forward stage of an op (pipeline_stage, else the virtual graph, else 0 on one IPU).
int stage_of(const ModelOp& o, const SessionOptions& s) {
  if (o.pipeline_stage >= 0) return o.pipeline_stage;
  if (o.vgraph >= 0) return o.vgraph;
  if (s.ipusPerReplica == 1) return 0;
  throw std::invalid_argument(
      "op '" + o.name + "' has no virtualGraph; with virtualGraphMode manual every op needs one");
}

int vg_of(const ModelOp& o) { return std::max(0, o.vgraph); }

/// One weight's gradient accumulation of one micro-batch, accumulator += gradient: a
/// separate element-wise op per weight in both frameworks. PopART adds an AccumulateOp per
/// weight (willow/src/popx/op/accumulatex.cpp: popops scaledAddTo / addInPlace into the
/// accumulator; SessionOptions.mergeVarUpdate could merge them, its default None does not);
/// TensorFlow's IPU pipelining one HloGradientAccumulatorAdd per variable, "converted into an
/// elementwise add before lowering"
/// (tensorflow/compiler/plugin/poplar/driver/tools/custom_ops/stateful_gradient_accumulate.h),
/// each its own compute set (its pipelining tests look for one GradientAccumulatorAdd compute
/// set per accumulated tensor). So each pays /chip/compute/op_overhead_cycles once per
/// micro-batch, as every other op. 1 add per element; accumulator read and written, gradient
/// (the weight's dtype) read.
ComputePart accumulation_part(const Tensor& accumulator, const Tensor& weight) {
  ComputePart acc;
  acc.unit = ComputeUnit::Vector;
  acc.op_class = OpClass::Elementwise;
  acc.dtype = weight.dtype;
  acc.flops = static_cast<double>(accumulator.elements());
  acc.bytes = accumulator.bytes() * 2 + weight.bytes();
  return acc;
}

}  // namespace

int PipelinePlan::pipeline_stages() const {
  const int S = static_cast<int>(stages.size());
  return training ? 2 * S - 1 : S;
}

std::uint64_t PipelinePlan::cycles() const {
  return static_cast<std::uint64_t>(micro_batches) + static_cast<std::uint64_t>(pipeline_stages()) -
         1;
}

bool uses_pipeline_lowering(const Model& model, const SessionOptions& session) {
  return session.enablePipelining || !model.phased;
}

PipelinePlan plan_pipeline(const Model& m, const SessionOptions& s) {
  PipelinePlan plan;
  plan.pipelined = s.enablePipelining;
  plan.virtual_graphs = static_cast<int>(s.ipusPerReplica);
  plan.micro_batches = s.accumulationFactor;
  // Stages and their virtual graphs.
  std::map<int, int> stage_vg;
  std::set<int> used_vgs;
  std::map<std::string, int> weight_vg;
  for (const ModelOp& o : m.ops) {
    if (o.pass == Pass::Optimizer) continue;
    if (o.vgraph >= static_cast<int>(s.ipusPerReplica))
      throw std::invalid_argument(
          "op '" + o.name + "' has virtualGraph " + std::to_string(o.vgraph) +
          " but ipusPerReplica is " + std::to_string(s.ipusPerReplica) +
          " (PopART: the virtual graph id must be less than the number of IPUs per replica)");
    const int st = stage_of(o, s);
    const int vg = o.vgraph >= 0 ? o.vgraph : (st < static_cast<int>(s.ipusPerReplica) ? st : 0);
    auto [it, fresh] = stage_vg.emplace(st, vg);
    if (!fresh && it->second != vg)
      throw std::invalid_argument(
          "op '" + o.name + "' is in pipeline stage " + std::to_string(st) + " on virtual graph " +
          std::to_string(vg) + " but that stage runs on virtual graph " +
          std::to_string(it->second) +
          " (PopART: all ops of a pipeline stage must be on the same virtual graph)");
    used_vgs.insert(vg);
    if (o.pass == Pass::Forward && o.type == OpType::Compute)
      for (const std::string& t : o.inputs)
        if (m.has_tensor(t) && m.tensor(t).kind == TensorKind::Weight) weight_vg.emplace(t, vg);
    if (o.pass == Pass::Backward) plan.training = true;
  }
  plan.training = std::any_of(m.ops.begin(), m.ops.end(),
                              [](const ModelOp& o) { return o.pass == Pass::Backward; });
  // Inference (PopART's InferenceSession): the batchesPerStep device iterations stream through
  // the pipeline as one loop (no weight update between them).
  if (!plan.training)
    plan.micro_batches = s.accumulationFactor * std::max<std::uint32_t>(1, s.batchesPerStep);
  if (stage_vg.empty()) throw std::invalid_argument("the model has no ops");
  const int S = stage_vg.rbegin()->first + 1;
  for (int st = 0; st < S; ++st)
    if (!stage_vg.count(st))
      throw std::invalid_argument(
          "pipeline stage " + std::to_string(st) +
          " has no ops (PopART: pipeline stages must be numbered 0, 1, 2, ... without gaps)");
  for (int vg = 0; vg < static_cast<int>(s.ipusPerReplica); ++vg)
    if (!used_vgs.count(vg))
      throw std::invalid_argument(
          "virtual graph " + std::to_string(vg) + " has no ops (ipusPerReplica is " +
          std::to_string(s.ipusPerReplica) + "; every IPU of the pipeline needs a stage)");
  if (!s.enablePipelining && S > 1)
    throw std::invalid_argument("the ops use " + std::to_string(S) +
                                " pipeline stages / virtual graphs but enablePipelining is false");
  plan.stages.resize(static_cast<std::size_t>(S));
  for (int st = 0; st < S; ++st) {
    plan.stages[st].stage = st;
    plan.stages[st].vg = stage_vg[st];
  }
  // PopART's depth check: a training pipeline of S stages fills 2S-1 pipeline stages (forward
  // and backward), an inference pipeline S.
  if (s.enablePipelining &&
      plan.micro_batches < static_cast<std::uint32_t>(plan.pipeline_stages())) {
    if (plan.training)
      throw std::invalid_argument(
          "For pipelining, depth (gradient accumulation factor) must equal at least double the "
          "number of pipeline stages (" +
          std::to_string(S) + "), minus one: " + std::to_string(plan.pipeline_stages()) +
          "; accumulationFactor is " + std::to_string(plan.micro_batches));
    throw std::invalid_argument(
        "For pipelining, depth (batches per step x gradient accumulation factor) must equal at "
        "least the number of pipeline stages (" +
        std::to_string(S) + "); accumulationFactor is " + std::to_string(plan.micro_batches));
  }

  // Producers first (a backward op may come before the op producing its gradient input).
  std::map<std::string, int> producer;  // activation -> forward stage of the op producing it
  std::map<std::string, bool> produced_backward;
  for (const ModelOp& o : m.ops) {
    if (o.pass == Pass::Optimizer) continue;
    for (const std::string& t : o.outputs) {
      if (!is_activation(m, t) || producer.count(t)) continue;
      producer[t] = stage_of(o, s);
      produced_backward[t] = o.pass == Pass::Backward;
    }
  }
  // Per-stage compute, stash and copies.
  for (const ModelOp& o : m.ops) {
    if (o.pass == Pass::Optimizer) continue;
    const int st = stage_of(o, s);
    PipelineStage& ps = plan.stages[static_cast<std::size_t>(st)];
    if (o.type == OpType::HostLoad && o.pass == Pass::Forward)
      ps.host_bytes_per_mb += o.collective_bytes;
    if (o.type == OpType::HostStore && o.pass == Pass::Forward)
      ps.host_out_bytes_per_mb += o.collective_bytes;
    if (o.type == OpType::Collective) {
      // In-stage collective: between the compute parts of its pass, where the model puts it.
      StageCollective c;
      c.after_parts = (o.pass == Pass::Forward ? ps.fwd : ps.bwd).size();
      c.name = o.name;
      c.op = o.collective_op;
      c.comm_group = o.comm_group;
      c.bytes = o.collective_bytes;
      c.dtype = o.dtype;
      (o.pass == Pass::Forward ? ps.fwd_collectives : ps.bwd_collectives).push_back(c);
    }
    if (o.type == OpType::Compute) {
      (o.pass == Pass::Forward ? ps.fwd : ps.bwd).push_back(part_of(o));
      (o.pass == Pass::Forward ? ps.fwd_flops : ps.bwd_flops) += o.flops;
      ps.temp_bytes = std::max(ps.temp_bytes, o.temp_bytes);
      if (o.pass == Pass::Forward) {
        ps.stash_bytes_per_mb += o.stash_bytes;
        if (ps.first_op.empty()) ps.first_op = o.name;
        ps.last_op = o.name;
      }
    }
    for (const std::string& t : o.inputs) {
      if (!is_activation(m, t)) continue;
      auto it = producer.find(t);
      if (it == producer.end()) continue;  // a model input
      const bool bwd = produced_backward[t];
      if (!bwd && o.pass == Pass::Forward && it->second > st)
        throw std::invalid_argument("op '" + o.name + "' in pipeline stage " + std::to_string(st) +
                                    " reads '" + t + "' produced in the later stage " +
                                    std::to_string(it->second));
      if (it->second != st) {
        const bool dup =
            std::any_of(plan.copies.begin(), plan.copies.end(),
                        [&](const StageCopy& c) { return c.tensor == t && c.to_stage == st; });
        if (!dup) {
          plan.copies.push_back({t, it->second, st, bwd, m.tensor(t).bytes()});
          if (!bwd && o.pass == Pass::Forward) ps.input_bytes_per_mb += m.tensor(t).bytes();
        }
      }
    }
  }
  // Stashes and recomputation: forward stage s keeps 2(S-1-s)+1 micro-batches in flight.
  for (PipelineStage& ps : plan.stages) {
    ps.in_flight = plan.training ? 2 * (S - 1 - ps.stage) + 1 : 1;
    if (ps.stash_bytes_per_mb == 0) {
      // Without per-op stash figures: every activation this stage's forward writes.
      for (const ModelOp& o : m.ops)
        if (o.pass == Pass::Forward && stage_of(o, s) == ps.stage)
          for (const std::string& t : o.outputs)
            if (is_activation(m, t)) ps.stash_bytes_per_mb += m.tensor(t).bytes();
    }
    if (!plan.training) {
      ps.stash_bytes_per_mb = 0;
      continue;
    }
    // Pipeline recomputation skips the last forward stage (its backward runs in the same
    // cycle, nothing is stashed); standard recomputation applies to every stage.
    const bool recompute = s.autoRecomputation == Recomputation::Standard ||
                           (s.autoRecomputation == Recomputation::Pipeline && ps.in_flight > 1);
    if (!recompute) continue;
    // Recomputation units: the ops that carry a unit's stash (a transformer layer, a ResNet
    // block); each unit's activation inputs are its checkpoints. The backward rebuilds one unit
    // at a time from its checkpoints, so the rebuilt activations of the largest unit are the
    // recomputation buffer.
    std::uint64_t checkpoints = 0, largest_op_stash = 0, stashed_checkpoints = 0;
    // Activations copied in from an earlier forward stage, and the checkpoints already counted
    // (a checkpoint is stashed once however many units read it).
    std::set<std::string> stage_inputs, stashed;
    for (const StageCopy& c : plan.copies)
      if (!c.backward && c.to_stage == ps.stage) stage_inputs.insert(c.tensor);
    for (const ModelOp& o : m.ops) {
      if (o.pass != Pass::Forward || o.type != OpType::Compute || stage_of(o, s) != ps.stage ||
          o.stash_bytes == 0)
        continue;
      largest_op_stash = std::max(largest_op_stash, o.stash_bytes);
      for (const std::string& t : o.inputs)
        if (is_activation(m, t)) {
          checkpoints += m.tensor(t).bytes();
          if (!stage_inputs.count(t) && stashed.insert(t).second)
            stashed_checkpoints += m.tensor(t).bytes();
        }
    }
    if (largest_op_stash == 0) largest_op_stash = ps.stash_bytes_per_mb;
    if (s.autoRecomputation == Recomputation::Pipeline) {
      // PopART's RecomputationType::Pipeline (implicit pipelining) stashes, per micro-batch in
      // flight, the stage's inputs and the tensors whose producer is a Checkpoint op, nothing
      // else (willow/src/transforms/pipeline.cpp, getStashCandidateTensors: "Full recompute
      // uses stashes only on the inputs to an IPU ... or tensors specified by the user",
      // hasCheckpointProducer); every other forward op is Recompute (setRecomputation), and
      // before each backward op the lowering reruns the Recompute producers it needs, walking
      // back to the nearest non-Recompute op (willow/src/popx/irlowering.cpp,
      // FindRequiredRecomputes::getPipelineRecomputeOps): one unit between checkpoints at a
      // time. So a unit's checkpoint that is not a stage input is stashed like the stage
      // input (Graphcore's BERT checkpoints every layer's output: "the output of each layer
      // will be stashed ... the stash size scales with the number of pipeline stages").
      ps.stash_bytes_per_mb =
          std::max<std::uint64_t>(ps.input_bytes_per_mb + stashed_checkpoints, 1);
    } else {
      ps.stash_bytes_per_mb = std::max(checkpoints, ps.input_bytes_per_mb);
    }
    ps.recompute_buffer_bytes = largest_op_stash;
    ps.recompute = ps.fwd;
    ps.recompute_flops = ps.fwd_flops;
    ps.bwd.insert(ps.bwd.begin(), ps.fwd.begin(), ps.fwd.end());
    for (StageCollective& c : ps.bwd_collectives) c.after_parts += ps.fwd.size();
  }

  // Weights, accumulators, optimizer state and update per virtual graph.
  std::map<int, StageOptimizer> opt;
  for (const ModelOp& o : m.ops) {
    if (o.pass != Pass::Optimizer || o.inputs.empty()) continue;
    const std::string& w = o.inputs[0];
    auto it = weight_vg.find(w);
    const int vg = it != weight_vg.end() ? it->second : vg_of(o);
    StageOptimizer& so = opt[vg];
    so.vg = vg;
    const Tensor& wt = m.tensor(w);
    so.weight_elements += wt.elements();
    so.weight_dtype = wt.dtype;
    so.weight_bytes += wt.bytes();
    so.update_flops += o.flops;
    so.update_bytes += o.bytes;
    so.updates.push_back(part_of(o));
    so.updates.back().unit = ComputeUnit::Vector;  // as the optimizer op the lowering runs
    so.updates.back().op_class = OpClass::Optimizer;
    // popxl applications (io_mode set) build their own collectives: not counted per weight.
    if (m.per_weight_collectives && s.io_mode == IoMode::Unset) {
      so.weight_sizes.push_back(wt.elements());
      so.sharded_norms.push_back(o.sharded_norms);
    }
    for (const std::string& t : o.inputs) {
      if (!m.has_tensor(t)) continue;
      const Tensor& x = m.tensor(t);
      if (x.kind == TensorKind::OptimizerState) {
        so.state_bytes += x.bytes();
        so.state_dtype = x.dtype;
      }
      if (x.kind == TensorKind::Accumulator) {
        so.accumulator_bytes += x.bytes();
        so.accumulations.push_back(accumulation_part(x, wt));
      }
    }
  }
  for (auto& [vg, so] : opt) plan.optimizers.push_back(so);
  if (!plan.training)
    for (const auto& [w, vg] : weight_vg) plan.inference_weight_bytes[vg] += m.tensor(w).bytes();
  // Gradient accumulation: each backward adds the micro-batch's gradients into the accumulators.
  if (plan.training && plan.micro_batches > 1) {
    for (const StageOptimizer& so : plan.optimizers) {
      if (so.accumulator_bytes == 0) continue;
      auto st = std::find_if(plan.stages.rbegin(), plan.stages.rend(),
                             [&](const PipelineStage& p) { return p.vg == so.vg; });
      if (st == plan.stages.rend()) continue;
      st->bwd.insert(st->bwd.end(), so.accumulations.begin(), so.accumulations.end());
    }
  }
  return plan;
}

}  // namespace ipusim::rt
