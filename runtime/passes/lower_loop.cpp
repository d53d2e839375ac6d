// Lowering: the batch-serialised loop (popart_semantics.md E34) and the per-micro-batch
// activations it loads and stores (see lowerer.hpp).
#include "runtime/passes/lowerer.hpp"
#include "runtime/passes/pass_batch_loop.hpp"

namespace ipusim::rt::lower {

int Lowerer::loop(int p, int v, const std::vector<int>& ready) {
  std::vector<const ModelOp*> body;
  std::uint64_t temp = 0;
  for (const ModelOp* o : ops_at(p, v)) {
    if (o->per_micro_batch && o->pass != Pass::Optimizer) body.push_back(o);
    temp = std::max(temp, o->temp_bytes);
  }
  mem(v, "(working memory)", temp, TileSet::Compute, "temporary");
  if (body.empty()) return ready.empty() ? -1 : ready.back();
  const bool preload_acts = s_.activationIOSchedule == IOSchedule::Preload;
  // The loop moves the per-micro-batch activations; whole-batch ones move at phase level.
  auto whole = [&](const std::string& t) { return !model_->tensor(t).per_micro_batch; };
  std::vector<std::string> loads =
      preload_acts ? std::vector<std::string>{} : activation_loads(p, v);
  std::vector<std::string> stores = activation_stores(p, v);
  loads.erase(std::remove_if(loads.begin(), loads.end(), whole), loads.end());
  stores.erase(std::remove_if(stores.begin(), stores.end(), whole), stores.end());
  bool io = false;
  for (const auto& t : loads) io = io || res_.at(t).load == TileSet::Io;
  for (const auto& t : stores) io = io || res_.at(t).load == TileSet::Io;
  const Lane act_lane = io ? Lane::Io : Lane::Compute;
  std::uint64_t load_bytes = 0, store_bytes = 0;
  for (const auto& t : loads) load_bytes += model_->tensor(t).bytes();
  for (const auto& t : stores) store_bytes += model_->tensor(t).bytes();
  const bool overlapped = io && s_.batchSchedule != BatchSchedule::Isomorphic &&
                          s_.batchSchedule != BatchSchedule::Scheduler;
  if (io)
    mem(v, "(activation IO buffers)", (load_bytes + store_bytes) * (overlapped ? 2 : 1),
        TileSet::Io, "io_buffer");
  mem(v, "(activation step buffers)", load_bytes + store_bytes, TileSet::Compute, "activation");
  // Activations read in this phase but kept live (same IPU) are accounted by live_activations().

  const std::vector<LoopItem> items =
      batch_loop_order(s_.batchSchedule, static_cast<int>(K_), io, !loads.empty(), !stores.empty());
  std::vector<int> last_of(items.size(), -1);
  int last_compute = ready.empty() ? -1 : ready.back();
  auto transfers = [&](const std::vector<std::string>& ts, bool store, int step) {
    std::vector<LTransfer> out;
    for (const auto& t : ts)
      out.push_back({t + "[" + std::to_string(step) + "]", model_->tensor(t).bytes(), store,
                     store ? IOSchedule::OnDemand : s_.activationIOSchedule, p});
    return out;
  };
  for (std::size_t i = 0; i < items.size(); ++i) {
    const LoopItem& it = items[i];
    std::vector<int> deps;
    for (int d : it.deps) deps.push_back(last_of[d]);
    const std::string step = "[" + std::to_string(it.step) + "]";
    switch (it.type) {
      case LoopItem::Load: {
        LOp x = exchange(act_lane, v, transfers(loads, false, it.step), "load activations" + step);
        x.micro_batch = it.step;
        x.deps = deps;
        last_of[i] = add(x);
        break;
      }
      case LoopItem::Store: {
        LOp x = exchange(act_lane, v, transfers(stores, true, it.step), "store activations" + step);
        x.micro_batch = it.step;
        x.deps = deps;
        last_of[i] = add(x);
        break;
      }
      case LoopItem::Exchange: {
        std::vector<LTransfer> tr = transfers(stores, true, it.step);
        for (auto& t : transfers(loads, false, it.load_step)) tr.push_back(t);
        LOp x =
            exchange(act_lane, v, tr,
                     "exchange: store" + step + " + load[" + std::to_string(it.load_step) + "]");
        x.micro_batch = it.step;
        x.deps = deps;
        last_of[i] = add(x);
        break;
      }
      case LoopItem::CopyIn:
      case LoopItem::CopyOut: {
        // One IoTileCopy per tensor of this micro-batch (E34: IoCopy->IO0 x2 for two stores).
        const bool in = it.type == LoopItem::CopyIn;
        std::vector<std::pair<std::string, std::uint64_t>> items;
        for (const auto& t : in ? loads : stores)
          items.push_back({t + step, model_->tensor(t).bytes()});
        for (int c : io_copies(v, items, in, "activation", deps)) {
          cur_->ops[c].micro_batch = it.step;
          last_of[i] = c;
        }
        break;
      }
      case LoopItem::Compute: {
        bool first = true;
        for (const ModelOp* o : body) {
          LOp x = from_model(*o, v, it.step);
          if (first) {
            x.deps = deps;
            if (it.step == 0) x.deps.insert(x.deps.end(), ready.begin(), ready.end());
            first = false;
          }
          last_of[i] = add(x);
        }
        last_compute = last_of[i];
        break;
      }
    }
  }
  return last_compute;
}

std::vector<std::string> Lowerer::activation_loads(int p, int v) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const ModelOp* o : ops_at(p, v)) {
    if (!o->per_micro_batch) continue;
    for (const std::string& t : o->inputs) {
      const Tensor& x = model_->tensor(t);
      if (x.kind != TensorKind::Activation || !res_.at(t).off_chip || seen.count(t)) continue;
      seen.insert(t);
      const auto& uses = uses_.at(t);
      const auto prod =
          std::find_if(uses.begin(), uses.end(), [](const TensorUse& u) { return u.writes; });
      if (prod == uses.end()) continue;  // an input with no producer: nothing to load
      if (prod->phase == p) continue;
      const int i = use_index(t, p, v);
      if (i >= 0 && act_loads_needed(t)[static_cast<std::size_t>(i)]) out.push_back(t);
    }
  }
  return out;
}

std::vector<std::string> Lowerer::activation_stores(int p, int v) {
  std::vector<std::string> out;
  auto consider = [&](const std::string& t) {
    if (std::find(out.begin(), out.end(), t) == out.end() && activation_store_phase(t, v) == p)
      out.push_back(t);
  };
  for (const ModelOp* o : ops_at(p, v)) {
    for (const std::string& t : o->inputs) consider(t);
    for (const std::string& t : o->outputs) consider(t);
  }
  return out;
}

int Lowerer::activation_store_phase(const std::string& t, int vg) const {
  const Tensor& x = model_->tensor(t);
  if (x.kind != TensorKind::Activation || !res_.at(t).off_chip) return -1;
  const auto& uses = uses_.at(t);
  const std::vector<bool> need = act_loads_needed(t);
  std::set<int> holders;  // virtual graphs with a copy of their own (produced or IpuCopied)
  for (const TensorUse& u : uses)
    if (u.writes) holders.insert(u.vg);
  const auto writer = std::find_if(uses.begin(), uses.end(),
                                   [&](const TensorUse& u) { return u.writes && u.vg == vg; });
  if (writer == uses.end()) return -1;
  const bool producer =
      writer == std::find_if(uses.begin(), uses.end(), [](const TensorUse& u) { return u.writes; });
  // Stored when a later use reloads this copy: one on this vg, or (the producer's copy) one on
  // a vg that holds none of its own.
  auto reloads_this = [&](std::size_t j) {
    return need[j] && (uses[j].vg == vg || (producer && !holders.count(uses[j].vg)));
  };
  bool reloaded = false;
  for (auto u = writer + 1; u != uses.end(); ++u)
    reloaded = reloaded || reloads_this(static_cast<std::size_t>(u - uses.begin()));
  if (!reloaded) return -1;
  // PopART stores in the producing phase and moves the store to each later consumer the copy
  // stays live for (getTensorStreamingConfig), up to the first use that reloads it. Under
  // ping-pong that use may be on the other IPU in the next phase, which needs the data then.
  int at = writer->phase;
  for (auto u = writer + 1; u != uses.end(); ++u) {
    const std::size_t j = static_cast<std::size_t>(u - uses.begin());
    if (reloads_this(j) || (need[j] && !holders.count(u->vg))) break;
    if (u->vg == vg && stores_in_loop(t, u->phase, u->vg)) at = u->phase;
  }
  return at;
}

bool Lowerer::stores_in_loop(const std::string& t, int p, int v) const {
  // A batch-serialised activation is stored per micro-batch by the loop of a phase whose
  // per-micro-batch ops read it; a phase that reads it only whole-batch cannot take the store.
  if (!model_->tensor(t).per_micro_batch) return true;
  for (const ModelOp* o : ops_at(p, v))
    if (o->per_micro_batch && o->pass != Pass::Optimizer &&
        std::find(o->inputs.begin(), o->inputs.end(), t) != o->inputs.end())
      return true;
  return false;
}

void Lowerer::add_copy_uses() {
  copy_dests_.clear();
  if (s_.io_mode != IoMode::Unset) return;
  const int stages = std::max(1, s_.stages);
  for (auto& [t, uses] : uses_) {
    const Tensor& x = model_->tensor(t);
    if (x.kind != TensorKind::Activation || !res_.at(t).off_chip) continue;
    const auto prod =
        std::find_if(uses.begin(), uses.end(), [](const TensorUse& u) { return u.writes; });
    if (prod == uses.end()) continue;
    const int p = prod->phase, v = prod->vg;
    std::map<int, int> first_read;  // other vg -> its first read from the producing phase on
    for (const TensorUse& u : uses)
      if (u.reads && u.vg != v && u.phase >= p && !first_read.count(u.vg))
        first_read[u.vg] = u.phase;
    std::vector<TensorUse> added;
    for (const auto& [d, q] : first_read) {
      // An inter-phase copy's output counts as produced in the next phase (the reader's IPU
      // computes then); a copy between IPUs of one phase, in the producing phase.
      const int at = p % stages != d % stages ? p + 1 : p;
      // Only a copy its first reader keeps live: a later first read loads from the producer's
      // store (PopART would store and reload the copy instead: one store more, same loads).
      if (q - at > 2) continue;
      copy_dests_[t].push_back(d);
      auto same = std::find_if(uses.begin(), uses.end(),
                               [&](const TensorUse& u) { return u.phase == at && u.vg == d; });
      if (same != uses.end()) {
        same->writes = true;
      } else {
        added.push_back({at, d, false, true});
      }
    }
    if (added.empty()) continue;
    uses.insert(uses.end(), added.begin(), added.end());
    std::sort(uses.begin(), uses.end(), [](const TensorUse& a, const TensorUse& b) {
      return a.phase != b.phase ? a.phase < b.phase : a.vg < b.vg;
    });
  }
}

std::vector<bool> Lowerer::act_loads_needed(const std::string& t) const {
  const Tensor& x = model_->tensor(t);
  KeepLive rule = keep_live_rule(s_);
  // popxl's batch_serialise stores every micro-batch of a phase's output into its x/dx buffer
  // row and the next phase loads it from there (popxl phased tutorial): nothing is kept.
  if (s_.io_mode != IoMode::Unset && x.per_micro_batch && K_ > 1) rule.never = true;
  // PopART unrolls the batch-serialised loop (BatchSerializationMethod::UnrollDynamic): each
  // micro-batch's loaded slice is a tensor of its own and stays live like any other load
  // (Test1x0S2ExecutionPhase loads one activation per backward phase, not two).
  return loads_needed(uses_.at(t), rule, true, true);
}

int Lowerer::use_index(const std::string& t, int p, int v) const {
  const auto& uses = uses_.at(t);
  for (std::size_t i = 0; i < uses.size(); ++i)
    if (uses[i].phase == p && uses[i].vg == v) return static_cast<int>(i);
  return -1;
}

}  // namespace ipusim::rt::lower
