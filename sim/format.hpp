#pragma once
// Human-readable formatting shared by summaries.
#include <string>

namespace ipusim {

/// A duration in the largest fitting unit: "12.3456 us", "1.2000 ms", "85.0 ns", "1.0000 s".
std::string format_ns(double ns);

}  // namespace ipusim
