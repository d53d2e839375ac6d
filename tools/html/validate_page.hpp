#pragma once
// The page of `ipusim validate --html`: predicted (simulated) against measured for every
// case, each case's error against its tolerance, per role.
#include "sim/json.hpp"
#include "tools/html/html_page.hpp"

namespace ipusim::html {

/// The page of a validation document (the JSON `ipusim validate --json` prints).
Page validation_page(const Json& validation);

}  // namespace ipusim::html
