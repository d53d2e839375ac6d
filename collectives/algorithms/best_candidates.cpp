#include "collectives/algorithms/best_candidates.hpp"

#include "collectives/algorithms/algorithm_table.hpp"

namespace ipusim::coll {

const std::vector<Algorithm>& best_candidates() {
  static const std::vector<Algorithm> all = [] {
    std::vector<Algorithm> out;
    for (const AlgorithmInfo& a : algorithm_table())
      if (a.best_candidate) out.push_back(a.algorithm);
    return out;
  }();
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
