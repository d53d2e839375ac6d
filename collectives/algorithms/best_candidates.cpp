#include "collectives/algorithms/best_candidates.hpp"

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
  return "";
}

}  // namespace ipusim::coll
