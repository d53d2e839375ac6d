// Program-size estimates behind the guards before work
// (runtime/workloads/training/work_estimate.hpp), against hand-counted programs and against the
// real lowering.
#include "runtime/workloads/training/work_estimate.hpp"

#include <catch2/catch.hpp>

#include "runtime/passes/memory_accounting.hpp"
#include "runtime/passes/pass_locations.hpp"
#include "runtime/passes/pass_lower.hpp"
#include "runtime/passes/pass_phases.hpp"
#include "runtime/workloads/training/graph_checks.hpp"

using namespace ipusim::rt;

namespace {

ModelOp compute(const std::string& name, int phase, Pass pass, bool per_micro_batch) {
  ModelOp o;
  o.name = name;
  o.forward_phase = phase;
  o.pass = pass;
  o.per_micro_batch = per_micro_batch;
  o.flops = 1;
  return o;
}

}  // namespace

TEST_CASE("work estimate: phased counts by hand (A repetitions, K micro-batches, optimizer once)",
          "[runtime][guards]") {
  Model m;
  m.ops = {compute("f0", 0, Pass::Forward, true), compute("f1", 1, Pass::Forward, true),
           compute("w", 1, Pass::Forward, false), compute("opt", 1, Pass::Optimizer, false)};
  SessionOptions s;
  s.accumulationFactor = 3;
  s.batchSerializationFactor = 4;
  const ProgramCounts c = phased_program_counts(m, s, 5);
  CHECK(c.model_ops == 4);
  // f0, f1: 3 x 4 each; w: 3 x 1; opt: 1.
  CHECK(c.lowered_ops == 2 * 12 + 3 + 1);
  CHECK(c.phases == 3 * (5 + 1));
  // Memory: 4 x 1000 + 28 x 2500 + 18 phases x 1 IPU x 2000 bytes; events: ops + phases.
  const ipusim::WorkEstimate e = training_work_estimate(c, s, "session", "");
  CHECK(e.memory_bytes() == 4 * 1000.0 + 28 * 2500.0 + 18 * 2000.0);
  CHECK(e.events == 28 + 18);
}

TEST_CASE(
    "work estimate: the transformer extrapolation equals the generated model, lower-bounds the "
    "lowering",
    "[runtime][guards]") {
  TransformerSpec spec;
  spec.layers = 12;
  spec.layers_per_phase = 2;
  spec.hidden = 256;
  spec.heads = 4;
  spec.sequence_length = 32;
  spec.vocab = 1000;
  SessionOptions s;
  s.batchSerializationFactor = 2;
  const ProgramCounts est = transformer_program_counts(spec, s);
  Model m = generate_transformer(spec, 1);
  // Every layer emits the same ops: the linear extrapolation is exact.
  CHECK(est.model_ops == static_cast<double>(m.ops.size()));
  const PhaseLayout layout = assign_phases(m, s.stages, s.phases, 1);
  const Program prog = lower_program(m, layout, resolve_locations(m, s), s);
  std::size_t lowered = 0;
  for (const auto& ph : prog.phases) lowered += ph.ops.size();
  CHECK(est.lowered_ops <= static_cast<double>(lowered));
  CHECK(est.lowered_ops >= 0.25 * static_cast<double>(lowered));  // a useful bound, not a token one
  CHECK(est.phases <= static_cast<double>(prog.phases.size()) + 1);
}

TEST_CASE(
    "work estimate: the streaming memory of 69 layers, extrapolated from two probes, equals the "
    "lowered program's",
    "[runtime][guards]") {
  TransformerSpec spec;
  spec.layers = 69;
  spec.layers_per_phase = 3;
  spec.hidden = 128;
  spec.heads = 4;
  spec.sequence_length = 16;
  spec.vocab = 500;
  spec.micro_batch = 2;
  spec.optimizer.type = "lamb";
  spec.optimizer.accumulate = true;
  SessionOptions s;
  s.replicatedGraphCount = 8;
  s.accumulationFactor = 2;  // the probes lower with 1: repetitions do not add buffers
  s.batchSerializationFactor = 2;
  TensorLocation off;
  off.storage = Storage::OffChip;
  s.weight.location = s.optimizerState.location = s.accumulator.location = off;
  s.weight.location.replicatedTensorSharding = true;
  s.activation.location = off;
  const ProgramCounts est = transformer_program_counts(spec, s, 4);
  // The exact figure: generate all 69 layers, lower with accumulationFactor 2, account.
  Model m = generate_transformer(spec, s.replicatedGraphCount);
  const PhaseLayout layout = assign_phases(m, s.stages, s.phases, 1);
  const Program prog = lower_program(m, layout, resolve_locations(m, s), s);
  MemoryParams mp;
  mp.ipus_per_machine = 4;
  mp.replicas = s.replicatedGraphCount;
  const double exact =
      static_cast<double>(account_memory(prog, mp).streaming_memory_per_machine_bytes);
  REQUIRE(exact > 0);
  CHECK(est.streaming_bytes_per_machine == Approx(exact).epsilon(1e-12));
  // Not estimated: without the machine size, or with layers that layers_per_phase does not
  // divide (the generator's own error is clearer).
  CHECK(transformer_program_counts(spec, s).streaming_bytes_per_machine == 0);
  spec.layers = 70;
  CHECK(transformer_program_counts(spec, s, 4).streaming_bytes_per_machine == 0);
}

TEST_CASE("graph checks: a three-op cycle is named in data-flow order; the optimizer loop is none",
          "[runtime][semantic]") {
  Model m;
  for (const char* t : {"a", "b", "c", "w"}) {
    Tensor x;
    x.name = t;
    x.shape = {4};
    x.kind = std::string(t) == "w" ? TensorKind::Weight : TensorKind::Activation;
    m.add_tensor(x);
  }
  ModelOp fwd = compute("fwd", 0, Pass::Forward, true);
  fwd.inputs = {"w"};
  fwd.outputs = {"a"};
  ModelOp opt = compute("opt", 0, Pass::Optimizer, false);
  opt.inputs = {"a"};
  opt.outputs = {"w"};
  m.ops = {fwd, opt};
  CHECK(check_explicit_graph(m).what.empty());  // w: written by the optimizer for the next step
  ModelOp x = compute("X", 1, Pass::Forward, true), y = compute("Y", 1, Pass::Forward, true),
          z = compute("Z", 1, Pass::Forward, true);
  x.inputs = {"c"}, x.outputs = {"a"};
  y.inputs = {"a"}, y.outputs = {"b"};
  z.inputs = {"b"}, z.outputs = {"c"};
  m.ops = {x, y, z};
  const GraphProblem p = check_explicit_graph(m);
  CHECK(p.key == "ops");
  CHECK(p.what.find("'X' -> 'Y' -> 'Z' -> 'X'") != std::string::npos);
}
