#include "runtime/workloads/training/graph_checks.hpp"

#include <map>
#include <tuple>
#include <vector>

namespace ipusim::rt {
namespace {

/// Order of an op in the step: pass, then phase (explicit phase first, else forward phase).
std::tuple<int, int> order_key(const ModelOp& o) {
  return {static_cast<int>(o.pass), o.phase >= 0 ? o.phase : o.forward_phase};
}

std::string op_name(const Model& m, std::size_t i) {
  const std::string& n = m.ops[i].name;
  return "'" + (n.empty() ? "#" + std::to_string(i) : n) + "'";
}

GraphProblem check_cycles(const Model& m) {
  const std::size_t n = m.ops.size();
  std::map<std::string, std::vector<std::size_t>> producers;
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& t : m.ops[i].outputs) producers[t].push_back(i);
  // Edge consumer -> producer (with the tensor) when the producer is not later in the step.
  std::vector<std::vector<std::pair<std::size_t, std::string>>> deps(n);
  for (std::size_t c = 0; c < n; ++c) {
    for (const auto& t : m.ops[c].inputs) {
      auto it = producers.find(t);
      if (it == producers.end()) continue;
      for (std::size_t p : it->second)
        if (p != c && order_key(m.ops[p]) <= order_key(m.ops[c])) deps[c].push_back({p, t});
    }
  }
  // Iterative depth-first search; a grey node reached again closes a cycle.
  enum Colour : char { White, Grey, Black };
  std::vector<Colour> colour(n, White);
  std::vector<std::pair<std::size_t, std::size_t>> stack;  // (op, next edge)
  for (std::size_t root = 0; root < n; ++root) {
    if (colour[root] != White) continue;
    stack.push_back({root, 0});
    colour[root] = Grey;
    while (!stack.empty()) {
      auto& [op, next] = stack.back();
      if (next == deps[op].size()) {
        colour[op] = Black;
        stack.pop_back();
        continue;
      }
      const auto [to, tensor] = deps[op][next++];
      if (colour[to] == Black) continue;
      if (colour[to] == White) {
        colour[to] = Grey;
        stack.push_back({to, 0});
        continue;
      }
      // Cycle: stack[k + 1] writes what stack[k] reads, and `op` (the top) reads what `to`
      // writes; printed in data-flow order, to -> top -> ... -> to.
      std::size_t first = 0;
      while (stack[first].first != to) ++first;
      std::string text = op_name(m, to);
      for (std::size_t k = stack.size(); k-- > first;) text += " -> " + op_name(m, stack[k].first);
      return {"ops", "the ops' data dependencies form a cycle (" + text +
                         ": each writes a tensor the next one reads, in the same pass and phase), "
                         "so none of them can "
                         "start; break it (e.g. tensor '" +
                         tensor + "')"};
    }
  }
  return {};
}

GraphProblem check_remote_loads(const Model& m) {
  for (std::size_t i = 0; i < m.ops.size(); ++i) {
    const ModelOp& load = m.ops[i];
    if (load.type != OpType::RemoteLoad) continue;
    for (const auto& t : load.outputs) {
      const TensorKind kind = m.tensor(t).kind;
      if (kind == TensorKind::Weight || kind == TensorKind::OptimizerState ||
          kind == TensorKind::Accumulator)
        continue;
      bool stored = false;
      for (std::size_t j = 0; j < m.ops.size() && !stored; ++j) {
        const ModelOp& st = m.ops[j];
        if (st.type != OpType::RemoteStore || order_key(st) > order_key(load) ||
            (order_key(st) == order_key(load) && j > i))
          continue;
        for (const auto& x : st.inputs) stored = stored || x == t;
      }
      if (!stored) {
        return {"ops/" + std::to_string(i), "remote_load " + op_name(m, i) + " loads " +
                                                to_string(kind) + " '" + t +
                                                "', which no earlier remote_store stored (only "
                                                "weights, optimizer state and accumulators "
                                                "start in streaming memory)"};
      }
    }
  }
  return {};
}

}  // namespace

GraphProblem check_explicit_graph(const Model& model) {
  GraphProblem p = check_cycles(model);
  return p.what.empty() ? check_remote_loads(model) : p;
}

}  // namespace ipusim::rt
