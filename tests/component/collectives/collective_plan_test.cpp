// Collective plans on a real system (runtime/exec/collective_plan.hpp): two Pod4 domains joined
// by GW-Links, 8 replicas of one IPU, a 1 MiB AllReduce over all of them. With the network
// folding, the first planned play records every step folded, the second hands the network the
// recorded batches without generating the schedule, and a play after the network stopped
// folding generates it again and takes the general path: all three give the plain play's
// timing (the steps' link time is summed in whole ps, so it does not depend on when it ran).
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <catch2/catch.hpp>
#include <memory>
#include <systemc>
#include <vector>

#include "models/network/flow_fold.hpp"
#include "runtime/exec/collective_player.hpp"
#include "tests/component/collectives/collective_fixture.hpp"

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// Two Pod4 domains joined as a ring, with the network folding over their symmetry cells.
std::unique_ptr<System> two_pod4_domains() {
  register_sim_params();
  register_model_params();
  register_runtime_params();
  ConfigDoc doc = ConfigDoc::load_file(test::source_dir() + "/configs/systems/pod4.json");
  doc.apply_override("/system/num_ilds=2");
  doc.apply_override("/system/gw_topology=\"ring\"");
  auto system = build_system(doc);
  Network& net = system->network();
  REQUIRE(net.set_fold(
      std::make_shared<ResourceCells>(system->topology().symmetry_cells(), net.engine())));
  return system;
}

/// A float32 AllReduce of `elements` per replica over the 8 replicas of the two domains.
coll::CollectiveRequest allreduce_of(const System& system, std::uint64_t elements) {
  coll::CollectiveRequest req;
  req.op = coll::CollectiveOp::AllReduce;
  req.dtype = coll::DType::Float32;
  req.elements_per_replica = elements;
  req.topology = collective_topology(system, 1, coll::LinkConfig::Default);
  req.groups = {{0, 1, 2, 3, 4, 5, 6, 7}};
  return req;
}

/// `t` has the plain play's steps, transfers and flows and its time in every part.
void check_times_as(const CollectiveTiming& plain, const CollectiveTiming& t) {
  CHECK(t.steps == plain.steps);
  CHECK(t.transfers == plain.transfers);
  CHECK(t.flows == plain.flows);
  CHECK(t.gw_link_ns == plain.gw_link_ns);
  CHECK(t.ipu_link_ns == plain.ipu_link_ns);
  CHECK(t.sync_ns == Approx(plain.sync_ns).epsilon(1e-12));
  CHECK(t.reduce_ns == Approx(plain.reduce_ns).epsilon(1e-12));
  CHECK(t.total_ns() == Approx(plain.total_ns()).epsilon(1e-12));
}

}  // namespace

TEST_CASE("plan: recorded, replayed and unfolded plays of a collective time as the plain play",
          "[plan]") {
  auto system = two_pod4_domains();
  Network& net = system->network();

  const coll::CollectiveRequest req = allreduce_of(*system, 262144);  // 1 MiB

  CollectivePlayer player(*system);
  player.set_trace_steps(false);
  CollectivePlan plan;
  CollectiveTiming plain, recorded, replayed, unfolded;
  std::uint64_t prefolded_recording = 0, prefolded_replay = 0, planned_after_replay = 0;
  bool folding_after_odd_batch = true;
  sc_core::sc_spawn([&] {
    plain = player.play(req);  // the network checks and folds each batch itself
    recorded = player.play_planned(req, plan);
    prefolded_recording = net.prefolded_batches();
    replayed = player.play_planned(req, plan);
    prefolded_replay = net.prefolded_batches() - prefolded_recording;
    planned_after_replay = player.planned_steps();
    // One transfer inside domain 0 only is not symmetric: on the idle network folding ends.
    const Route r = system->route(0, 1);
    net.transfer_batch({&r}, {4096});
    folding_after_odd_batch = net.folding();
    unfolded = player.play_planned(req, plan);
  });
  sc_core::sc_start();

  REQUIRE(plain.steps > 0);
  REQUIRE(plan.complete);
  CHECK(plan.steps.size() == plain.steps);
  // Recording hands over every step with transfers; the replay exactly as many, none generated.
  CHECK(prefolded_recording > 0);
  CHECK(prefolded_replay == prefolded_recording);
  CHECK(planned_after_replay == plain.steps);
  CHECK_FALSE(folding_after_odd_batch);
  // The play after folding ended went through the general path: no step from the plan.
  CHECK(player.planned_steps() == planned_after_replay);
  for (const CollectiveTiming* t : {&recorded, &replayed, &unfolded}) {
    check_times_as(plain, *t);
  }
}

TEST_CASE("plan: a collective of another size of the same shape is the recorded plan scaled",
          "[plan]") {
  // The system and grouping of the case above; AllReduces of 1 MiB and of 1 MiB + 32 KiB
  // (270,336 elements): the same methods, so the same steps with every size in proportion to
  // the atom (coll::stream_shape). Recording the larger plan takes the 1 MiB plan with its
  // sizes scaled (plan_scaling.hpp): no schedule is generated, so no step is folded, afresh or
  // from a recorded folding; its recorded and replayed plays still time exactly as its plain
  // play, which generates every step.
  auto system = two_pod4_domains();

  const coll::CollectiveRequest small = allreduce_of(*system, 262144);  // 1 MiB
  coll::CollectiveRequest large = small;
  large.elements_per_replica = 270336;  // 1 MiB + 32 KiB

  CollectivePlayer player(*system);
  player.set_trace_steps(false);
  CollectivePlan plan_small, plan_large;
  CollectiveTiming plain, recorded, replayed;
  std::uint64_t reused_after_small = 0, fresh_after_small = 0;
  sc_core::sc_spawn([&] {
    plain = player.play(large);
    player.play_planned(small, plan_small);
    reused_after_small = player.reused_foldings();
    fresh_after_small = player.fresh_foldings();
    recorded = player.play_planned(large, plan_large);
    replayed = player.play_planned(large, plan_large);
  });
  sc_core::sc_start();

  REQUIRE(plan_large.complete);
  CHECK(fresh_after_small > 0);
  CHECK(player.scaled_plans() == 1);
  CHECK(player.fresh_foldings() == fresh_after_small);
  CHECK(player.reused_foldings() == reused_after_small);
  CHECK(plan_large.steps.size() == plain.steps);
  for (const CollectiveTiming* t : {&recorded, &replayed}) {
    check_times_as(plain, *t);
  }
}

TEST_CASE("plan: plans of other sizes, scaled or recorded, time as their plain plays", "[plan]") {
  // After a 1 MiB plan, plans of 1 MiB + 32 KiB, 1.5, 2 and 4 MiB, 1 KiB and 3 elements: whether
  // scaled from a plan of the same shape or recorded (another method), each plays as its plain
  // play.
  auto system = two_pod4_domains();
  const std::vector<std::uint64_t> sizes = {262144, 270336, 393216, 524288, 1048576, 256, 3};
  CollectivePlayer player(*system);
  player.set_trace_steps(false);
  std::vector<CollectivePlan> plans(sizes.size());
  std::vector<CollectiveTiming> plain(sizes.size()), planned(sizes.size());
  sc_core::sc_spawn([&] {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const coll::CollectiveRequest req = allreduce_of(*system, sizes[i]);
      plain[i] = player.play(req);
      planned[i] = player.play_planned(req, plans[i]);
    }
  });
  sc_core::sc_start();
  CHECK(player.scaled_plans() >= 1);  // 1 MiB + 32 KiB relates so to 1 MiB (case above)
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    INFO("elements " << sizes[i]);
    CHECK(plans[i].complete);
    check_times_as(plain[i], planned[i]);
  }
}
