// Lowering: transfers between the IPUs of a phase under ping-pong (popart_semantics.md
// §3.1): inter-phase IpuCopies of activations read later on another IPU (off-chip ones too,
// see Lowerer::add_copy_uses), and the preloads of off-chip activations, which wait for
// their stores (see lowerer.hpp).
#include "runtime/passes/lowerer.hpp"

namespace ipusim::rt::lower {

void Lowerer::ipu_copies(int p, int v, int tail) {
  for (const ModelOp* o : ops_at(p, v)) {
    for (const std::string& t : o->outputs) {
      const Tensor& x = model_->tensor(t);
      if (x.kind != TensorKind::Activation) continue;
      auto copy = [&](int dst, const std::string& kind) {
        LOp c;
        c.kind = LKind::IpuCopy;
        c.lane = Lane::Compute;
        c.vg = v;
        c.dst_vg = dst;
        c.bytes = x.bytes() * (x.per_micro_batch ? K_ : 1);
        c.tensors = {t};
        c.role = kind + " copy to vgraph " + std::to_string(dst);
        c.label = "ipu_copy " + t;
        if (tail >= 0) c.deps.push_back(tail);
        add(c);
      };
      if (res_.at(t).off_chip) {
        auto it = copy_dests_.find(t);
        const int stages = std::max(1, s_.stages);
        if (it != copy_dests_.end())
          for (int d : it->second)
            copy(d, p % stages != d % stages ? "inter-phase" : "intra-phase");
        continue;
      }
      for (const TensorUse& u : uses_.at(t)) {
        if (u.phase <= p || u.vg == v || !u.reads) continue;
        copy(u.vg, "inter-phase");
        break;
      }
    }
  }
}

void Lowerer::preload_next_activations(int p, int v) {
  if (s_.activationIOSchedule != IOSchedule::Preload) return;
  const std::map<std::string, std::vector<int>> stores = stores_by_tensor(*cur_);
  std::vector<LTransfer> trs;
  std::vector<int> deps;
  for (const std::string& t : activation_loads(p + 1, v)) {
    if (producer_phase(t) < p) continue;  // stored earlier: preloaded at the start of this phase
    trs.push_back({t, loaded_bytes(t), false, IOSchedule::Preload, p + 1});
    mem(v, t, loaded_bytes(t), res_.at(t).load, "prefetch");
    arrived_[{p + 1, v}].push_back(t);
    if (res_.at(t).load == TileSet::Io) pending_copy_[{p + 1, v}].push_back(t);
    auto st = stores.find(t);
    if (st != stores.end()) deps.insert(deps.end(), st->second.begin(), st->second.end());
  }
  if (trs.empty()) return;
  LOp x = exchange(lane_of(res_.at(trs[0].tensor).load), v, trs,
                   "preload activations for phase " + std::to_string(p + 1));
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  x.deps = std::move(deps);
  add(x);
}

std::map<std::string, std::vector<int>> Lowerer::stores_by_tensor(const LPhase& ph) {
  std::map<std::string, std::vector<int>> out;
  for (std::size_t i = 0; i < ph.ops.size(); ++i) {
    const LOp& op = ph.ops[i];
    if (op.kind != LKind::RemoteExchange) continue;
    for (const LTransfer& t : op.transfers) {
      if (!t.store) continue;
      std::vector<int>& v = out[t.tensor.substr(0, t.tensor.find('['))];
      if (v.empty() || v.back() != static_cast<int>(i)) v.push_back(static_cast<int>(i));
    }
  }
  return out;
}

}  // namespace ipusim::rt::lower
