#include "collectives/algorithms/best_candidates.hpp"

#include "collectives/algorithms/algorithm_groups.hpp"

namespace ipusim::coll {

const std::vector<Algorithm>& best_candidates() {
  static const std::vector<Algorithm> all = {
      Algorithm::Clockwise,       Algorithm::Anticlockwise,   Algorithm::BidirectionalPair,
      Algorithm::MeetInTheMiddle, Algorithm::QuadDirectional, Algorithm::Direct,
      Algorithm::Hierarchical};
  return all;
}

std::string why_not_candidate(const CollectiveRequest& request) {
  try {
    validate_request(request);
  } catch (const RequestError& e) {
    return e.what();
  }
  if (request.algorithm == Algorithm::Hierarchical) {
    const auto& t = request.topology;
    const auto s = ild_structure(request.groups, t.ipus_per_replica, t.ild_size_ipus);
    if (!s || s->num_ilds < 2) return "hierarchical: every group lies in one IPU-Link domain";
  }
  return "";
}

}  // namespace ipusim::coll
