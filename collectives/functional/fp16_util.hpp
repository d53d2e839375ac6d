#pragma once
// Rounding of functional values to the collective's element type (IEEE fp16 via libfp16).
#include <fp16.h>

#include "collectives/schedule/schedule.hpp"

namespace ipusim::coll {

/// Rounds `value` to the nearest representable value of `dtype` (fp16 goes through fp32
/// first, as a float32 -> float16 conversion on the device would).
inline double round_to_dtype(double value, DType dtype) {
  const float f = static_cast<float>(value);
  if (dtype == DType::Float16) return fp16_ieee_to_fp32_value(fp16_ieee_from_fp32_value(f));
  return f;
}

}  // namespace ipusim::coll
