#include "collectives/algorithm.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "collectives/algorithm_emit.hpp"
#include "collectives/algorithm_flat.hpp"
#include "collectives/algorithm_groups.hpp"
#include "collectives/algorithm_hierarchical.hpp"
#include "collectives/auto_select.hpp"

namespace ipusim::coll {
namespace {

[[noreturn]] void reject(const std::string& why) {
  throw std::invalid_argument("invalid collective request: " + why);
}

void validate_topology(const CollectiveTopology& t) {
  if (t.ipus_per_replica == 0) reject("ipus_per_replica must be at least 1");
  if (t.ild_size_ipus == 0 || t.ild_size_ipus % t.ipus_per_replica != 0) {
    reject("ild_size_ipus (" + std::to_string(t.ild_size_ipus) +
           ") must be a positive multiple of ipus_per_replica (" +
           std::to_string(t.ipus_per_replica) + ")");
  }
  const auto K = t.ipus_per_replica;
  if (t.link_config == LinkConfig::BarleyTwist && !(t.torus && K == 1)) {
    reject("the barley_twist link configuration needs a torus and 1 IPU per replica");
  }
  if (t.link_config == LinkConfig::SlidingWindow && !(t.torus && (K == 1 || K == 2 || K == 4))) {
    reject("the sliding_window link configuration needs a torus and 1, 2 or 4 IPUs per replica");
  }
}

/// Checks that a (resolved) method is usable for this op and topology.
void validate_method(Algorithm a, const CollectiveRequest& r, const char* where) {
  if (a == Algorithm::QuadDirectional && r.topology.link_config != LinkConfig::BarleyTwist) {
    reject(std::string(where) + "quad_directional needs the barley_twist link configuration");
  }
  if (r.op == CollectiveOp::AllToAll && a != Algorithm::Direct) {
    reject(std::string(where) + "all_to_all supports only the direct algorithm");
  }
}

Schedule generate(const CollectiveRequest& request, const StepSink* sink) {
  validate_topology(request.topology);
  const GroupIndex index = index_groups(request.groups);
  const auto K = request.topology.ipus_per_replica;
  if (static_cast<std::uint64_t>(index.num_replicas) * K >
      std::numeric_limits<std::uint32_t>::max()) {
    reject("global IPU ids exceed 32 bits");
  }
  if (request.op == CollectiveOp::AllToAll &&
      request.elements_per_replica % index.group_size != 0) {
    reject("all_to_all needs elements_per_replica (" +
           std::to_string(request.elements_per_replica) + ") divisible by the group size (" +
           std::to_string(index.group_size) + ")");
  }
  for (auto tier : {request.hierarchical_ild_algorithm, request.hierarchical_gw_algorithm}) {
    if (tier == Algorithm::Hierarchical) reject("a hierarchical tier cannot be hierarchical");
  }

  Schedule schedule;
  schedule.op = request.op;
  schedule.reduce = request.reduce;
  schedule.dtype = request.dtype;
  schedule.elements_per_replica = request.elements_per_replica;
  schedule.ipus_per_replica = K;
  schedule.num_replicas = index.num_replicas;
  schedule.group_size = index.group_size;
  schedule.groups = request.groups;
  schedule.algorithm = select_algorithm(request);

  detail::StepEmitter emitter(schedule, sink, index.num_replicas * K);
  if (schedule.algorithm == Algorithm::Hierarchical) {
    if (request.op == CollectiveOp::AllToAll) reject("all_to_all cannot be hierarchical");
    const auto structure = ild_structure(request.groups, K, request.topology.ild_size_ipus);
    if (!structure) {
      reject("hierarchical needs every group to have the same number of members in each ILD "
             "it spans");
    }
    detail::choose_tier_methods(request, *structure, schedule);
    validate_method(schedule.ild_algorithm, request, "IPU-Link tier: ");
    validate_method(schedule.gw_algorithm, request, "GW-Link tier: ");
    detail::build_hierarchical(request, index, *structure, schedule, emitter);
  } else {
    validate_method(schedule.algorithm, request, "");
    detail::build_flat(request, index, schedule.algorithm, schedule, emitter);
  }
  return schedule;
}

}  // namespace

Schedule build_schedule(const CollectiveRequest& request) { return generate(request, nullptr); }

Schedule generate_schedule(const CollectiveRequest& request, const StepSink& sink) {
  return generate(request, &sink);
}

}  // namespace ipusim::coll
