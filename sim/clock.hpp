#pragma once
// A clock domain: converts cycles <-> nanoseconds in one place with one rounding rule.
// No sc_clock anywhere: models compute when they are next needed (event-driven).
#include <cmath>
#include <cstdint>

namespace ipusim {

/// A clock domain given by its frequency.
class ClockDomain {
 public:
  explicit ClockDomain(double freq_GHz = 1.0) : freq_GHz_(freq_GHz) {}
  double freq_GHz() const { return freq_GHz_; }
  double period_ns() const { return 1.0 / freq_GHz_; }
  /// Time of `cycles` cycles in ns.
  double cycles_to_ns(double cycles) const { return cycles / freq_GHz_; }
  /// Whole cycles covering `ns` (rounded up, with a tolerance for floating-point noise).
  std::uint64_t ns_to_cycles_ceil(double ns) const {
    return static_cast<std::uint64_t>(std::ceil(ns * freq_GHz_ - 1e-9));
  }
  /// Cycles for `ns`, rounded to nearest (for reports).
  std::uint64_t ns_to_cycles_round(double ns) const {
    return static_cast<std::uint64_t>(std::llround(ns * freq_GHz_));
  }

 private:
  double freq_GHz_;
};

}  // namespace ipusim
