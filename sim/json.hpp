#pragma once
// One JSON type for the whole project: ordered, so reports and resolved configs keep
// the order in which keys were written (readable, and deterministic byte for byte).
#include <nlohmann/json.hpp>

namespace ipusim {
using Json = nlohmann::ordered_json;
}  // namespace ipusim
