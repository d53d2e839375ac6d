#pragma once
// The parameter registry: every config parameter is declared once, with its type, unit,
// default, allowed range and a one-line description (`ipusim params` prints them).
#include <optional>
#include <string>
#include <vector>

#include "sim/json.hpp"

namespace ipusim {

/// Value type of a parameter.
enum class ParamType { Int, Double, Bool, String, Enum, Json };

/// Declaration of one parameter. `path` is a JSON pointer; array elements are written `*`
/// (for example `/workload/steps/*/bytes`).
struct ParamSpec {
  std::string path;
  ParamType type = ParamType::Double;
  std::string unit;                  ///< e.g. "GB/s", "ns", "B", "" for unit-less
  Json default_value;                ///< null = required (Json type: optional, absent)
  std::optional<double> min;         ///< inclusive lower bound for numbers
  std::optional<double> max;         ///< inclusive upper bound for numbers
  std::vector<std::string> choices;  ///< allowed values for Enum
  std::string description;           ///< one line; name the source or say ASSUMPTION
  /// Values outside [plausible_min, plausible_max] (but within min..max) run with a warning:
  /// most likely a number meant in another unit (Gbit/s typed into a GB/s key).
  std::optional<double> plausible_min = std::nullopt;
  std::optional<double> plausible_max = std::nullopt;
  std::string plausible_hint = "";  ///< what the warning suggests, e.g. "GB/s = Gbit/s / 8"
};

/// Global table of declared parameters. Layers add their tables through explicit
/// `register_*_params()` calls (no static initialisers: static libraries would drop them).
class ParamRegistry {
 public:
  /// The process-wide registry.
  static ParamRegistry& instance();
  /// Declares parameters; a second declaration of the same path replaces the first.
  void add(const std::vector<ParamSpec>& specs);
  /// The spec for a concrete JSON pointer (array indices match `*`), or nullptr.
  const ParamSpec* find(const std::string& pointer) const;
  /// Keys declared directly under an object pattern (for "allowed keys" in errors).
  std::vector<std::string> keys_under(const std::string& object_pointer) const;
  /// True if some declared parameter lives at or below this pointer.
  bool is_declared_prefix(const std::string& pointer) const;
  /// All specs, sorted by path.
  std::vector<ParamSpec> all() const;

 private:
  std::vector<ParamSpec> specs_;
};

/// Replaces numeric path segments with `*` ("/a/3/b" -> "/a/*/b").
std::string normalise_pointer(const std::string& pointer);
/// Human name of a ParamType ("int", "double", ...).
std::string to_string(ParamType type);

}  // namespace ipusim
