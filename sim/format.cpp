#include "sim/format.hpp"

#include <cstdio>

namespace ipusim {

std::string format_ns(double ns) {
  char buf[64];
  if (ns >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.4f s", ns / 1e9);
  } else if (ns >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.4f ms", ns / 1e6);
  } else if (ns >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.4f us", ns / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f ns", ns);
  }
  return buf;
}

std::string escape_markup(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default: {
        const bool forbidden_control =
            static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r';
        out += forbidden_control ? '?' : ch;
      }
    }
  }
  return out;
}

}  // namespace ipusim
