// Lowering: per-phase memory items (used, kept live, resident, live activations) and the
// remote buffers (see lowerer.hpp).
#include "runtime/passes/lowerer.hpp"

namespace ipusim::rt::lower {

void Lowerer::index_phase_tensors() {
  phase_tensors_.clear();
  gather_names_.clear();
  // Tensors in name order (uses_ is a map), so every (phase, vg) list keeps that order.
  for (const auto& [t, uses] : uses_) {
    const Tensor& x = model_->tensor(t);
    const ResolvedTensor& r = res_.at(t);
    if (x.kind == TensorKind::Weight && !r.off_chip && r.sharded)
      for (const TensorUse& u : uses)
        if (u.reads) gather_names_[{u.phase, u.vg}].push_back(t);
    if (x.kind == TensorKind::Activation || x.kind == TensorKind::Gradient) continue;
    // Kept live across p on vg v: p lies strictly between two consecutive uses on v (uses are
    // sorted by phase, one per (phase, vg)) and the later use needs no load (one kept copy
    // serves both). Used: the phase has a use on v. The two never hold for the same (p, v).
    std::vector<bool> need;
    if (r.off_chip) need = loads_needed(uses, keep_live_rule(s_), false, true);
    std::map<int, int> prev_phase;  // per vg: phase of the previous use there
    for (std::size_t i = 0; i < uses.size(); ++i) {
      const TensorUse& u = uses[i];
      auto prev = prev_phase.find(u.vg);
      if (r.off_chip && prev != prev_phase.end() && !need[i])
        for (int p = prev->second + 1; p < u.phase; ++p)
          phase_tensors_[{p, u.vg}].push_back({&t, true});
      phase_tensors_[{u.phase, u.vg}].push_back({&t, false});
      prev_phase[u.vg] = u.phase;
    }
  }
}

void Lowerer::phase_memory(int p, int v) {
  // Activations loaded for this phase at phase level live on the compute tiles while it runs.
  for (const auto& t : arrived_[{p, v}])
    mem(v, t, on_chip_bytes(t), TileSet::Compute, "activation");
  auto it = phase_tensors_.find({p, v});
  if (it == phase_tensors_.end()) return;
  for (const PhaseTensor& e : it->second) {
    const std::string& t = *e.name;
    const Tensor& x = model_->tensor(t);
    if (e.kept) {
      mem(v, t, on_chip_bytes(t), res_.at(t).storage, to_string(x.kind) + " (kept live)");
      continue;
    }
    // The ops use a copy on the compute tiles; an IO-tile home (storageTileSet io) keeps its own.
    mem(v, t, on_chip_bytes(t), TileSet::Compute, to_string(x.kind));
    if (res_.at(t).storage == TileSet::Io)
      mem(v, t, on_chip_bytes(t), TileSet::Io, to_string(x.kind) + " (IO-tile home)");
  }
}

void Lowerer::live_activations(int rep) {
  // This repetition's phases by index (-1 first): looking a range up scanned every phase,
  // which made this quadratic in the number of layers.
  std::vector<LPhase*> by_index(static_cast<std::size_t>(L_.total_phases) + 1, nullptr);
  for (LPhase& ph : prog_.phases)
    if (ph.repetition == rep && ph.index >= -1 && ph.index < L_.total_phases)
      by_index[ph.index + 1] = &ph;
  for (const auto& entry : uses_) {
    // Not a structured binding: a C++17 lambda cannot capture one (clang refuses it, and
    // tools/fuzz.sh builds with clang).
    const auto& t = entry.first;
    const auto& uses = entry.second;
    const Tensor& x = model_->tensor(t);
    if (x.kind != TensorKind::Activation) continue;
    const auto prod =
        std::find_if(uses.begin(), uses.end(), [](const TensorUse& u) { return u.writes; });
    if (prod == uses.end()) continue;
    const std::uint64_t bytes = x.bytes() * (x.per_micro_batch ? K_ : 1);
    auto live_in = [&](int vg, int from, int to) {
      for (int i = std::max(from, -1); i <= to && i + 1 < static_cast<int>(by_index.size()); ++i)
        if (by_index[i + 1])
          by_index[i + 1]->memory[vg].push_back({t, bytes, TileSet::Compute, "activation"});
    };
    if (!res_.at(t).off_chip) {
      // On chip: live on its IPU from the producer to the last use there; another IPU holds
      // its copy from the phase after the producer to its use.
      int last_same = prod->phase;
      for (const TensorUse& u : uses) {
        if (!u.reads || u.phase <= prod->phase) continue;
        if (u.vg == prod->vg) {
          last_same = u.phase;
        } else {
          live_in(u.vg, prod->phase + 1, u.phase);
        }
      }
      live_in(prod->vg, prod->phase, last_same);
      continue;
    }
    // Off chip: each copy lives from the phase that produced or loaded it to the last use kept
    // live from it. The phase of a load is counted where the load lands (phase_memory, the
    // loop's step buffers); a per-micro-batch product that nothing keeps only occupies the
    // loop's step buffers.
    const std::vector<bool> need = act_loads_needed(t);
    const bool step_buffers_only = x.per_micro_batch && K_ > 1;
    const bool loaded_in_loop =
        step_buffers_only && s_.activationIOSchedule == IOSchedule::OnDemand;
    struct Copy {
      int from = 0, to = 0;
      bool produced = false;
    };
    std::map<int, Copy> open;  // per virtual graph
    auto close = [&](int vg) {
      auto it = open.find(vg);
      if (it == open.end()) return;
      const Copy& c = it->second;
      if (c.produced && (c.to > c.from || !step_buffers_only)) live_in(vg, c.from, c.to);
      // A copy loaded per micro-batch by the loop holds all its slices from the loading phase
      // on once something keeps it; a phase-level load is counted there by phase_memory.
      if (!c.produced && c.to > c.from) live_in(vg, c.from + (loaded_in_loop ? 0 : 1), c.to);
      open.erase(it);
    };
    for (std::size_t i = 0; i < uses.size(); ++i) {
      const TensorUse& u = uses[i];
      if (u.phase < prod->phase) continue;
      if (u.writes) {
        close(u.vg);
        open[u.vg] = {u.phase, u.phase, true};
      } else if (need[i]) {
        close(u.vg);
        open[u.vg] = {u.phase, u.phase, false};
      } else if (open.count(u.vg)) {
        open[u.vg].to = u.phase;
      }
    }
    while (!open.empty()) close(open.begin()->first);
  }
}

void Lowerer::resident(int rep) {
  for (const auto& [t, uses] : uses_) {
    const Tensor& x = model_->tensor(t);
    if (x.kind == TensorKind::Activation || x.kind == TensorKind::Gradient || res_.at(t).off_chip ||
        uses.empty())
      continue;
    // Without accumulationFactor repeats an accumulator lives only in its backward phase.
    if (x.kind == TensorKind::Accumulator && s_.accumulationFactor <= 1) continue;
    // The full weight is counted in its use phases; the resident copy is the shard elsewhere.
    const int vg = uses.front().vg;
    for (LPhase& ph : prog_.phases) {
      if (ph.repetition != rep) continue;
      bool used = false;
      for (const TensorUse& u : uses) used = used || (u.phase == ph.index && u.vg == vg);
      if (!used)
        ph.memory[vg].push_back(
            {t, res_.at(t).shard_bytes, res_.at(t).storage, to_string(x.kind) + " (resident)"});
    }
  }
}

void Lowerer::remote_buffers() {
  std::set<std::pair<std::string, int>> seen;
  for (const auto& [t, uses] : tensor_uses(full_)) {
    const Tensor& x = full_.tensor(t);
    if (x.kind == TensorKind::Gradient || !res_.at(t).off_chip || uses.empty()) continue;
    const std::uint64_t b = x.kind == TensorKind::Activation
                                ? x.bytes() * (x.per_micro_batch ? K_ : 1)
                                : res_.at(t).shard_bytes;
    // Activation buffers are live from their producer to their last use (popxl reuses rows).
    const bool act = x.kind == TensorKind::Activation;
    if (seen.insert({t, uses.front().vg}).second)
      prog_.remote_buffers.push_back(
          {t, uses.front().vg, b, act ? uses.front().phase : -1, act ? uses.back().phase : -1});
  }
  // An IpuCopied activation stored on the reader's IPU has a buffer of its own there (uses_
  // and copy_dests_ are the last repetition's, which is the full model).
  for (const auto& [t, dests] : copy_dests_) {
    const Tensor& x = full_.tensor(t);
    for (int d : dests) {
      if (activation_store_phase(t, d) < 0 || !seen.insert({t, d}).second) continue;
      int first = -1, last = -1;
      for (const TensorUse& u : uses_.at(t)) {
        if (u.vg != d) continue;
        if (first < 0) first = u.phase;
        last = u.phase;
      }
      prog_.remote_buffers.push_back({t, d, x.bytes() * (x.per_micro_batch ? K_ : 1), first, last});
    }
  }
}

}  // namespace ipusim::rt::lower
