// Lowering of the phased model into the per-phase program (see pass_lower.hpp).
#include "runtime/pass_lower.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "collectives/comm_group_spec.hpp"
#include "runtime/pass_batch_loop.hpp"
#include "runtime/pass_remote_io.hpp"

namespace ipusim::rt {

std::string to_string(Lane l) { return l == Lane::Compute ? "compute" : (l == Lane::Io ? "io" : "io_phase"); }

std::string to_string(LKind k) {
  switch (k) {
    case LKind::RemoteExchange: return "remote_exchange";
    case LKind::IoCopy: return "io_tile_copy";
    case LKind::Compute: return "compute";
    case LKind::Collective: return "collective";
    case LKind::IpuCopy: return "ipu_copy";
    case LKind::Host: return "host_io";
  }
  return "?";
}

namespace {

using Resolved = std::map<std::string, ResolvedTensor>;

class Lowerer {
 public:
  Lowerer(const Model& m, const PhaseLayout& L, const Resolved& r, const SessionOptions& s)
      : full_(m), L_(L), res_(r), s_(s), K_(std::max<std::uint32_t>(1, s.batchSerializationFactor)) {}

  Program run() {
    prog_.forward_phases = L_.forward_phases;
    prog_.total_phases = L_.total_phases;
    prog_.micro_batches = K_;
    const std::uint32_t A = std::max<std::uint32_t>(1, s_.accumulationFactor);
    Model no_opt = full_;
    no_opt.ops.erase(std::remove_if(no_opt.ops.begin(), no_opt.ops.end(), [](const ModelOp& o) { return o.pass == Pass::Optimizer; }),
                     no_opt.ops.end());
    for (std::uint32_t a = 0; a < A; ++a) lower_repetition(a + 1 == A ? full_ : no_opt, static_cast<int>(a));
    remote_buffers();
    return std::move(prog_);
  }

 private:
  // ---- helpers -------------------------------------------------------------------------
  int add(LOp op) {
    cur_->ops.push_back(std::move(op));
    return static_cast<int>(cur_->ops.size()) - 1;
  }
  void mem(int vg, const std::string& t, std::uint64_t bytes, TileSet ts, const std::string& what) {
    if (bytes > 0) cur_->memory[vg].push_back({t, bytes, ts, what});
  }
  Lane lane_of(TileSet load) const { return load == TileSet::Io ? Lane::IoPhase : Lane::Compute; }
  Lane collective_lane() const { return s_.collectiveTileSet == TileSet::Io ? Lane::IoPhase : Lane::Compute; }
  std::uint32_t R() const { return s_.replicatedGraphCount; }

  LOp collective(coll::CollectiveOp op, const coll::ReplicaGrouping& g, std::uint64_t elements, DType dt, int vg,
                 const std::string& role, std::vector<std::string> tensors) {
    LOp o;
    o.kind = LKind::Collective;
    o.lane = collective_lane();
    o.vg = vg;
    o.cop = op;
    o.group = g;
    o.elements = elements;
    o.dtype = dt;
    o.bytes = elements * dtype_bytes(dt);
    o.role = role;
    o.tensors = std::move(tensors);
    o.label = coll::to_string(op) + " " + role;
    return o;
  }
  LOp exchange(Lane lane, int vg, std::vector<LTransfer> tr, const std::string& role) {
    LOp o;
    o.kind = LKind::RemoteExchange;
    o.lane = lane;
    o.vg = vg;
    for (const auto& t : tr) {
      o.bytes += t.bytes;
      o.tensors.push_back(t.tensor);
    }
    o.transfers = std::move(tr);
    o.role = role;
    o.label = role;
    return o;
  }
  LOp io_copy(int vg, std::uint64_t bytes, bool to_compute, std::vector<std::string> tensors, const std::string& role) {
    LOp o;
    o.kind = LKind::IoCopy;
    o.lane = Lane::Compute;  // the exchange involves the compute tiles, so it blocks them
    o.vg = vg;
    o.bytes = bytes;
    o.to_compute = to_compute;
    o.tensors = std::move(tensors);
    o.role = role;
    o.label = to_compute ? "io_copy_to_compute " + role : "io_copy_to_io " + role;
    return o;
  }
  /// An activation stays live to a use in the next `stages` phases on the same IPU, unless
  /// it has one copy per micro-batch (batch-serialised loops store and reload each one).
  bool act_kept(const Tensor& x, int q, int p) const { return kept_live(q, p, s_.stages) && (!x.per_micro_batch || K_ == 1); }
  /// Bytes one remote transfer of `t` moves: the shard, or every micro-batch copy of an activation.
  std::uint64_t loaded_bytes(const std::string& t) const {
    const Tensor& x = full_.tensor(t);
    return x.kind == TensorKind::Activation ? x.bytes() * (x.per_micro_batch ? K_ : 1) : res_.at(t).shard_bytes;
  }
  std::uint64_t on_chip_bytes(const std::string& t) const {
    const Tensor& x = full_.tensor(t);
    if (x.kind == TensorKind::Activation) return loaded_bytes(t);
    // Sharded weights are gathered before use; sharded state is used as a shard.
    return x.kind == TensorKind::Weight ? res_.at(t).full_bytes : res_.at(t).shard_bytes;
  }

  // ---- one repetition -------------------------------------------------------------------
  void lower_repetition(const Model& m, int rep) {
    model_ = &m;
    uses_ = tensor_uses(m);
    placements_ = place_remote_io(m, res_, s_);
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
      if (p >= 0 || !ph.ops.empty()) prog_.phases.push_back(std::move(ph));
    }
    live_activations(rep);
    resident(rep);
  }

  const std::vector<const ModelOp*>& ops_at(int p, int v) {
    static const std::vector<const ModelOp*> none;
    auto it = ops_at_.find({p, v});
    return it == ops_at_.end() ? none : it->second;
  }

  void lower_phase(int p, int v) {
    std::vector<int> ready;
    std::vector<LTransfer> opt_loads;
    std::set<std::string> opt_tensors;
    for (const ModelOp* o : ops_at(p, v))
      if (o->pass == Pass::Optimizer)
        for (const auto& t : o->inputs) opt_tensors.insert(t);

    // 1. Phase-level loads landing here: this phase's OnDemand ones, then the next phase's preloads.
    for (int fp : {p, p + 1}) {
      std::map<Lane, std::vector<LTransfer>> by_lane;
      for (const IoPlacement& pl : placements_) {
        if (pl.store || pl.phase != p || pl.vg != v || pl.for_phase != fp) continue;
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
        by_lane[lane_of(res_.at(t).load)].push_back({t, loaded_bytes(t), false, s_.activationIOSchedule, fp});
      for (auto& [lane, trs] : by_lane) {
        const std::string what = fp == p ? "load" : "preload for phase " + std::to_string(fp);
        std::vector<std::string> names;
        for (const auto& tr : trs) {
          names.push_back(tr.tensor);
          if (fp == p + 1) mem(v, tr.tensor, tr.bytes, res_.at(tr.tensor).load, "prefetch");
          if (model_->tensor(tr.tensor).kind == TensorKind::Activation) arrived_[{fp, v}].push_back(tr.tensor);
        }
        const int x = add(exchange(lane, v, trs, what));
        const std::vector<int> g = gathers(names, v, {x}, fp == p ? "gather " + what : "gather " + what);
        std::vector<int> last = g.empty() ? std::vector<int>{x} : g;
        std::vector<std::string> io_names;
        std::uint64_t io_bytes = 0;
        for (const auto& n : names) {
          if (res_.at(n).load != TileSet::Io) continue;
          io_names.push_back(n);
          io_bytes += on_chip_bytes(n);
        }
        if (fp == p) {
          if (!io_names.empty()) {
            // The copy to the compute tiles waits for the load and its gathers.
            LOp c = io_copy(v, io_bytes, true, io_names, all_weights(io_names) ? "weights" : "loaded tensors");
            c.deps = g;
            c.deps.push_back(x);
            last = {add(c)};
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
      std::uint64_t b = 0;
      for (const auto& n : pc->second) b += on_chip_bytes(n);
      ready.push_back(add(io_copy(v, b, true, pc->second, "preloaded")));
    }
    // Activations loaded for this phase at phase level live on the compute tiles while it runs.
    for (const auto& t : arrived_[{p, v}]) mem(v, t, on_chip_bytes(t), TileSet::Compute, "activation");
    // On-chip sharded weights: gather the resident shard before use.
    {
      std::vector<std::string> names;
      for (const auto& [t, uses] : uses_) {
        const Tensor& x = model_->tensor(t);
        if (x.kind != TensorKind::Weight || res_.at(t).off_chip || !res_.at(t).sharded) continue;
        for (const TensorUse& u : uses)
          if (u.phase == p && u.vg == v && u.reads) names.push_back(t);
      }
      for (int g : gathers(names, v, {}, "gather on-chip shards")) ready.push_back(g);
    }
    // Memory of the tensors this phase uses.
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

    // 3. The batch-serialised loop.
    const int last_compute = loop(p, v, ready);
    int tail = last_compute;
    for (const ModelOp* o : ops_at(p, v)) {
      if (o->per_micro_batch || o->pass == Pass::Optimizer) continue;
      LOp op = from_model(*o, v, -1);
      if (tail >= 0) op.deps.push_back(tail);
      tail = add(op);
    }
    // 5. Optimizer step.
    std::set<std::string> stored;
    tail = optimizer(p, v, tail, opt_loads, stored);
    // 6. Stores of other remote tensors last written here.
    {
      std::map<Lane, std::vector<LTransfer>> by_lane;
      for (const IoPlacement& pl : placements_) {
        if (!pl.store || pl.phase != p || pl.vg != v || stored.count(pl.tensor)) continue;
        by_lane[lane_of(res_.at(pl.tensor).load)].push_back({pl.tensor, loaded_bytes(pl.tensor), true, pl.schedule, p});
      }
      // Whole-batch activations are joined after the loop and stored once (concatOnExecutionPhaseChange).
      for (const std::string& t : activation_stores(p, v))
        if (!model_->tensor(t).per_micro_batch)
          by_lane[lane_of(res_.at(t).load)].push_back({t, loaded_bytes(t), true, IOSchedule::OnDemand, p});
      for (auto& [lane, trs] : by_lane) store_ops(v, lane, trs, tail, "store");
    }
    // 7. Ping-pong: on-chip activations consumed on another IPU are copied at the end.
    for (const ModelOp* o : ops_at(p, v)) {
      for (const std::string& t : o->outputs) {
        const Tensor& x = model_->tensor(t);
        if (x.kind != TensorKind::Activation || res_.at(t).off_chip) continue;
        for (const TensorUse& u : uses_.at(t)) {
          if (u.phase <= p || u.vg == v || !u.reads) continue;
          LOp c;
          c.kind = LKind::IpuCopy;
          c.lane = Lane::Compute;
          c.vg = v;
          c.dst_vg = u.vg;
          c.bytes = x.bytes() * (x.per_micro_batch ? K_ : 1);
          c.tensors = {t};
          c.role = "inter-phase copy to vgraph " + std::to_string(u.vg);
          c.label = "ipu_copy " + t;
          if (tail >= 0) c.deps.push_back(tail);
          add(c);
          break;
        }
      }
    }
    // 8. Preloaded activations of the next phase.
    if (s_.activationIOSchedule == IOSchedule::Preload) {
      std::vector<LTransfer> trs;
      for (const std::string& t : activation_loads(p + 1, v)) {
        if (producer_phase(t) < p) continue;  // stored earlier: preloaded at the start of this phase
        trs.push_back({t, loaded_bytes(t), false, IOSchedule::Preload, p + 1});
        mem(v, t, loaded_bytes(t), res_.at(t).load, "prefetch");
        arrived_[{p + 1, v}].push_back(t);
        if (res_.at(t).load == TileSet::Io) pending_copy_[{p + 1, v}].push_back(t);
      }
      if (!trs.empty()) add(exchange(lane_of(res_.at(trs[0].tensor).load), v, trs, "preload activations for phase " + std::to_string(p + 1)));
    }
  }

  /// AllGathers of the sharded weights among `names`, merged per (group, dtype).
  std::vector<int> gathers(const std::vector<std::string>& names, int v, std::vector<int> deps, const std::string& role) {
    std::map<std::pair<std::string, DType>, LOp> merged;
    for (const auto& n : names) {
      const ResolvedTensor& r = res_.at(n);
      const Tensor& t = model_->tensor(n);
      if (t.kind != TensorKind::Weight || !r.sharded) continue;
      auto key = std::make_pair(r.shard_group->str(), t.dtype);
      auto it = merged.find(key);
      if (it == merged.end()) {
        merged.emplace(key, collective(coll::CollectiveOp::AllGather, *r.shard_group, r.shard_elems, t.dtype, v, role, {n}));
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

  /// True if every name is a weight.
  bool all_weights(const std::vector<std::string>& names) const {
    return std::all_of(names.begin(), names.end(), [&](const std::string& n) { return full_.tensor(n).kind == TensorKind::Weight; });
  }

  /// True if phase p on vg v lies strictly between two uses there that keep the tensor live
  /// (ping-pong: the phase of the other IPU), so it stays in SRAM instead of being reloaded.
  bool kept_across(const std::vector<TensorUse>& uses, int p, int v) const {
    int before = -1000000, after = -1;
    for (const TensorUse& u : uses) {
      if (u.vg != v) continue;
      if (u.phase == p) return false;
      if (u.phase < p) before = u.phase;
      if (u.phase > p && after < 0) after = u.phase;
    }
    return after >= 0 && kept_live(before, after, s_.stages);
  }

  /// Phase of the first op writing `t` (-1 if none).
  int producer_phase(const std::string& t) const {
    for (const TensorUse& u : uses_.at(t))
      if (u.writes) return u.phase;
    return -1;
  }

  /// Activations loaded at phase level in phase p for phase fp: whole-batch OnDemand loads
  /// (fp = p), or preloads (fp = p + 1) of data stored before p, which are ready at its start.
  std::vector<std::string> phase_activation_loads(int p, int fp, int v) {
    const bool preload = s_.activationIOSchedule == IOSchedule::Preload;
    std::vector<std::string> out;
    if (preload != (fp == p + 1)) return out;
    for (const std::string& t : activation_loads(fp, v))
      if (preload ? producer_phase(t) < p : !model_->tensor(t).per_micro_batch) out.push_back(t);
    return out;
  }

  /// Off-chip activations phase p on vg v must load (not produced here, not kept live).
  std::vector<std::string> activation_loads(int p, int v) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const ModelOp* o : ops_at(p, v)) {
      if (!o->per_micro_batch) continue;
      for (const std::string& t : o->inputs) {
        const Tensor& x = model_->tensor(t);
        if (x.kind != TensorKind::Activation || !res_.at(t).off_chip || seen.count(t)) continue;
        seen.insert(t);
        const auto& uses = uses_.at(t);
        const auto prod = std::find_if(uses.begin(), uses.end(), [](const TensorUse& u) { return u.writes; });
        if (prod == uses.end()) continue;  // an input with no producer: nothing to load
        if (prod->phase == p || (prod->vg == v && act_kept(x, prod->phase, p))) continue;
        out.push_back(t);
      }
    }
    return out;
  }

  /// Off-chip activations produced in phase p on vg v that a later, not-kept use needs.
  std::vector<std::string> activation_stores(int p, int v) {
    std::vector<std::string> out;
    for (const ModelOp* o : ops_at(p, v)) {
      for (const std::string& t : o->outputs) {
        const Tensor& x = model_->tensor(t);
        if (x.kind != TensorKind::Activation || !res_.at(t).off_chip) continue;
        for (const TensorUse& u : uses_.at(t)) {
          if (!u.reads || u.phase == p || (u.vg == v && act_kept(x, p, u.phase))) continue;
          if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
        }
      }
    }
    return out;
  }

  LOp from_model(const ModelOp& o, int v, int step) {
    LOp op;
    op.vg = v;
    op.micro_batch = step;
    op.label = o.name;
    op.role = to_string(o.pass);
    op.dtype = o.dtype;
    switch (o.type) {
      case OpType::Compute:
        op.kind = LKind::Compute;
        op.flops = o.flops;
        op.mem_bytes = o.bytes;
        op.unit = o.unit;
        break;
      case OpType::Collective: {
        const coll::ReplicaGrouping g = coll::parse_comm_group_spec(o.comm_group).toReplicaGrouping(R());
        op = collective(coll::parse_collective_op(o.collective_op), g, o.collective_bytes / dtype_bytes(o.dtype), o.dtype, v,
                        o.name, {});
        op.lane = Lane::Compute;  // tensor-parallel collectives sit in the compute graph
        op.micro_batch = step;
        op.label = o.name;
        break;
      }
      case OpType::HostLoad:
      case OpType::HostStore:
        op.kind = LKind::Host;
        op.bytes = o.collective_bytes;
        op.to_compute = o.type == OpType::HostLoad;
        break;
      case OpType::RemoteLoad:
      case OpType::RemoteStore: {
        const std::string t = o.inputs.empty() ? (o.outputs.empty() ? o.name : o.outputs[0]) : o.inputs[0];
        op = exchange(Lane::Compute, v, {{t, o.collective_bytes, o.type == OpType::RemoteStore, IOSchedule::OnDemand, 0}}, o.name);
        op.micro_batch = step;
        break;
      }
    }
    return op;
  }

  /// Emits the loop; returns the index of its last compute-lane op (or the last ready op).
  int loop(int p, int v, const std::vector<int>& ready) {
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
    std::vector<std::string> loads = preload_acts ? std::vector<std::string>{} : activation_loads(p, v);
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
    const bool overlapped = io && s_.batchSchedule != BatchSchedule::Isomorphic && s_.batchSchedule != BatchSchedule::Scheduler;
    if (io) mem(v, "(activation IO buffers)", (load_bytes + store_bytes) * (overlapped ? 2 : 1), TileSet::Io, "io_buffer");
    mem(v, "(activation step buffers)", load_bytes + store_bytes, TileSet::Compute, "activation");
    // Activations read in this phase but kept live (same IPU) are accounted by live_activations().

    const std::vector<LoopItem> items = batch_loop_order(s_.batchSchedule, static_cast<int>(K_), io, !loads.empty(), !stores.empty());
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
          LOp x = exchange(act_lane, v, tr, "exchange: store" + step + " + load[" + std::to_string(it.load_step) + "]");
          x.micro_batch = it.step;
          x.deps = deps;
          last_of[i] = add(x);
          break;
        }
        case LoopItem::CopyIn:
        case LoopItem::CopyOut: {
          const bool in = it.type == LoopItem::CopyIn;
          LOp x = io_copy(v, in ? load_bytes : store_bytes, in, in ? loads : stores, "activations" + step);
          x.micro_batch = it.step;
          x.deps = deps;
          last_of[i] = add(x);
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

  void store_ops(int v, Lane lane, const std::vector<LTransfer>& trs, int& tail, const std::string& role) {
    std::vector<std::string> io_names;
    std::uint64_t io_bytes = 0;
    for (const auto& t : trs)
      if (lane == Lane::IoPhase) {
        io_names.push_back(t.tensor);
        io_bytes += t.bytes;
      }
    int dep = tail;
    if (!io_names.empty()) {
      LOp c = io_copy(v, io_bytes, false, io_names, role);
      if (tail >= 0) c.deps.push_back(tail);
      dep = add(c);
      tail = dep;
    }
    LOp x = exchange(lane, v, trs, role);
    if (dep >= 0) x.deps.push_back(dep);
    const int idx = add(x);
    if (lane == Lane::Compute) tail = idx;
  }

  /// Gradient reduction, optimizer-state loads, update and stores; returns the new tail.
  int optimizer(int p, int v, int tail, const std::vector<LTransfer>& opt_loads, std::set<std::string>& stored) {
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
        if (lane == Lane::IoPhase) {
          std::uint64_t bytes = 0;
          std::vector<std::string> names;
          for (const auto& t : trs) {
            bytes += t.bytes;
            names.push_back(t.tensor);
          }
          b[0].push_back(io_copy(v, bytes, true, names, "optimizer state"));
        }
      }
      const std::uint64_t n = wt.elements();
      if (shard) {
        b[1].push_back(collective(coll::CollectiveOp::ReduceScatter, *shard->shard_group, n, wt.dtype, v, "gradient reduce-scatter", {w + "/grad"}));
        if (shard->complementary)
          b[1].push_back(collective(coll::CollectiveOp::AllReduce, *shard->complementary, shard->shard_elems, wt.dtype, v,
                                    "complementary gradient all-reduce", {w + "/grad"}));
      } else if (rw.variable_group && R() > 1) {
        b[1].push_back(collective(coll::CollectiveOp::AllReduce, *rw.variable_group, n, wt.dtype, v, "gradient all-reduce", {w + "/grad"}));
      }
      const double frac = shard ? static_cast<double>(shard->shard_elems) / static_cast<double>(std::max<std::uint64_t>(1, n)) : 1.0;
      LOp u;
      u.kind = LKind::Compute;
      u.unit = ComputeUnit::Vector;
      u.vg = v;
      u.dtype = o->dtype;
      u.flops = o->flops * frac;
      u.mem_bytes = static_cast<std::uint64_t>(static_cast<double>(o->bytes) * frac);
      u.label = "optimizer update";
      u.role = "optimizer";
      u.tensors = {w};
      b[2].push_back(u);
      if (shard && !rw.sharded)
        b[3].push_back(collective(coll::CollectiveOp::AllGather, *shard->shard_group, shard->shard_elems, wt.dtype, v,
                                  "gather updated weight", {w}));
      std::map<Lane, std::vector<LTransfer>> st;
      for (const IoPlacement& pl : placements_) {
        if (!pl.store || pl.phase != p || pl.vg != v) continue;
        if (std::find(o->outputs.begin(), o->outputs.end(), pl.tensor) == o->outputs.end()) continue;
        st[lane_of(res_.at(pl.tensor).load)].push_back({pl.tensor, loaded_bytes(pl.tensor), true, pl.schedule, p});
        stored.insert(pl.tensor);
      }
      for (auto& [lane, trs] : st) {
        if (lane == Lane::IoPhase) {
          std::uint64_t bytes = 0;
          std::vector<std::string> names;
          for (const auto& t : trs) {
            bytes += t.bytes;
            names.push_back(t.tensor);
          }
          b[4].push_back(io_copy(v, bytes, false, names, "optimizer outputs"));
        }
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
              return m.kind == op.kind && m.lane == op.lane && m.to_compute == op.to_compute && m.cop == op.cop &&
                     m.dtype == op.dtype && (m.group ? m.group->str() : "") == (op.group ? op.group->str() : "") &&
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

  /// On-chip activation memory: live from the producing phase to the last kept use.
  void live_activations(int rep) {
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

  /// On-chip weights, states and accumulators stay resident (the shard when sharded).
  void resident(int rep) {
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

  void remote_buffers() {
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

  const Model& full_;
  const Model* model_ = nullptr;
  const PhaseLayout& L_;
  const Resolved& res_;
  const SessionOptions& s_;
  std::uint32_t K_;
  Program prog_;
  LPhase* cur_ = nullptr;
  std::map<std::string, std::vector<TensorUse>> uses_;
  std::vector<IoPlacement> placements_;
  std::map<std::pair<int, int>, std::vector<const ModelOp*>> ops_at_;
  std::map<std::pair<int, int>, std::vector<std::string>> pending_copy_;
  std::map<std::pair<int, int>, std::vector<std::string>> arrived_;  ///< activations loaded for (phase, vg)
};

}  // namespace

Program lower_program(const Model& model, const PhaseLayout& layout, const std::map<std::string, ResolvedTensor>& resolved,
                      const SessionOptions& session) {
  return Lowerer(model, layout, resolved, session).run();
}

}  // namespace ipusim::rt
