// Reachable-op counts of a phase by one pass over its graph with bit sets.
#include "runtime/exec/phase_reach.hpp"

#include <bitset>

namespace ipusim::rt {

PhaseReach phase_reach(const std::vector<std::vector<std::size_t>>& waiters,
                       const std::vector<std::uint8_t>& cls, std::size_t max_bytes) {
  const std::size_t n = waiters.size();
  // Bit b of an op's set: the b-th classed op (class 1 ops first, then class 2).
  std::vector<std::size_t> bit(n, 0);
  std::size_t ones = 0, bits = 0;
  for (std::size_t j = 0; j < n; ++j) ones += cls[j] == 1;
  for (std::size_t j = 0, a = 0, b = ones; j < n; ++j) {
    if (cls[j] == 1) bit[j] = a++;
    if (cls[j] == 2) bit[j] = b++;
    bits = b;
  }
  const std::size_t words = (bits + 63) / 64;
  PhaseReach out;
  if (n * words * sizeof(std::uint64_t) > max_bytes) return out;
  out.first.assign(n, 0);
  out.second.assign(n, 0);
  if (words == 0) return out;  // no op of either class
  std::vector<std::uint64_t> set(n * words, 0);
  // Depth-first post order: an op is finished after every op waiting for it, so its set is its
  // own bit and the union of theirs (the graph is acyclic).
  std::vector<char> state(n, 0);                           // 0 new, 1 on the stack, 2 finished
  std::vector<std::pair<std::size_t, std::size_t>> stack;  // (op, next waiter to visit)
  for (std::size_t root = 0; root < n; ++root) {
    if (state[root]) continue;
    stack.push_back({root, 0});
    state[root] = 1;
    while (!stack.empty()) {
      auto& [j, next] = stack.back();
      if (next < waiters[j].size()) {
        const std::size_t w = waiters[j][next++];
        if (!state[w]) state[w] = 1, stack.push_back({w, 0});
        continue;
      }
      std::uint64_t* mine = &set[j * words];
      if (cls[j]) mine[bit[j] / 64] |= std::uint64_t{1} << (bit[j] % 64);
      for (std::size_t w : waiters[j]) {
        const std::uint64_t* theirs = &set[w * words];
        for (std::size_t k = 0; k < words; ++k) mine[k] |= theirs[k];
      }
      state[j] = 2;
      stack.pop_back();
    }
  }
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint64_t* s = &set[j * words];
    for (std::size_t k = 0; k < words; ++k) {
      // Bits below `ones` count for class 1, the rest for class 2.
      const std::size_t lo = k * 64;
      std::uint64_t first_mask = 0;
      if (ones >= lo + 64)
        first_mask = ~std::uint64_t{0};
      else if (ones > lo)
        first_mask = (std::uint64_t{1} << (ones - lo)) - 1;
      out.first[j] += static_cast<std::uint32_t>(std::bitset<64>(s[k] & first_mask).count());
      out.second[j] += static_cast<std::uint32_t>(std::bitset<64>(s[k] & ~first_mask).count());
    }
  }
  return out;
}

}  // namespace ipusim::rt
