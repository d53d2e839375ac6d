#include "runtime/passes/pass_remote_io.hpp"

#include <algorithm>

namespace ipusim::rt {

std::map<std::string, std::vector<TensorUse>> tensor_uses(const Model& model) {
  std::map<std::string, std::vector<TensorUse>> uses;
  auto note = [&](const std::string& t, const ModelOp& op, bool write) {
    auto& v = uses[t];
    for (TensorUse& u : v) {
      if (u.phase == op.phase && u.vg == op.vgraph) {
        (write ? u.writes : u.reads) = true;
        return;
      }
    }
    v.push_back({op.phase, op.vgraph, !write, write});
  };
  for (const ModelOp& op : model.ops) {
    for (const std::string& t : op.inputs) note(t, op, false);
    for (const std::string& t : op.outputs) note(t, op, true);
  }
  for (auto& [t, v] : uses) {
    std::sort(v.begin(), v.end(), [](const TensorUse& a, const TensorUse& b) {
      return a.phase != b.phase ? a.phase < b.phase : a.vg < b.vg;
    });
  }
  return uses;
}

bool kept_live(int anchor, int p) { return anchor < p && p - anchor <= 2; }

KeepLive keep_live_rule(const SessionOptions& session) {
  if (session.io_mode == IoMode::Unset) return KeepLive{};
  KeepLive popxl;
  popxl.window = std::max(1, session.stages);
  return popxl;
}

std::vector<bool> loads_needed(const std::vector<TensorUse>& uses, const KeepLive& rule,
                               bool writes_produce, bool loads_renew) {
  std::vector<bool> need(uses.size(), false);
  std::map<int, int> anchor;  // virtual graph -> last phase that renewed the copy there
  for (std::size_t i = 0; i < uses.size(); ++i) {
    const TensorUse& u = uses[i];
    const auto it = anchor.find(u.vg);
    const bool live = !rule.never && it != anchor.end() && it->second < u.phase &&
                      u.phase - it->second <= rule.window;
    const bool produced_here = writes_produce && u.writes;
    if (!live && !produced_here && (u.reads || !writes_produce)) {
      need[i] = true;
      if (loads_renew) anchor[u.vg] = u.phase;
    }
    if (u.writes || live) anchor[u.vg] = u.phase;
  }
  return need;
}

bool served_later(const std::vector<TensorUse>& uses, const std::vector<bool>& need,
                  std::size_t i) {
  for (std::size_t j = i + 1; j < uses.size(); ++j)
    if (uses[j].vg == uses[i].vg) return !need[j];
  return false;
}

std::vector<IoPlacement> place_remote_io(const Model& model,
                                         const std::map<std::string, ResolvedTensor>& resolved,
                                         const SessionOptions& session) {
  std::vector<IoPlacement> out;
  for (const auto& [name, uses] : tensor_uses(model)) {
    const Tensor& t = model.tensor(name);
    if (t.kind == TensorKind::Activation || t.kind == TensorKind::Gradient) continue;
    if (!resolved.at(name).off_chip) continue;
    const IOSchedule sched = session.io_schedule_for(t.kind);
    const std::vector<bool> need = loads_needed(uses, keep_live_rule(session), false, true);
    std::map<int, bool> dirty;  // per virtual graph: the live copy was modified, not yet stored
    for (std::size_t i = 0; i < uses.size(); ++i) {
      const TensorUse& u = uses[i];
      if (need[i]) {
        const int at = sched == IOSchedule::Preload ? u.phase - 1 : u.phase;
        out.push_back({name, false, at, u.vg, u.phase, sched});
      }
      if (u.writes) dirty[u.vg] = true;
      if (!dirty[u.vg] || served_later(uses, need, i)) continue;
      // Stored in the last phase of the kept copy's run after its last modification (PopART
      // moves the store to each later consumer the copy stays live for).
      out.push_back({name, true, u.phase, u.vg, u.phase, sched});
      dirty[u.vg] = false;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const IoPlacement& a, const IoPlacement& b) {
    return a.phase != b.phase ? a.phase < b.phase : a.vg < b.vg;
  });
  return out;
}

}  // namespace ipusim::rt
