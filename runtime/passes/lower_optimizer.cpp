// Lowering: gradient reduction (ReduceScatter + complementary AllReduce, or data-parallel
// AllReduce) and the optimizer step in Interleaving or Batch order (see lowerer.hpp).
#include <array>

#include "runtime/passes/lowerer.hpp"

namespace ipusim::rt::lower {

int Lowerer::optimizer(int p, int v, int tail, const std::vector<LTransfer>& opt_loads,
                       std::set<std::string>& stored) {
  std::vector<const ModelOp*> opts;
  for (const ModelOp* o : ops_at(p, v))
    if (o->pass == Pass::Optimizer) opts.push_back(o);
  if (opts.empty()) return tail;
  // Per weight, five steps: load state, reduce gradient, update, gather, store.
  std::vector<std::array<std::vector<LOp>, 5>> bundles;
  for (const ModelOp* o : opts) {
    std::array<std::vector<LOp>, 5> b;
    const std::string& w = o->inputs[0];
    const ResolvedTensor& rw = res_.at(w);
    const Tensor& wt = model_->tensor(w);
    const ResolvedTensor* shard = rw.sharded ? &rw : nullptr;
    for (const auto& t : o->inputs) {
      const Tensor& x = model_->tensor(t);
      if (!shard && x.kind == TensorKind::OptimizerState && res_.at(t).sharded) shard = &res_.at(t);
      if (x.kind == TensorKind::Gradient) mem(v, t, x.bytes(), TileSet::Compute, "gradient");
    }
    std::map<Lane, std::vector<LTransfer>> loads;
    for (const auto& tr : opt_loads)
      if (std::find(o->inputs.begin(), o->inputs.end(), tr.tensor) != o->inputs.end())
        loads[lane_of(res_.at(tr.tensor).load)].push_back(tr);
    for (auto& [lane, trs] : loads) {
      b[0].push_back(exchange(lane, v, trs, "load optimizer state"));
      if (lane == Lane::IoPhase)
        for (LOp& c : io_copy_ops(v, trs, true, "optimizer state")) b[0].push_back(std::move(c));
    }
    const std::uint64_t n = wt.elements();
    if (shard) {
      b[1].push_back(collective(coll::CollectiveOp::ReduceScatter, *shard->shard_group, n, wt.dtype,
                                v, "gradient reduce-scatter", {w + "/grad"}));
      if (shard->complementary)
        b[1].push_back(collective(coll::CollectiveOp::AllReduce, *shard->complementary,
                                  shard->shard_elems, wt.dtype, v,
                                  "complementary gradient all-reduce", {w + "/grad"}));
    } else if (rw.variable_group && R() > 1) {
      b[1].push_back(collective(coll::CollectiveOp::AllReduce, *rw.variable_group, n, wt.dtype, v,
                                "gradient all-reduce", {w + "/grad"}));
    }
    const double frac = shard ? static_cast<double>(shard->shard_elems) /
                                    static_cast<double>(std::max<std::uint64_t>(1, n))
                              : 1.0;
    // A sharded weight's LAMB norms are norms of its shard: each FP32 scalar all-reduced over
    // the sharding domain before the update (ModelOp::sharded_norms).
    if (shard)
      for (std::uint32_t j = 0; j < o->sharded_norms; ++j)
        b[2].push_back(collective(coll::CollectiveOp::AllReduce, *shard->shard_group, 1,
                                  DType::Float32, v, "LAMB norm all-reduce", {w}));
    LOp u;
    u.kind = LKind::Compute;
    u.unit = ComputeUnit::Vector;
    u.vg = v;
    u.dtype = o->dtype;
    u.flops = o->flops * frac;
    u.mem_bytes = static_cast<std::uint64_t>(static_cast<double>(o->bytes) * frac);
    u.scalar_reductions = o->scalar_reductions;
    u.chained_ops = o->chained_ops;
    u.label = "optimizer update";
    u.role = "optimizer";
    u.tensors = {w};
    b[2].push_back(u);
    if (shard && !rw.sharded)
      b[3].push_back(collective(coll::CollectiveOp::AllGather, *shard->shard_group,
                                shard->shard_elems, wt.dtype, v, "gather updated weight", {w}));
    std::map<Lane, std::vector<LTransfer>> st;
    for (const IoPlacement* ppl : placements_at(p, v)) {
      const IoPlacement& pl = *ppl;
      if (!pl.store) continue;
      if (std::find(o->outputs.begin(), o->outputs.end(), pl.tensor) == o->outputs.end()) continue;
      st[lane_of(res_.at(pl.tensor).load)].push_back(
          {pl.tensor, loaded_bytes(pl.tensor), true, pl.schedule, p});
      stored.insert(pl.tensor);
    }
    for (auto& [lane, trs] : st) {
      if (lane == Lane::IoPhase)
        for (LOp& c : io_copy_ops(v, trs, false, "optimizer outputs")) b[4].push_back(std::move(c));
      b[4].push_back(exchange(lane, v, trs, "store"));
    }
    bundles.push_back(std::move(b));
  }
  std::vector<int> prev = tail >= 0 ? std::vector<int>{tail} : std::vector<int>{};
  auto emit = [&](std::vector<LOp> ops) {
    std::vector<int> now;
    int chain = -1;
    for (LOp& op : ops) {
      op.deps = prev;
      if (chain >= 0) op.deps.push_back(chain);  // copies follow their exchange
      chain = add(op);
      now.push_back(chain);
    }
    if (!now.empty()) prev = now;
  };
  if (s_.schedule == PhaseSchedule::Interleaving) {
    for (auto& b : bundles)
      for (auto& step : b) emit(step);
  } else {
    // Batch / BatchClusteredIO: each step for all weights before the next step.
    for (int k = 0; k < 5; ++k) {
      std::vector<LOp> merged;
      for (auto& b : bundles) {
        for (LOp& op : b[k]) {
          auto same = std::find_if(merged.begin(), merged.end(), [&](const LOp& m) {
            return m.kind == op.kind && m.lane == op.lane && m.to_compute == op.to_compute &&
                   m.cop == op.cop && m.dtype == op.dtype &&
                   (m.group ? m.group->str() : "") == (op.group ? op.group->str() : "") &&
                   m.role == op.role;
          });
          if (same == merged.end()) {
            merged.push_back(op);
            continue;
          }
          same->bytes += op.bytes;
          same->elements += op.elements;
          same->flops += op.flops;
          same->mem_bytes += op.mem_bytes;
          same->transfers.insert(same->transfers.end(), op.transfers.begin(), op.transfers.end());
          same->tensors.insert(same->tensors.end(), op.tensors.begin(), op.tensors.end());
        }
      }
      emit(merged);
    }
  }
  int t = tail;
  for (int i = static_cast<int>(cur_->ops.size()) - 1; i >= 0; --i)
    if (cur_->ops[i].lane == Lane::Compute && cur_->ops[i].vg == v) {
      t = i;
      break;
    }
  return t;
}

}  // namespace ipusim::rt::lower
