// Lowering: per-phase memory items (used, kept live, resident, live activations) and the
// remote buffers (see lowerer.hpp).
#include "runtime/passes/lowerer.hpp"

namespace ipusim::rt::lower {

void Lowerer::phase_memory(int p, int v) {
  // Activations loaded for this phase at phase level live on the compute tiles while it runs.
  for (const auto& t : arrived_[{p, v}]) mem(v, t, on_chip_bytes(t), TileSet::Compute, "activation");
  for (const auto& [t, uses] : uses_) {
    const Tensor& x = model_->tensor(t);
    if (x.kind == TensorKind::Activation || x.kind == TensorKind::Gradient) continue;
    if (res_.at(t).off_chip && kept_across(uses, p, v))
      mem(v, t, on_chip_bytes(t), res_.at(t).storage, to_string(x.kind) + " (kept live)");
    for (const TensorUse& u : uses) {
      if (u.phase != p || u.vg != v) continue;
      // The ops use a copy on the compute tiles; an IO-tile home (storageTileSet io) keeps its own.
      mem(v, t, on_chip_bytes(t), TileSet::Compute, to_string(x.kind));
      if (res_.at(t).storage == TileSet::Io) mem(v, t, on_chip_bytes(t), TileSet::Io, to_string(x.kind) + " (IO-tile home)");
    }
  }
}

bool Lowerer::kept_across(const std::vector<TensorUse>& uses, int p, int v) const {
  int before = -1000000, after = -1;
  for (const TensorUse& u : uses) {
    if (u.vg != v) continue;
    if (u.phase == p) return false;
    if (u.phase < p) before = u.phase;
    if (u.phase > p && after < 0) after = u.phase;
  }
  return after >= 0 && kept_live(before, after, s_.stages);
}

void Lowerer::live_activations(int rep) {
  for (const auto& [t, uses] : uses_) {
    const Tensor& x = model_->tensor(t);
    if (x.kind != TensorKind::Activation) continue;
    const auto prod = std::find_if(uses.begin(), uses.end(), [](const TensorUse& u) { return u.writes; });
    if (prod == uses.end()) continue;
    const bool off = res_.at(t).off_chip;
    // Off-chip per-micro-batch activations only occupy the loop's step buffers.
    if (off && x.per_micro_batch && K_ > 1) continue;
    const std::uint64_t bytes = x.bytes() * (x.per_micro_batch ? K_ : 1);
    int last_same = prod->phase;
    int prev = prod->phase;
    for (const TensorUse& u : uses) {
      if (!u.reads || u.phase <= prod->phase) continue;
      if (u.vg == prod->vg && (!off || act_kept(x, prev, u.phase))) {
        last_same = u.phase;
        prev = u.phase;
      } else if (u.vg != prod->vg && !off) {
        for (LPhase& ph : prog_.phases)
          if (ph.repetition == rep && ph.index > prod->phase && ph.index <= u.phase)
            ph.memory[u.vg].push_back({t, bytes, TileSet::Compute, "activation"});
      }
    }
    for (LPhase& ph : prog_.phases)
      if (ph.repetition == rep && ph.index >= prod->phase && ph.index <= last_same && ph.index > prod->phase - 1 &&
          (last_same > prod->phase || ph.index == prod->phase))
        ph.memory[prod->vg].push_back({t, bytes, TileSet::Compute, "activation"});
  }
}

void Lowerer::resident(int rep) {
  for (const auto& [t, uses] : uses_) {
    const Tensor& x = model_->tensor(t);
    if (x.kind == TensorKind::Activation || x.kind == TensorKind::Gradient || res_.at(t).off_chip || uses.empty()) continue;
    // Without accumulationFactor repeats an accumulator lives only in its backward phase.
    if (x.kind == TensorKind::Accumulator && s_.accumulationFactor <= 1) continue;
    // The full weight is counted in its use phases; the resident copy is the shard elsewhere.
    const int vg = uses.front().vg;
    for (LPhase& ph : prog_.phases) {
      if (ph.repetition != rep) continue;
      bool used = false;
      for (const TensorUse& u : uses) used = used || (u.phase == ph.index && u.vg == vg);
      if (!used) ph.memory[vg].push_back({t, res_.at(t).shard_bytes, res_.at(t).storage, to_string(x.kind) + " (resident)"});
    }
  }
}

void Lowerer::remote_buffers() {
  std::set<std::pair<std::string, int>> seen;
  for (const auto& [t, uses] : tensor_uses(full_)) {
    const Tensor& x = full_.tensor(t);
    if (x.kind == TensorKind::Gradient || !res_.at(t).off_chip || uses.empty()) continue;
    const std::uint64_t b = x.kind == TensorKind::Activation ? x.bytes() * (x.per_micro_batch ? K_ : 1) : res_.at(t).shard_bytes;
    // Activation buffers are live from their producer to their last use (popxl reuses rows).
    const bool act = x.kind == TensorKind::Activation;
    if (seen.insert({t, uses.front().vg}).second)
      prog_.remote_buffers.push_back({t, uses.front().vg, b, act ? uses.front().phase : -1, act ? uses.back().phase : -1});
  }
}

}  // namespace ipusim::rt::lower
