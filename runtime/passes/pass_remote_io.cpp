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

bool kept_live(int q, int p, int stages) { return q < p && p - q <= stages; }

std::vector<IoPlacement> place_remote_io(const Model& model, const std::map<std::string, ResolvedTensor>& resolved,
                                         const SessionOptions& session) {
  std::vector<IoPlacement> out;
  for (const auto& [name, uses] : tensor_uses(model)) {
    const Tensor& t = model.tensor(name);
    if (t.kind == TensorKind::Activation || t.kind == TensorKind::Gradient) continue;
    if (!resolved.at(name).off_chip) continue;
    const IOSchedule sched = session.io_schedule_for(t.kind);
    for (std::size_t i = 0; i < uses.size(); ++i) {
      const TensorUse& u = uses[i];
      // The previous use on the same IPU decides whether this use needs a load.
      int prev = -1000000;
      for (std::size_t j = 0; j < i; ++j)
        if (uses[j].vg == u.vg) prev = uses[j].phase;
      if (!kept_live(prev, u.phase, session.stages)) {
        const int at = sched == IOSchedule::Preload ? u.phase - 1 : u.phase;
        out.push_back({name, false, at, u.vg, u.phase, sched});
      }
      if (!u.writes) continue;
      // Store at the last write of a run of kept uses: defer while the next use on this
      // IPU keeps the tensor live and writes it again.
      bool later_write = false;
      int last = u.phase;
      for (std::size_t j = i + 1; j < uses.size(); ++j) {
        if (uses[j].vg != u.vg) continue;
        if (!kept_live(last, uses[j].phase, session.stages)) break;
        if (uses[j].writes) {
          later_write = true;
          break;
        }
        last = uses[j].phase;
      }
      if (!later_write) out.push_back({name, true, u.phase, u.vg, u.phase, sched});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const IoPlacement& a, const IoPlacement& b) {
    return a.phase != b.phase ? a.phase < b.phase : a.vg < b.vg;
  });
  return out;
}

}  // namespace ipusim::rt
