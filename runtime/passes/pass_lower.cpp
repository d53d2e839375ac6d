// Lowering of the phased model into the per-phase program (see pass_lower.hpp): the driver,
// which runs the steps of lowerer.hpp in PopART's order inside a phase.
#include "runtime/passes/pass_lower.hpp"

#include "runtime/passes/lowerer.hpp"

namespace ipusim::rt::lower {

Program Lowerer::run() {
  prog_.forward_phases = L_.forward_phases;
  prog_.total_phases = L_.total_phases;
  prog_.micro_batches = K_;
  const std::uint32_t A = std::max<std::uint32_t>(1, s_.accumulationFactor);
  Model no_opt = full_;
  no_opt.ops.erase(std::remove_if(no_opt.ops.begin(), no_opt.ops.end(),
                                  [](const ModelOp& o) { return o.pass == Pass::Optimizer; }),
                   no_opt.ops.end());
  for (std::uint32_t a = 0; a < A; ++a)
    lower_repetition(a + 1 == A ? full_ : no_opt, static_cast<int>(a));
  remote_buffers();
  return std::move(prog_);
}

void Lowerer::lower_repetition(const Model& m, int rep) {
  model_ = &m;
  uses_ = tensor_uses(m);
  add_copy_uses();
  index_phase_tensors();
  placements_ = place_remote_io(m, res_, s_);
  placements_at_.clear();
  for (const IoPlacement& pl : placements_) placements_at_[{pl.phase, pl.vg}].push_back(&pl);
  ops_at_.clear();
  for (const ModelOp& o : m.ops) ops_at_[{o.phase, o.vgraph}].push_back(&o);
  pending_copy_.clear();
  arrived_.clear();
  const int ipr = static_cast<int>(s_.ipusPerReplica);
  for (int p = -1; p < L_.total_phases; ++p) {
    LPhase ph;
    ph.index = p;
    ph.repetition = rep;
    ph.memory.resize(ipr);
    cur_ = &ph;
    for (int v = 0; v < ipr; ++v) lower_phase(p, v);
    // After every vg: a preload may wait for a store issued by another IPU in this phase.
    for (int v = 0; v < ipr; ++v) preload_next_activations(p, v);
    if (p >= 0 || !ph.ops.empty()) prog_.phases.push_back(std::move(ph));
  }
  live_activations(rep);
  resident(rep);
}

const std::vector<const IoPlacement*>& Lowerer::placements_at(int p, int v) const {
  static const std::vector<const IoPlacement*> none;
  auto it = placements_at_.find({p, v});
  return it == placements_at_.end() ? none : it->second;
}

const std::vector<const ModelOp*>& Lowerer::ops_at(int p, int v) const {
  static const std::vector<const ModelOp*> none;
  auto it = ops_at_.find({p, v});
  return it == ops_at_.end() ? none : it->second;
}

void Lowerer::lower_phase(int p, int v) {
  // 1-2. Phase-level loads and the copies of what arrived to the compute tiles.
  std::vector<LTransfer> opt_loads;
  std::vector<int> ready = phase_loads(p, v, opt_loads);
  // On-chip sharded weights: gather the resident shard before use.
  for (int g : on_chip_gathers(p, v)) ready.push_back(g);
  phase_memory(p, v);

  // 3. Whole-batch host loads: the input the compute needs arrives first. They go to the
  // front of `ready` so that ready.back() stays the last phase-level load (the tail when
  // the phase has no loop).
  for (const ModelOp* o : ops_at(p, v))
    if (whole_batch_host_load(*o)) ready.insert(ready.begin(), add(from_model(*o, v, -1)));
  // 4. The batch-serialised loop, then the other whole-batch ops.
  const int last_compute = loop(p, v, ready);
  int tail = last_compute;
  for (const ModelOp* o : ops_at(p, v)) {
    if (o->per_micro_batch || o->pass == Pass::Optimizer || whole_batch_host_load(*o)) continue;
    LOp op = from_model(*o, v, -1);
    if (tail >= 0) op.deps.push_back(tail);
    tail = add(op);
  }
  // 5. Ping-pong: on-chip activations consumed on another IPU are copied at the end of the
  // compute, after the loads and before the optimizer and the stores (PopART priorities).
  ipu_copies(p, v, tail);
  // 6. Optimizer step.
  std::set<std::string> stored;
  tail = optimizer(p, v, tail, opt_loads, stored);
  // 7. Stores of the other remote tensors last written here.
  phase_stores(p, v, tail, stored);
}

}  // namespace ipusim::rt::lower

namespace ipusim::rt {

Program lower_program(const Model& model, const PhaseLayout& layout,
                      const std::map<std::string, ResolvedTensor>& resolved,
                      const SessionOptions& session) {
  return lower::Lowerer(model, layout, resolved, session).run();
}

}  // namespace ipusim::rt
