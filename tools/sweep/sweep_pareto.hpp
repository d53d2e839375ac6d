#pragma once
// The Pareto front of a two-objective result set (both minimised), e.g. time against
// memory: the points that no other point beats on one objective without losing on the other.
#include <cstddef>
#include <utility>
#include <vector>

namespace ipusim::cli {

/// Indices of the non-dominated points (minimising both coordinates), ordered by the
/// first coordinate, then the second, then index. Equal points are all kept.
std::vector<std::size_t> pareto_front(const std::vector<std::pair<double, double>>& points);

}  // namespace ipusim::cli
