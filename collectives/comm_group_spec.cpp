#include "collectives/comm_group_spec.hpp"

#include <stdexcept>

namespace ipusim::coll {

CommGroup parse_comm_group_spec(const std::string& text) {
  if (text == "all") return CommGroup(CommGroupType::All, 0);
  if (text == "none") return CommGroup(CommGroupType::None, 0);
  const auto colon = text.find(':');
  const std::string type = text.substr(0, colon);
  const std::string size = colon == std::string::npos ? "" : text.substr(colon + 1);
  if ((type != "consecutive" && type != "orthogonal") || size.empty() ||
      size.find_first_not_of("0123456789") != std::string::npos || size.size() > 9) {
    throw std::invalid_argument("comm group '" + text +
                                "': expected all, none, consecutive:K or orthogonal:K");
  }
  const unsigned k = static_cast<unsigned>(std::stoul(size));
  return CommGroup(type == "consecutive" ? CommGroupType::Consecutive : CommGroupType::Orthogonal, k);
}

}  // namespace ipusim::coll
