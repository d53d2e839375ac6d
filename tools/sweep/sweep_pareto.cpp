#include "tools/sweep/sweep_pareto.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ipusim::cli {

std::vector<std::size_t> pareto_front(const std::vector<std::pair<double, double>>& points) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!std::isnan(points[i].first) && !std::isnan(points[i].second)) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return points[a] < points[b]; });
  // Sweep by increasing x: a point is on the front if its y is below every y seen so far
  // (ties with the previous front point are kept: they dominate nobody and nobody them).
  std::vector<std::size_t> front;
  double best_y = std::numeric_limits<double>::infinity();
  for (std::size_t i : order) {
    const auto& p = points[i];
    if (p.second < best_y) {
      front.push_back(i);
      best_y = p.second;
    } else if (!front.empty() && points[front.back()] == p) {
      front.push_back(i);
    }
  }
  return front;
}

}  // namespace ipusim::cli
