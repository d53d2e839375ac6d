#pragma once
// Short constructors for ParamSpec tables (every layer declares its parameters with them).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/params.hpp"

namespace ipusim::spec {

/// A floating-point parameter with an inclusive range.
inline ParamSpec real(std::string path, std::string unit, Json def, std::optional<double> lo,
                      std::optional<double> hi, std::string desc) {
  return ParamSpec{std::move(path), ParamType::Double, std::move(unit), std::move(def), lo, hi, {},
                   std::move(desc)};
}
/// An integer parameter with an inclusive range.
inline ParamSpec integer(std::string path, std::string unit, Json def, std::optional<double> lo,
                         std::optional<double> hi, std::string desc) {
  return ParamSpec{std::move(path), ParamType::Int, std::move(unit), std::move(def), lo, hi, {},
                   std::move(desc)};
}
/// A free-form string parameter.
inline ParamSpec text(std::string path, Json def, std::string desc) {
  return ParamSpec{std::move(path), ParamType::String, "", std::move(def),
                   std::nullopt,    std::nullopt,      {}, std::move(desc)};
}
/// A string parameter restricted to `choices`.
inline ParamSpec choice(std::string path, Json def, std::vector<std::string> choices,
                        std::string desc) {
  return ParamSpec{std::move(path),    ParamType::Enum, "",
                   std::move(def),     std::nullopt,    std::nullopt,
                   std::move(choices), std::move(desc)};
}
/// A boolean parameter.
inline ParamSpec flag(std::string path, bool def, std::string desc) {
  return ParamSpec{std::move(path), ParamType::Bool, "", Json(def),
                   std::nullopt,    std::nullopt,    {}, std::move(desc)};
}
/// A raw JSON parameter (lists, or values of more than one shape).
inline ParamSpec raw(std::string path, Json def, std::string desc) {
  return ParamSpec{std::move(path), ParamType::Json, "", std::move(def),
                   std::nullopt,    std::nullopt,    {}, std::move(desc)};
}

/// A bandwidth parameter in GB/s with the range of values that make sense: outside it the
/// config still runs, with a warning that the number is most likely in Gbit/s (8x larger).
/// ASSUMPTION for every range: about 4x around the IPU-M2000 and Bow-2000 values both ways,
/// capped so that the datasheet's Gbit/s figure of the same link falls outside.
inline ParamSpec plausible(ParamSpec s, double lo, double hi) {
  s.plausible_min = lo;
  s.plausible_max = hi;
  s.plausible_hint =
      "bandwidth keys are in GB/s = Gbit/s / 8; text with a unit converts, e.g. \"100Gbit/s\"";
  return s;
}

}  // namespace ipusim::spec
