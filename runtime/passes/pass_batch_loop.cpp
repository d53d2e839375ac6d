#include "runtime/passes/pass_batch_loop.hpp"

#include <map>

namespace ipusim::rt {

std::string to_string(LoopItem::Type t) {
  switch (t) {
    case LoopItem::Load:
      return "load";
    case LoopItem::CopyIn:
      return "io_copy_to_compute";
    case LoopItem::Compute:
      return "compute";
    case LoopItem::CopyOut:
      return "io_copy_to_io";
    case LoopItem::Store:
      return "store";
    case LoopItem::Exchange:
      return "exchange";
  }
  return "?";
}

std::vector<LoopItem> batch_loop_order(BatchSchedule schedule, int n, bool io_tiles, bool loads,
                                       bool stores) {
  std::vector<LoopItem> out;
  // Index of the last item of each (type, step), to wire dependencies.
  std::map<std::pair<int, int>, int> at;
  auto find = [&](LoopItem::Type t, int step) {
    auto it = at.find({t, step});
    return it == at.end() ? -1 : it->second;
  };
  auto push = [&](LoopItem::Type t, int step, std::vector<int> deps, int load_step = -1) {
    LoopItem it;
    it.type = t;
    it.step = step;
    it.load_step = load_step;
    for (int d : deps)
      if (d >= 0) it.deps.push_back(d);
    out.push_back(it);
    const int idx = static_cast<int>(out.size()) - 1;
    if (t == LoopItem::Exchange) {
      if (step >= 0) at[{LoopItem::Store, step}] = idx;
      if (load_step >= 0) at[{LoopItem::Load, load_step}] = idx;
    } else {
      at[{t, step}] = idx;
    }
    return idx;
  };
  const bool copies = io_tiles;
  auto load = [&](int i, std::vector<int> deps) {
    if (loads) push(LoopItem::Load, i, deps);
    if (loads && copies) push(LoopItem::CopyIn, i, {find(LoopItem::Load, i)});
  };
  auto copy_in = [&](int i) {
    if (loads && copies) push(LoopItem::CopyIn, i, {find(LoopItem::Load, i)});
  };
  auto compute = [&](int i) {
    push(LoopItem::Compute, i,
         {find(LoopItem::CopyIn, i), loads && !copies ? find(LoopItem::Load, i) : -1});
  };
  auto copy_out = [&](int i) {
    if (stores && copies) push(LoopItem::CopyOut, i, {find(LoopItem::Compute, i)});
  };
  auto store = [&](int i) {
    if (stores)
      push(LoopItem::Store, i, {copies ? find(LoopItem::CopyOut, i) : find(LoopItem::Compute, i)});
  };
  if (!copies || schedule == BatchSchedule::Scheduler || schedule == BatchSchedule::Isomorphic) {
    for (int i = 0; i < n; ++i) {
      // Each step runs to completion: the next load waits for this step's compute.
      load(i, {i > 0 ? find(LoopItem::Compute, i - 1) : -1,
               i > 0 ? find(LoopItem::Store, i - 1) : -1});
      compute(i);
      copy_out(i);
      store(i);
    }
    return out;
  }
  if (schedule == BatchSchedule::OverlapOnIo) {
    // Load0, C0, Compute0, Load1, C1, IO0, Store0, Compute1, Load2, ...
    for (int i = 0; i < n; ++i) {
      load(i, {i > 0 ? find(LoopItem::Compute, i - 1) : -1});
      if (i > 0) {
        copy_out(i - 1);
        store(i - 1);
      }
      compute(i);
    }
    copy_out(n - 1);
    store(n - 1);
    return out;
  }
  // OverlapOnCompute (popxl io_overlapped): Load0, C0, Load1, Compute0, C1, IO0,
  // Exchange(Store0 + Load2), Compute1, ...; the load of step i+2 reuses step i's IO buffer.
  if (loads) {
    push(LoopItem::Load, 0, {});
    copy_in(0);
    if (n > 1) push(LoopItem::Load, 1, {});
  }
  for (int i = 0; i < n; ++i) {
    compute(i);
    if (i + 1 < n) copy_in(i + 1);
    copy_out(i);
    const bool has_load = loads && i + 2 < n;
    if (stores || has_load) {
      std::vector<int> deps = {
          stores ? (copies ? find(LoopItem::CopyOut, i) : find(LoopItem::Compute, i)) : -1,
          has_load ? find(LoopItem::CopyIn, i + 1) : -1};
      if (stores && has_load) {
        push(LoopItem::Exchange, i, deps, i + 2);
      } else if (stores) {
        push(LoopItem::Store, i, deps);
      } else {
        push(LoopItem::Load, i + 2, deps);
      }
    }
  }
  return out;
}

}  // namespace ipusim::rt
