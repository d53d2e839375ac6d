#include "collectives/groups/comm_group_spec.hpp"

#include <stdexcept>

namespace ipusim::coll {

CommGroup parse_comm_group_spec(const std::string& text) {
  const auto colon = text.find(':');
  const std::string type = text.substr(0, colon);
  const bool has_size = colon != std::string::npos;
  if (type == "all" || type == "none" || type == "ungrouped") {
    if (has_size)
      throw std::invalid_argument("'" + text + "': '" + type +
                                  "' takes no size (PopART ignores it)");
    return CommGroup(type == "all" ? CommGroupType::All : CommGroupType::None, 0);
  }
  if (type != "consecutive" && type != "orthogonal") {
    throw std::invalid_argument("'" + text +
                                "': expected all, none, consecutive:K or orthogonal:K");
  }
  const std::string size = has_size ? text.substr(colon + 1) : "";
  if (size.empty())
    throw std::invalid_argument("'" + text + "': '" + type + "' needs a size, e.g. " + type + ":2");
  if (size.find_first_not_of("0123456789") != std::string::npos || size.size() > 9) {
    throw std::invalid_argument("'" + text + "': the size must be a non-negative integer");
  }
  const unsigned k = static_cast<unsigned>(std::stoul(size));
  if (k == 0) {
    // PopART only says "VariableSettings had 1 errors!" here; name the actual problem.
    throw std::invalid_argument(
        "'" + text + "': " + type +
        " groups need a size of at least 1 (PopART: VariableSettings had 1 errors!)");
  }
  return CommGroup(type == "consecutive" ? CommGroupType::Consecutive : CommGroupType::Orthogonal,
                   k);
}

}  // namespace ipusim::coll
