#include "collectives/algorithms/algorithm.hpp"

#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "collectives/algorithms/algorithm_emit.hpp"
#include "collectives/algorithms/algorithm_flat.hpp"
#include "collectives/algorithms/algorithm_groups.hpp"
#include "collectives/algorithms/algorithm_hierarchical.hpp"
#include "collectives/algorithms/algorithm_table.hpp"
#include "collectives/algorithms/auto_select.hpp"

namespace ipusim::coll {
namespace {

[[noreturn]] void reject(RequestField field, const std::string& why) {
  throw RequestError(field, "invalid collective request: " + why);
}

void validate_topology(const CollectiveTopology& t) {
  if (t.ipus_per_replica == 0)
    reject(RequestField::IpusPerReplica, "ipus_per_replica must be at least 1");
  if (t.ild_size_ipus == 0 || t.ild_size_ipus % t.ipus_per_replica != 0) {
    reject(RequestField::IpusPerReplica, "ild_size_ipus (" + std::to_string(t.ild_size_ipus) +
                                             ") must be a positive multiple of ipus_per_replica (" +
                                             std::to_string(t.ipus_per_replica) + ")");
  }
  const auto K = t.ipus_per_replica;
  if (t.link_config == LinkConfig::BarleyTwist && !(t.torus && K == 1)) {
    reject(RequestField::LinkConfig,
           "the barley_twist link configuration needs a torus and 1 IPU per replica");
  }
  if (t.link_config == LinkConfig::SlidingWindow && !(t.torus && (K == 1 || K == 2 || K == 4))) {
    reject(RequestField::LinkConfig,
           "the sliding_window link configuration needs a torus and 1, 2 or 4 IPUs per replica");
  }
}

/// Checks that a (resolved) method is usable for this op and topology.
void validate_method(Algorithm a, const CollectiveRequest& r, const char* where) {
  const AlgorithmInfo& info = algorithm_info(a);
  if (info.needs_barley_twist && r.topology.link_config != LinkConfig::BarleyTwist) {
    reject(RequestField::Algorithm,
           std::string(where) + info.name + " needs the barley_twist link configuration");
  }
  if (r.op == CollectiveOp::AllToAll && !info.runs_all_to_all) {
    reject(RequestField::Algorithm,
           std::string(where) + "all_to_all supports only the direct algorithm");
  }
}

/// A request with every check passed: its groups indexed, its algorithm resolved (and, when
/// hierarchical, its ILD structure and tier methods chosen).
struct Resolved {
  GroupIndex index;
  Algorithm algorithm = Algorithm::Auto;
  std::optional<IldStructure> structure;
  Schedule tiers;  ///< ild_algorithm / gw_algorithm when hierarchical
};

Resolved resolve(const CollectiveRequest& request) {
  validate_topology(request.topology);
  Resolved out;
  try {
    out.index = index_groups(request.groups);
  } catch (const std::invalid_argument& e) {
    reject(RequestField::Groups, e.what());
  }
  const auto K = request.topology.ipus_per_replica;
  if (static_cast<std::uint64_t>(out.index.num_replicas) * K >
      std::numeric_limits<std::uint32_t>::max()) {
    reject(RequestField::Groups, "global IPU ids exceed 32 bits");
  }
  if (request.op == CollectiveOp::AllToAll &&
      request.elements_per_replica % out.index.group_size != 0) {
    reject(RequestField::Elements, "all_to_all needs elements_per_replica (" +
                                       std::to_string(request.elements_per_replica) +
                                       ") divisible by the group size (" +
                                       std::to_string(out.index.group_size) + ")");
  }
  for (auto tier : {request.hierarchical_ild_algorithm, request.hierarchical_gw_algorithm}) {
    if (tier == Algorithm::Hierarchical) {
      reject(RequestField::Algorithm, "a hierarchical tier cannot be hierarchical");
    }
  }
  out.algorithm = select_algorithm(request);
  if (out.algorithm == Algorithm::Hierarchical) {
    if (request.op == CollectiveOp::AllToAll) {
      reject(RequestField::Algorithm, "all_to_all cannot be hierarchical");
    }
    out.structure = ild_structure(request.groups, K, request.topology.ild_size_ipus);
    if (!out.structure) {
      reject(RequestField::Algorithm,
             "hierarchical needs every group to have the same number of members in each ILD "
             "it spans");
    }
    if (out.structure->num_ilds < 2) {
      // With no GW-Link tier it would only repeat its IPU-Link ring under another name.
      reject(RequestField::Algorithm,
             "hierarchical: every group lies in one IPU-Link domain (" +
                 std::to_string(request.topology.ild_size_ipus) +
                 " IPUs), so there is no GW-Link tier; name a ring algorithm, direct or auto");
    }
    detail::choose_tier_methods(request, *out.structure, out.tiers);
    validate_method(out.tiers.ild_algorithm, request, "IPU-Link tier: ");
    validate_method(out.tiers.gw_algorithm, request, "GW-Link tier: ");
  } else {
    validate_method(out.algorithm, request, "");
  }
  return out;
}

Schedule generate(const CollectiveRequest& request, const StepSink* sink, StepDetail detail,
                  std::vector<Transfer>* buffer) {
  Resolved r = resolve(request);
  const auto K = request.topology.ipus_per_replica;
  Schedule schedule;
  schedule.op = request.op;
  schedule.reduce = request.reduce;
  schedule.dtype = request.dtype;
  schedule.elements_per_replica = request.elements_per_replica;
  schedule.ipus_per_replica = K;
  schedule.num_replicas = r.index.num_replicas;
  schedule.group_size = r.index.group_size;
  schedule.groups = request.groups;
  schedule.algorithm = r.algorithm;

  detail::StepEmitter emitter(schedule, sink, r.index.num_replicas * K,
                              sink != nullptr && detail == StepDetail::TimingOnly, buffer);
  if (schedule.algorithm == Algorithm::Hierarchical) {
    schedule.ild_algorithm = r.tiers.ild_algorithm;
    schedule.gw_algorithm = r.tiers.gw_algorithm;
    detail::build_hierarchical(request, r.index, *r.structure, schedule, emitter);
  } else {
    detail::build_flat(request, r.index, schedule.algorithm, schedule, emitter);
  }
  return schedule;
}

}  // namespace

void validate_request(const CollectiveRequest& request) { resolve(request); }

StreamShape stream_shape(const CollectiveRequest& request) {
  const Resolved r = resolve(request);
  StreamShape shape;
  shape.algorithm = r.algorithm;
  const std::uint32_t k = r.index.group_size;
  std::uint64_t cell_elems = 0;
  detail::Layout layout;
  if (r.algorithm == Algorithm::Hierarchical) {
    shape.ild_algorithm = r.tiers.ild_algorithm;
    shape.gw_algorithm = r.tiers.gw_algorithm;
    layout = detail::hierarchical_layout(request, k, shape.ild_algorithm, shape.gw_algorithm,
                                         cell_elems);
  } else {
    layout = detail::flat_layout(request, k, r.algorithm, cell_elems);
  }
  // The builders' "nothing to communicate" cases (build_flat, build_hierarchical).
  const bool reducing =
      request.op == CollectiveOp::AllReduce || request.op == CollectiveOp::ReduceScatter;
  const bool none = k == 1 || (reducing && request.reduce == ReduceOp::Local);
  shape.atom_elems = none ? 0 : layout.atom_elems;
  return shape;
}

Schedule build_schedule(const CollectiveRequest& request) {
  return generate(request, nullptr, StepDetail::Full, nullptr);
}

Schedule generate_schedule(const CollectiveRequest& request, const StepSink& sink,
                           StepDetail detail, std::vector<Transfer>* buffer) {
  return generate(request, &sink, detail, buffer);
}

}  // namespace ipusim::coll
