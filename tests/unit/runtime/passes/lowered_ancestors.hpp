#pragma once
// Shared by the lowering tests: which ops an op of a lowered phase waits for.
#include <set>
#include <vector>

#include "runtime/passes/pass_lower.hpp"

namespace ipusim::rt::test {

/// Ops op i waits for, directly or not: its dependencies and the previous op on its IPU and
/// lane (the executor runs a lane's ops in program order).
inline std::set<int> ancestors(const LPhase& ph, int i) {
  std::set<int> seen;
  std::vector<int> todo = {i};
  while (!todo.empty()) {
    const int k = todo.back();
    todo.pop_back();
    std::vector<int> pred = ph.ops[k].deps;
    for (int j = k - 1; j >= 0; --j)
      if (ph.ops[j].vg == ph.ops[k].vg && ph.ops[j].lane == ph.ops[k].lane) {
        pred.push_back(j);
        break;
      }
    for (int d : pred)
      if (seen.insert(d).second) todo.push_back(d);
  }
  return seen;
}

}  // namespace ipusim::rt::test
