#pragma once
// Conversions between double nanoseconds (used by the analytical formulas) and SystemC
// time. The kernel resolution is 1 ps (set in sim_setup); conversions round to it.
#include <systemc>

namespace ipusim {

/// SystemC time for `ns` nanoseconds, rounded to the 1 ps resolution.
inline sc_core::sc_time ns_to_sc(double ns) {
  return sc_core::sc_time(static_cast<double>(static_cast<long long>(ns * 1000.0 + 0.5)),
                          sc_core::SC_PS);
}
/// Current simulated time in ns.
inline double now_ns() { return static_cast<double>(sc_core::sc_time_stamp().value()) * 1e-3; }

}  // namespace ipusim
