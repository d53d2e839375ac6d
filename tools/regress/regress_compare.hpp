#pragma once
// Comparison of one reported value with its golden value: numbers within a relative
// tolerance (0 % = exactly equal, since the simulator is deterministic) or, for times with a
// one-sided tolerance, no more than that much slower; everything else equal as JSON.
#include <string>

#include "sim/json.hpp"

namespace ipusim::cli {

/// The verdict on one field.
struct FieldCheck {
  std::string field;
  Json expected;           ///< null when there is no golden value
  Json got;                ///< null when the report lacks the field
  double delta_pct = 0.0;  ///< (got - expected) / |expected| * 100; NaN if not numeric
  bool pass = false;
  std::string note;  ///< why it failed, for non-numeric reasons
};

/// Relative change in percent; 0 if both are 0, ±inf if only `expected` is 0.
double delta_percent(double expected, double got);

/// Compares `got` with `expected` (null = absent) for the named field. With
/// `max_slowdown_pct` >= 0, numbers are judged one-sidedly instead: any decrease passes, an
/// increase passes up to that many percent (for times, where lower is better).
FieldCheck compare_field(const std::string& field, const Json& expected, const Json& got,
                         double tolerance_pct, double max_slowdown_pct = -1);

/// "+1.250%", "0%", "n/a", "+inf%" for the table.
std::string format_delta(double delta_pct);

}  // namespace ipusim::cli
