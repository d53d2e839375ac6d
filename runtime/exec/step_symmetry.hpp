#pragma once
// Exact symmetry of one exchange step started on an idle network.
//
// The flows of a step split into components: flows joined, directly or through other flows,
// by a resource they share. The fluid engine allocates max-min fair shares per component and
// every other quantity it keeps (a flow's remaining bytes, a resource's rate, busy time and
// bytes) belongs to one component, so two components that are the same up to a relabelling
// of their resources — the same number of flows in the same batch order, each of the same
// bytes over the same sequence of relabelled resources, and corresponding resources of equal
// capacity, latency, kind and flow control, in the same relative id order (ties between
// resources break by id) — drain at the same instants and add the same bytes, busy time,
// transfers and peak concurrency to corresponding resources. Every IPU-Link domain of a
// hierarchical collective's ILD phase is such a copy of the first, and every leaf of its leaf
// phase. StepSymmetry finds the classes of identical components; the step memo plays one
// representative of each class (at the same instants as the whole step: every class is
// present) and credits the other components' resources with their representative's outcome.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "models/network/flow_engine.hpp"

namespace ipusim {

/// Finds the identical components of one exchange step (see above).
class StepSymmetry {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  /// A component that is a copy of a representative component.
  struct Copy {
    std::uint32_t representative = 0;  ///< component index of its representative
    std::uint32_t component = 0;       ///< its own component index
  };

  /// Splits the step's flows (`*routes[i]`, `bytes[i]`) into components and classes. Returns
  /// true when at least one component is a copy of another (then played(), copies() and
  /// resources() describe the step); false leaves the step to be played whole.
  bool analyse(const FlowEngine& engine, const std::vector<const Route*>& routes,
               const std::vector<std::uint64_t>& bytes);
  /// Indices (into the step's flows) of the representatives' flows, in batch order.
  const std::vector<std::uint32_t>& played() const { return played_; }
  /// The components that are copies, in the order of their first flow.
  const std::vector<Copy>& copies() const { return copies_; }
  /// Resources of component `c`, in the order its flows first cross them (corresponding
  /// resources of a copy and its representative have the same position).
  const ResourceId* resources_begin(std::uint32_t c) const {
    return comp_res_.data() + comp_res_off_[c];
  }
  /// Number of resources of component `c`.
  std::uint32_t num_resources(std::uint32_t c) const {
    return comp_res_off_[c + 1] - comp_res_off_[c];
  }
  /// Number of flows of component `c`.
  std::uint32_t num_flows(std::uint32_t c) const {
    return comp_flow_off_[c + 1] - comp_flow_off_[c];
  }

 private:
  std::uint32_t find(std::uint32_t i);
  /// Class of a resource's timing-relevant spec (capacity, latency, kind, flow control).
  std::uint32_t spec_class(const FlowEngine& engine, ResourceId id);
  /// Appends component c's signature to sig_ (flows, bytes, relabelled routes, resource
  /// classes, relative id order).
  void signature(const FlowEngine& engine, std::uint32_t c, const std::vector<const Route*>& routes,
                 const std::vector<std::uint64_t>& bytes);

  std::vector<std::uint32_t> parent_;      // union-find over flows
  std::vector<std::uint32_t> owner_;       // per resource: first flow crossing it, or kNone
  std::vector<std::uint32_t> local_;       // per resource: position in its component, or kNone
  std::vector<ResourceId> touched_;        // resources with owner_ / local_ set
  std::vector<std::uint32_t> comp_of_;     // per flow: its component
  std::vector<std::uint32_t> comp_flows_;  // flows grouped by component (batch order inside)
  std::vector<std::uint32_t> comp_flow_off_;
  std::vector<ResourceId> comp_res_;  // resources grouped by component (first-crossed order)
  std::vector<std::uint32_t> comp_res_off_;
  std::vector<std::uint64_t> sig_;       // scratch: one component's signature
  std::vector<std::uint64_t> rep_sigs_;  // representatives' signatures, concatenated
  std::vector<std::uint32_t> rep_sig_off_;
  std::vector<std::uint32_t> rep_comp_;  // per representative: its component
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> by_hash_;
  std::vector<std::uint32_t> order_;  // scratch: resource positions sorted by id
  std::vector<std::uint32_t> roots_;  // scratch: per root flow its component, then fill positions
  std::vector<std::uint32_t> spec_class_;
  struct SpecKey {
    double capacity_Bpns;
    double latency_ns;
    ResourceKind kind;
    std::uint64_t chunk_bytes;
    std::uint64_t credits_bytes;
    Arbitration arbitration;
  };
  std::vector<SpecKey> spec_keys_;
  std::vector<std::uint32_t> played_;
  std::vector<Copy> copies_;
};

}  // namespace ipusim
