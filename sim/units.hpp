#pragma once
// Values with units written as text: byte sizes ("64MiB", "1.5GiB", "100MB") and data rates
// ("100Gbit/s", "12.5GB/s"), for config values and command-line flags alike.
#include <cstdint>
#include <optional>
#include <string>

namespace ipusim {

/// A byte count: a plain integer ("67108864") or a number with a binary (KiB, MiB, GiB, TiB:
/// powers of 1024) or decimal (KB, MB, GB, TB: powers of 1000) suffix, case-insensitive,
/// optionally after a space; a fraction must give whole bytes ("1.5GiB"). ConfigError naming
/// `what` otherwise (zero included unless `allow_zero`).
std::uint64_t parse_size_bytes(const std::string& text, const std::string& what,
                               bool allow_zero = false);

/// A data rate with its unit ("100Gbit/s", "100 Gbps", "12.5GB/s", "38.4 GBps", "2TB/s",
/// "16GiB/s") in GB/s (10^9 bytes per second). Bits are a lower-case b ("Gb/s", "Gbps",
/// "Gbit/s"), bytes an upper-case B. ConfigError naming `what` for other text.
double parse_rate_GBps(const std::string& text, const std::string& what);

/// A config value given as text for a parameter of `unit` (a ParamSpec unit: "B", "GiB",
/// "GB/s"), converted to that unit: sizes for "B" and "GiB", rates for "GB/s". nullopt when
/// the unit takes no text; ConfigError naming `what` when the text is not a value of it.
std::optional<double> value_from_text(const std::string& text, const std::string& unit,
                                      const std::string& what);

}  // namespace ipusim
