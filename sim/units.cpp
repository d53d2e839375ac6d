#include "sim/units.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/errors.hpp"

namespace ipusim {
namespace {

/// Splits "1.5 GiB" into its number and unit text; false if there is no plain decimal number
/// at the front (no sign, exponent or second point).
bool split_number(const std::string& text, double& number, std::string& unit) {
  std::size_t end = 0;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
    ++end;
  const std::string digits = text.substr(0, end);
  if (digits.empty() || std::count(digits.begin(), digits.end(), '.') > 1 || digits.back() == '.')
    return false;
  try {
    number = std::stod(digits);
  } catch (const std::out_of_range&) {  // hundreds of digits: no size or rate
    return false;
  }
  unit = text.substr(end);
  if (!unit.empty() && unit[0] == ' ') unit = unit.substr(1);
  return true;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

std::uint64_t parse_size_bytes(const std::string& text, const std::string& what, bool allow_zero) {
  const auto bad = [&]() -> ConfigError {
    return ConfigError(what +
                       ": expected a byte count such as 67108864, 64MiB, 1.5GiB or 100MB, got '" +
                       text + "'");
  };
  double number = 0;
  std::string suffix;
  if (!split_number(text, number, suffix)) throw bad();
  // Binary suffixes are exact powers of two; decimal ones are what disk and network
  // vendors (and nccl-tests' -b/-e with K/M/G) mean by KB/MB/GB.
  static const std::vector<std::pair<std::string, double>> units = {{"", 1.0},
                                                                    {"b", 1.0},
                                                                    {"kib", 1024.0},
                                                                    {"mib", 1048576.0},
                                                                    {"gib", 1073741824.0},
                                                                    {"tib", 1099511627776.0},
                                                                    {"kb", 1e3},
                                                                    {"mb", 1e6},
                                                                    {"gb", 1e9},
                                                                    {"tb", 1e12}};
  const std::string unit = lower(suffix);
  const auto it =
      std::find_if(units.begin(), units.end(), [&](const auto& u) { return u.first == unit; });
  if (it == units.end()) throw bad();
  const double bytes = number * it->second;
  if (!(bytes < 1.8e19) || bytes != std::floor(bytes)) {
    throw ConfigError(what + ": '" + text + "' is not a whole number of bytes below 2^64");
  }
  if (bytes == 0 && !allow_zero)
    throw ConfigError(what + ": expected at least 1 byte, got '" + text + "'");
  return static_cast<std::uint64_t>(bytes);
}

double parse_rate_GBps(const std::string& text, const std::string& what) {
  const auto bad = [&]() -> ConfigError {
    return ConfigError(
        what +
        ": expected a rate such as 100Gbit/s, 100Gbps, 12.5GB/s or 16GiB/s (b = bit, "
        "B = byte), got '" +
        text + "'");
  };
  double number = 0;
  std::string unit;
  if (!split_number(text, number, unit) || unit.empty()) throw bad();
  // Prefix (k/K, M, G, T; with "i" a power of 1024), then B (bytes) or b / bit (bits), then
  // "/s" or "ps". The case of B/b carries the meaning, so only it is case-sensitive.
  std::size_t pos = 0;
  double scale = 1;
  static const std::vector<std::pair<char, double>> prefixes = {
      {'k', 1e3}, {'K', 1e3}, {'M', 1e6}, {'G', 1e9}, {'T', 1e12}};
  const auto prefix = std::find_if(prefixes.begin(), prefixes.end(),
                                   [&](const auto& p) { return p.first == unit[0]; });
  if (prefix != prefixes.end()) {
    scale = prefix->second;
    pos = 1;
    if (pos < unit.size() && unit[pos] == 'i') {
      scale = std::pow(1024.0, std::round(std::log10(scale) / 3));
      ++pos;
    }
  }
  double bits_per_unit = 0;
  if (unit.compare(pos, 3, "bit") == 0) {
    bits_per_unit = 1;
    pos += 3;
  } else if (pos < unit.size() && unit[pos] == 'b') {
    bits_per_unit = 1;
    ++pos;
  } else if (pos < unit.size() && unit[pos] == 'B') {
    bits_per_unit = 8;
    ++pos;
  }
  const std::string per = unit.substr(std::min(pos, unit.size()));
  if (bits_per_unit == 0 || (per != "/s" && per != "ps")) throw bad();
  // Scaled so that GB/s and Gbit/s text keep the number's exact digits (x 1, x 0.125).
  const double GBps = number * (scale / 1e9) * (bits_per_unit / 8);
  if (!std::isfinite(GBps)) throw bad();
  return GBps;
}

std::optional<double> value_from_text(const std::string& text, const std::string& unit,
                                      const std::string& what) {
  if (unit == "B") return static_cast<double>(parse_size_bytes(text, what, true));
  if (unit == "GiB") return static_cast<double>(parse_size_bytes(text, what, true)) / 1073741824.0;
  if (unit == "GB/s") return parse_rate_GBps(text, what);
  return std::nullopt;
}

}  // namespace ipusim
