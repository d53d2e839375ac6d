// The exchange, sync and workers that the reduction closed forms of the ipu model tests are
// worked with, set here so that they do not follow the fitted values.
#pragma once

#include "models/params/hw_params.hpp"

namespace ipusim::test {

/// `c` with 6 workers, a 150-cycle internal sync and a 16-column exchange of 4 B/cycle per
/// tile, 100 fixed cycles per phase and 1 cycle per column: what a reduction's stages use.
inline ChipParams with_round_reduction_costs(ChipParams c) {
  c.worker_threads = 6;
  c.sync_internal_cycles = 150;
  c.exchange_fixed_cycles = 100;
  c.exchange_bytes_per_cycle_per_tile = 4;
  c.exchange_columns = 16;
  c.exchange_cycles_per_column = 1;
  return c;
}

}  // namespace ipusim::test
