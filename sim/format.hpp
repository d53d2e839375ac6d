#pragma once
// Human-readable formatting shared by summaries.
#include <string>

namespace ipusim {

/// A duration in the largest fitting unit: "12.3456 us", "1.2000 ms", "85.0 ns", "1.0000 s".
std::string format_ns(double ns);

/// `text` escaped for HTML and XML text and attributes: &, <, >, " and ' become entities
/// (' as &#39;, which both languages accept); control characters other than tab, newline and
/// carriage return, which XML 1.0 forbids, become '?'.
std::string escape_markup(const std::string& text);

}  // namespace ipusim
