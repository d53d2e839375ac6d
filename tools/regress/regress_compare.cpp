#include "tools/regress/regress_compare.hpp"

#include <cmath>
#include <limits>

#include "tools/sweep/sweep_table.hpp"

namespace ipusim::cli {

double delta_percent(double expected, double got) {
  if (expected == got) return 0.0;
  if (expected == 0.0)
    return got > 0 ? std::numeric_limits<double>::infinity()
                   : -std::numeric_limits<double>::infinity();
  return (got - expected) / std::fabs(expected) * 100.0;
}

FieldCheck compare_field(const std::string& field, const Json& expected, const Json& got,
                         double tolerance_pct, double max_slowdown_pct) {
  FieldCheck check;
  check.field = field;
  check.expected = expected;
  check.got = got;
  check.delta_pct = std::numeric_limits<double>::quiet_NaN();
  if (expected.is_null()) {
    check.note = "no expected value (run with --update)";
    return check;
  }
  if (got.is_null()) {
    check.note = "not in the report";
    return check;
  }
  if (expected.is_number() && got.is_number()) {
    const double e = expected.get<double>();
    const double g = got.get<double>();
    check.delta_pct = delta_percent(e, g);
    if (max_slowdown_pct >= 0.0) {
      // One-sided: a speed-up always passes, a slowdown up to the limit (0 % = none).
      check.pass = g <= e || check.delta_pct <= max_slowdown_pct;
      if (!check.pass) check.note = "slower by more than " + fixed(max_slowdown_pct, 3) + "%";
      return check;
    }
    // Exact comparison at 0 %: the simulator is deterministic, any change is a change.
    check.pass = tolerance_pct <= 0.0 ? e == g : std::fabs(check.delta_pct) <= tolerance_pct;
    return check;
  }
  check.pass = expected == got;
  if (!check.pass) check.note = "differs";
  return check;
}

std::string format_delta(double delta_pct) {
  if (std::isnan(delta_pct)) return "n/a";
  if (delta_pct == 0.0) return "0%";
  if (std::isinf(delta_pct)) return delta_pct > 0 ? "+inf%" : "-inf%";
  const double mag = std::fabs(delta_pct);
  // Enough digits that a tiny (but real) change never prints as "+0.000%".
  const int digits = mag >= 0.01 ? 3 : mag >= 1e-6 ? 9 : 15;
  return (delta_pct > 0 ? "+" : "") + fixed(delta_pct, digits) + "%";
}

}  // namespace ipusim::cli
