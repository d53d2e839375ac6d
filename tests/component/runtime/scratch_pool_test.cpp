// The collective players' shared scratch pool (collective_player.cpp): kept across the plays
// of a run, freed when the run's last CollectivePlayer is destroyed, so a process that runs
// simulation after simulation does not keep a finished run's largest step buffers. Measured
// in the pool's own bytes (capacity of its vectors), not the process's RSS.
#include "runtime/exec/collective_player.hpp"
#include "tests/component/runtime/phased_chain.hpp"

using namespace ipusim;
using namespace ipusim::test;

TEST_CASE("collective scratch pool: kept while a player lives, freed with the last player",
          "[collective_player]") {
  // A clockwise ring AllReduce of 1 MiB over the 4 IPUs of pod4, one IPU per replica: every step
  // of the ring has each IPU send to its neighbour, so the step's transfer list held at least 4
  // transfers and the scratch the play hands back keeps at least 4 x sizeof(Transfer) bytes.
  REQUIRE(collective_scratch_pool_bytes() == 0);  // nothing played yet in this process
  TrainingRun r = TrainingRun::make("pod4", Json{{"kind", "collective"},
                                                 {"op", "allreduce"},
                                                 {"bytes", 1 << 20},
                                                 {"dtype", "float32"},
                                                 {"algorithm", "clockwise"}});
  const std::uint64_t kept = collective_scratch_pool_bytes();
  CHECK(kept >= 4 * sizeof(coll::Transfer));
  // The workload owns the only player: destroying it frees the pool.
  r.workload.reset();
  CHECK(collective_scratch_pool_bytes() == 0);
}
