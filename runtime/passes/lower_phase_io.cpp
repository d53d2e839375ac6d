// Lowering: phase-level remote loads (Preload / OnDemand), RTS AllGathers and stores
// (see lowerer.hpp).
#include "runtime/passes/lowerer.hpp"

namespace ipusim::rt::lower {

std::vector<int> Lowerer::phase_loads(int p, int v, std::vector<LTransfer>& opt_loads) {
  std::vector<int> ready;
  std::set<std::string> opt_tensors;
  for (const ModelOp* o : ops_at(p, v))
    if (o->pass == Pass::Optimizer)
      for (const auto& t : o->inputs) opt_tensors.insert(t);
  // 1. Phase-level loads landing here: this phase's OnDemand ones, then the next phase's preloads.
  for (int fp : {p, p + 1}) {
    std::map<Lane, std::vector<LTransfer>> by_lane;
    for (const IoPlacement* ppl : placements_at(p, v)) {
      const IoPlacement& pl = *ppl;
      if (pl.store || pl.for_phase != fp) continue;
      const Tensor& t = model_->tensor(pl.tensor);
      LTransfer tr{pl.tensor, loaded_bytes(pl.tensor), false, pl.schedule, fp};
      if (fp == p && t.kind != TensorKind::Weight && opt_tensors.count(pl.tensor) &&
          pl.schedule == IOSchedule::OnDemand) {
        opt_loads.push_back(tr);  // OnDemand optimizer state waits for the optimizer
        continue;
      }
      by_lane[lane_of(res_.at(pl.tensor).load)].push_back(tr);
    }
    for (const std::string& t : phase_activation_loads(p, fp, v))
      by_lane[lane_of(res_.at(t).load)].push_back(
          {t, loaded_bytes(t), false, s_.activationIOSchedule, fp});
    for (auto& [lane, trs] : by_lane) {
      const std::string what = fp == p ? "load" : "preload for phase " + std::to_string(fp);
      std::vector<std::string> names;
      for (const auto& tr : trs) {
        names.push_back(tr.tensor);
        if (fp == p + 1) mem(v, tr.tensor, tr.bytes, res_.at(tr.tensor).load, "prefetch");
        if (model_->tensor(tr.tensor).kind == TensorKind::Activation)
          arrived_[{fp, v}].push_back(tr.tensor);
      }
      const int x = add(exchange(lane, v, trs, what));
      const std::vector<int> g =
          gathers(names, v, {x}, fp == p ? "gather " + what : "gather " + what);
      std::vector<int> last = g.empty() ? std::vector<int>{x} : g;
      std::vector<std::string> io_names;
      std::vector<std::pair<std::string, std::uint64_t>> io_items;
      for (const auto& n : names) {
        if (res_.at(n).load != TileSet::Io) continue;
        io_names.push_back(n);
        io_items.push_back({n, on_chip_bytes(n)});
      }
      if (fp == p) {
        if (!io_items.empty()) {
          // One copy per tensor to the compute tiles, each waiting for the load and its gathers.
          std::vector<int> deps = g;
          deps.push_back(x);
          last = io_copies(v, io_items, true, all_weights(io_names) ? "weights" : "loaded tensors",
                           deps);
        }
        ready.insert(ready.end(), last.begin(), last.end());
      } else {
        for (const auto& n : io_names) pending_copy_[{fp, v}].push_back(n);
      }
    }
  }
  // 2. IO -> compute copies of what was preloaded in the previous phase.
  auto pc = pending_copy_.find({p, v});
  if (pc != pending_copy_.end() && !pc->second.empty()) {
    std::vector<std::pair<std::string, std::uint64_t>> items;
    for (const auto& n : pc->second) items.push_back({n, on_chip_bytes(n)});
    for (int c : io_copies(v, items, true, "preloaded", {})) ready.push_back(c);
  }
  return ready;
}

std::vector<int> Lowerer::on_chip_gathers(int p, int v) {
  static const std::vector<std::string> none;
  auto it = gather_names_.find({p, v});
  return gathers(it == gather_names_.end() ? none : it->second, v, {}, "gather on-chip shards");
}

std::vector<int> Lowerer::gathers(const std::vector<std::string>& names, int v,
                                  std::vector<int> deps, const std::string& role) {
  std::map<std::pair<std::string, DType>, LOp> merged;
  for (const auto& n : names) {
    const ResolvedTensor& r = res_.at(n);
    const Tensor& t = model_->tensor(n);
    if (t.kind != TensorKind::Weight || !r.sharded) continue;
    auto key = std::make_pair(r.shard_group->str(), t.dtype);
    auto it = merged.find(key);
    if (it == merged.end()) {
      merged.emplace(key, collective(coll::CollectiveOp::AllGather, *r.shard_group, r.shard_elems,
                                     t.dtype, v, role, {n}));
    } else {
      it->second.elements += r.shard_elems;
      it->second.bytes += r.shard_bytes;
      it->second.tensors.push_back(n);
    }
  }
  std::vector<int> out;
  for (auto& [k, op] : merged) {
    op.deps = deps;
    out.push_back(add(op));
  }
  return out;
}

void Lowerer::phase_stores(int p, int v, int& tail, const std::set<std::string>& stored) {
  std::map<Lane, std::vector<LTransfer>> by_lane;
  for (const IoPlacement* ppl : placements_at(p, v)) {
    const IoPlacement& pl = *ppl;
    if (!pl.store || stored.count(pl.tensor)) continue;
    by_lane[lane_of(res_.at(pl.tensor).load)].push_back(
        {pl.tensor, loaded_bytes(pl.tensor), true, pl.schedule, p});
  }
  // Whole-batch activations are joined after the loop and stored once
  // (concatOnExecutionPhaseChange).
  for (const std::string& t : activation_stores(p, v))
    if (!model_->tensor(t).per_micro_batch)
      by_lane[lane_of(res_.at(t).load)].push_back(
          {t, loaded_bytes(t), true, IOSchedule::OnDemand, p});
  for (auto& [lane, trs] : by_lane) store_ops(v, lane, trs, tail, "store");
}

void Lowerer::store_ops(int v, Lane lane, const std::vector<LTransfer>& trs, int& tail,
                        const std::string& role) {
  int dep = tail;
  if (lane == Lane::IoPhase && !trs.empty()) {
    // One copy per tensor to the IO tiles; the store waits for the last (they queue on the
    // compute lane after `tail`).
    std::vector<std::pair<std::string, std::uint64_t>> items;
    for (const auto& t : trs) items.push_back({t.tensor, t.bytes});
    dep = io_copies(v, items, false, role, {tail}).back();
    tail = dep;
  }
  LOp x = exchange(lane, v, trs, role);
  if (dep >= 0) x.deps.push_back(dep);
  const int idx = add(x);
  if (lane == Lane::Compute) tail = idx;
}

std::vector<std::string> Lowerer::phase_activation_loads(int p, int fp, int v) {
  const bool preload = s_.activationIOSchedule == IOSchedule::Preload;
  std::vector<std::string> out;
  if (preload != (fp == p + 1)) return out;
  for (const std::string& t : activation_loads(fp, v))
    if (preload ? producer_phase(t) < p : !model_->tensor(t).per_micro_batch) out.push_back(t);
  return out;
}

}  // namespace ipusim::rt::lower
