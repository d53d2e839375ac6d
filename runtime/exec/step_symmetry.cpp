#include "runtime/exec/step_symmetry.hpp"

#include <algorithm>
#include <cstring>

namespace ipusim {
namespace {

/// 64-bit mix of a running hash and one value (splitmix64's finaliser).
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  std::uint64_t x = h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t bits_of(double x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

}  // namespace

std::uint32_t StepSymmetry::find(std::uint32_t i) {
  while (parent_[i] != i) {
    parent_[i] = parent_[parent_[i]];
    i = parent_[i];
  }
  return i;
}

std::uint32_t StepSymmetry::spec_class(const FlowEngine& engine, ResourceId id) {
  if (spec_class_[id] != kNone) return spec_class_[id];
  const ResourceSpec& spec = engine.resource(id);
  const ResourceFlow& flow = engine.flow_control(id);
  const SpecKey key{spec.capacity_Bpns, spec.latency_ns,    spec.kind,
                    flow.chunk_bytes,   flow.credits_bytes, flow.arbitration};
  std::uint32_t c = 0;
  for (; c < spec_keys_.size(); ++c) {
    const SpecKey& k = spec_keys_[c];
    if (bits_of(k.capacity_Bpns) == bits_of(key.capacity_Bpns) &&
        bits_of(k.latency_ns) == bits_of(key.latency_ns) && k.kind == key.kind &&
        k.chunk_bytes == key.chunk_bytes && k.credits_bytes == key.credits_bytes &&
        k.arbitration == key.arbitration) {
      break;
    }
  }
  if (c == spec_keys_.size()) spec_keys_.push_back(key);
  spec_class_[id] = c;
  return c;
}

void StepSymmetry::signature(const FlowEngine& engine, std::uint32_t c,
                             const std::vector<const Route*>& routes,
                             const std::vector<std::uint64_t>& bytes) {
  sig_.clear();
  sig_.push_back(num_flows(c));
  sig_.push_back(num_resources(c));
  for (std::uint32_t k = comp_flow_off_[c]; k < comp_flow_off_[c + 1]; ++k) {
    const std::uint32_t i = comp_flows_[k];
    sig_.push_back(bytes[i]);
    sig_.push_back(routes[i]->size());
    for (ResourceId rid : *routes[i]) sig_.push_back(local_[rid]);
  }
  const ResourceId* res = resources_begin(c);
  const std::uint32_t n = num_resources(c);
  for (std::uint32_t j = 0; j < n; ++j) sig_.push_back(spec_class(engine, res[j]));
  // The relative id order of the resources (allocation ties break by id).
  order_.resize(n);
  for (std::uint32_t j = 0; j < n; ++j) order_[j] = j;
  std::sort(order_.begin(), order_.end(),
            [res](std::uint32_t a, std::uint32_t b) { return res[a] < res[b]; });
  sig_.insert(sig_.end(), order_.begin(), order_.end());
}

bool StepSymmetry::analyse(const FlowEngine& engine, const std::vector<const Route*>& routes,
                           const std::vector<std::uint64_t>& bytes) {
  const auto n = static_cast<std::uint32_t>(routes.size());
  const std::size_t num_res = engine.num_resources();
  played_.clear();
  copies_.clear();
  if (n < 2) return false;
  if (owner_.size() != num_res) {
    owner_.assign(num_res, kNone);
    local_.assign(num_res, kNone);
    spec_class_.assign(num_res, kNone);
  }
  // Components: flows joined by the resources they cross.
  parent_.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) parent_[i] = i;
  touched_.clear();
  bool valid = true;
  for (std::uint32_t i = 0; i < n && valid; ++i) {
    for (ResourceId rid : *routes[i]) {
      if (rid >= num_res) {  // the engine reports it when the step is played whole
        valid = false;
        break;
      }
      if (owner_[rid] == kNone) {
        owner_[rid] = i;
        touched_.push_back(rid);
      } else {
        const std::uint32_t a = find(i), b = find(owner_[rid]);
        if (a != b) parent_[std::max(a, b)] = std::min(a, b);
      }
    }
  }
  // Components numbered in the order of their first flow; flows grouped by component.
  comp_of_.assign(n, kNone);
  std::uint32_t comps = 0;
  std::vector<std::uint32_t>& root_comp = roots_;  // indexed by root flow
  root_comp.assign(n, kNone);
  comp_flow_off_.assign(1, 0);
  for (std::uint32_t i = 0; i < n && valid; ++i) {
    const std::uint32_t r = find(i);
    if (root_comp[r] == kNone) {
      root_comp[r] = comps++;
      comp_flow_off_.push_back(0);
    }
    comp_of_[i] = root_comp[r];
    ++comp_flow_off_[comp_of_[i] + 1];
  }
  if (valid && comps >= 2) {
    for (std::uint32_t c = 0; c < comps; ++c) comp_flow_off_[c + 1] += comp_flow_off_[c];
    comp_flows_.resize(n);
    std::vector<std::uint32_t>& fill = root_comp;  // reuse: next free position per component
    fill.assign(comp_flow_off_.begin(), comp_flow_off_.end() - 1);
    for (std::uint32_t i = 0; i < n; ++i) comp_flows_[fill[comp_of_[i]]++] = i;
    // Each component's resources in first-crossed order.
    comp_res_.clear();
    comp_res_off_.assign(1, 0);
    for (std::uint32_t c = 0; c < comps; ++c) {
      std::uint32_t count = 0;
      for (std::uint32_t k = comp_flow_off_[c]; k < comp_flow_off_[c + 1]; ++k) {
        for (ResourceId rid : *routes[comp_flows_[k]]) {
          if (local_[rid] == kNone) {
            local_[rid] = count++;
            comp_res_.push_back(rid);
          }
        }
      }
      comp_res_off_.push_back(static_cast<std::uint32_t>(comp_res_.size()));
    }
    // Classes: a component whose signature equals an earlier representative's is a copy.
    by_hash_.clear();
    rep_sigs_.clear();
    rep_sig_off_.assign(1, 0);
    rep_comp_.clear();
    std::vector<std::uint32_t> rep_of(comps, kNone);
    for (std::uint32_t c = 0; c < comps; ++c) {
      signature(engine, c, routes, bytes);
      std::uint64_t h = 0;
      for (std::uint64_t v : sig_) h = mix(h, v);
      std::vector<std::uint32_t>& candidates = by_hash_[h];
      for (std::uint32_t rep : candidates) {
        const std::uint32_t b = rep_sig_off_[rep], e = rep_sig_off_[rep + 1];
        if (e - b == sig_.size() && std::equal(sig_.begin(), sig_.end(), rep_sigs_.begin() + b)) {
          rep_of[c] = rep_comp_[rep];
          break;
        }
      }
      if (rep_of[c] != kNone) {
        copies_.push_back({rep_of[c], c});
        continue;
      }
      candidates.push_back(static_cast<std::uint32_t>(rep_comp_.size()));
      rep_comp_.push_back(c);
      rep_sigs_.insert(rep_sigs_.end(), sig_.begin(), sig_.end());
      rep_sig_off_.push_back(static_cast<std::uint32_t>(rep_sigs_.size()));
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      if (rep_of[comp_of_[i]] == kNone) played_.push_back(i);
    }
  }
  for (ResourceId rid : touched_) owner_[rid] = local_[rid] = kNone;
  if (copies_.empty()) played_.clear();
  return !copies_.empty();
}

}  // namespace ipusim
