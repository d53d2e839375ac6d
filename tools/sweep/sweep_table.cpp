#include "tools/sweep/sweep_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ipusim::cli {

namespace {

/// A number, optionally followed by "%" or by one space and a unit word ("2.29 s", "64 MiB",
/// "1.5 us"), or a list of numbers ("0, 1": points printed together).
bool looks_numeric(const std::string& s) {
  if (s.empty()) return false;
  if (const auto comma = s.find(", "); comma != std::string::npos) {
    return looks_numeric(s.substr(0, comma)) && looks_numeric(s.substr(comma + 2));
  }
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  if (!end || end == s.c_str()) return false;
  if (*end == '\0' || (*end == '%' && end[1] == '\0')) return true;
  if (*end != ' ' || end[1] == '\0') return false;
  for (const char* c = end + 1; *c; ++c) {
    if (!std::isalpha(static_cast<unsigned char>(*c)) && *c != '/') return false;
  }
  return true;
}

}  // namespace

std::string format_table(const std::vector<std::string>& headers,
                         const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(headers.size(), 0);
  for (std::size_t c = 0; c < headers.size(); ++c) width[c] = headers[c].size();
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string out;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string pad(width[c] - std::min(width[c], cell.size()), ' ');
      const bool right = !header && looks_numeric(cell);
      out += (c ? "  " : "") + (right ? pad + cell : cell + (c + 1 < width.size() ? pad : ""));
    }
    return out + "\n";
  };
  std::string out = line(headers, true);
  std::size_t total = 0;
  for (std::size_t w : width) total += w;
  out += std::string(total + 2 * (width.empty() ? 0 : width.size() - 1), '-') + "\n";
  for (const auto& row : rows) out += line(row, false);
  return out;
}

std::string fixed(double value, int digits) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  std::string out = buf;
  // A tiny negative value rounds to "-0.00"; print it as "0.00".
  if (out[0] == '-' && out.find_first_not_of("-0.") == std::string::npos) out.erase(0, 1);
  return out;
}

}  // namespace ipusim::cli
