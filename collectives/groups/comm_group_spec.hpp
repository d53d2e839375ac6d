#pragma once
// Command-line / config spelling of a CommGroup: "all", "none", "consecutive:K",
// "orthogonal:K" (PopART type names, lower case).
#include <string>

#include "collectives/groups/comm_group.hpp"

namespace ipusim::coll {

/// Parses the spelling above; throws std::invalid_argument naming what was expected.
CommGroup parse_comm_group_spec(const std::string& text);

}  // namespace ipusim::coll
