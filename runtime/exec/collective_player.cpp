#include "runtime/exec/collective_player.hpp"

#include <algorithm>
#include <set>
#include <systemc>

#include "models/ipu/popops_vertices.hpp"
#include "models/system/system.hpp"
#include "runtime/exec/collective_program.hpp"
#include "runtime/exec/plan_scaling.hpp"
#include "runtime/exec/step_memo.hpp"
#include "sim/progress.hpp"
#include "sim/run_info.hpp"
#include "sim/sim_time.hpp"
#include "sim/trace.hpp"

namespace ipusim {
namespace {

/// The per-step vectors of a play (play_impl's names). A step of a 16,384-replica collective
/// has millions of transfers, so each vector grows to tens of MB: allocated afresh for every
/// play, their pages were faulted in (and zeroed by the kernel) again for every collective.
/// Kept with their capacity instead; only their contents are per play (each play clears them
/// before use), so reusing them changes no result.
struct PlayScratch {
  std::vector<coll::Transfer> transfers;  ///< generate_schedule's buffer
  std::vector<const Route*> step_routes;
  std::vector<std::uint64_t> step_bytes, new_bytes, last_fold_bytes;
  std::vector<std::uint64_t> pairs, prev_pairs;
  std::vector<char> crosses_links;
  void clear() {
    transfers.clear();
    step_routes.clear();
    step_bytes.clear();
    new_bytes.clear();
    last_fold_bytes.clear();
    pairs.clear();
    prev_pairs.clear();
    crosses_links.clear();
  }
};

/// Scratch not in use. A play waits (sc_core::wait) in the middle of its steps, so several
/// plays of several lanes' players can be under way at once: each takes a scratch of its own
/// from the pool and hands it back when done. One pool for every player (SystemC runs one
/// process at a time), so memory is kept for the most plays ever under way at once, not for
/// every player.
std::vector<std::unique_ptr<PlayScratch>>& scratch_pool() {
  static std::vector<std::unique_ptr<PlayScratch>> pool;
  return pool;
}

/// A scratch taken from the pool for one play, cleared, and returned to it at the end.
class ScratchLease {
 public:
  ScratchLease() {
    auto& pool = scratch_pool();
    if (pool.empty()) {
      scratch_ = std::make_unique<PlayScratch>();
    } else {
      scratch_ = std::move(pool.back());
      pool.pop_back();
      scratch_->clear();
    }
  }
  ~ScratchLease() { scratch_pool().push_back(std::move(scratch_)); }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  PlayScratch& operator*() { return *scratch_; }

 private:
  std::unique_ptr<PlayScratch> scratch_;
};

}  // namespace

Json CollectiveTiming::tiers_json() const {
  return Json{{"sync", sync_ns},
              {"exchange_fixed", exchange_fixed_ns},
              {to_string(LinkTier::IpuLink), ipu_link_ns},
              {to_string(LinkTier::GwLink), gw_link_ns},
              {"on_chip", on_chip_ns},
              {"reduce", reduce_ns},
              {"program", program_ns}};
}

coll::CollectiveTopology collective_topology(const System& system, std::uint32_t ipus_per_replica,
                                             coll::LinkConfig link_config) {
  coll::CollectiveTopology topo;
  topo.ipus_per_replica = ipus_per_replica;
  topo.ild_size_ipus = system.ild_size_ipus();
  topo.torus = system.torus();
  topo.link_config = link_config;
  topo.ilds_per_leaf = system.topology().ilds_per_leaf();
  return topo;
}

void record_collective_syncs(System& system, const std::vector<std::uint32_t>& ipus,
                             std::uint64_t steps, std::uint64_t gw_syncs) {
  if (gw_syncs > 0) system.sync(ipus, gw_syncs);
  if (steps <= gw_syncs) return;
  // The other steps synced each GCD on its own (concurrently): one sync of each GCD's members,
  // so a GCD that stays inside a domain records a domain sync, not one across the GW-Links.
  std::map<std::uint32_t, std::vector<std::uint32_t>> by_gcd;
  for (std::uint32_t ipu : ipus) by_gcd[system.gcd_of(ipu)].push_back(ipu);
  for (const auto& [gcd, members] : by_gcd) system.sync(members, steps - gw_syncs);
}

CollectivePlayer::CollectivePlayer(System& system) : system_(system) {}

void CollectivePlayer::trace_step(const coll::Superstep& step, LinkTier tier, double t0, double tx0,
                                  double t1) {
  auto& trace = TraceWriter::instance();
  const TraceTier tt =
      link_trace_tier(tier == LinkTier::GwLink ? ResourceKind::GwLink : ResourceKind::IpuLink);
  const Json args{{"transfers", step.transfers.size()}, {"tier", to_string(tier)}};
  // Collectives of several lanes can run at once: async slices, one row per overlap.
  trace.async_slice("collectives", step.phase, step.phase, t0, t1 - t0, args, tt);
  // Per-IPU and per-link tracks, for systems small enough to read in a trace viewer, or for
  // the IPUs named by --trace-ipus.
  if (system_.num_ipus() > kMaxTracedIpus && !trace.has_ipu_filter()) return;
  std::set<std::uint32_t> ipus;
  std::set<ResourceId> links;
  for (const auto& t : step.transfers) {
    const bool src = trace.ipu_selected(t.src_ipu), dst = trace.ipu_selected(t.dst_ipu);
    if (src) ipus.insert(t.src_ipu);
    if (dst) ipus.insert(t.dst_ipu);
    if (src || dst) {
      for (ResourceId id : route(t.src_ipu, t.dst_ipu)) links.insert(id);
    }
  }
  for (std::uint32_t ipu : ipus) {
    const std::string process = "ipu" + std::to_string(ipu);
    trace.complete(process, "sync", "sync", t0, tx0 - t0);
    trace.complete(process, "collective", step.phase, tx0, t1 - tx0, args, tt);
  }
  // Links are shared by concurrent transfers: async slices.
  const auto& engine = system_.network().engine();
  for (ResourceId id : links) {
    const ResourceSpec& spec = engine.resource(id);
    trace.async_slice("links", spec.name, step.phase, tx0, t1 - tx0, Json(),
                      link_trace_tier(spec.kind));
  }
}

const Route& CollectivePlayer::route(std::uint32_t src, std::uint32_t dst) {
  const std::uint64_t key = (static_cast<std::uint64_t>(src) << 32) | dst;
  auto it = routes_.find(key);
  if (it == routes_.end()) it = routes_.emplace(key, system_.route(src, dst)).first;
  return it->second;
}

CollectiveTiming CollectivePlayer::play(const coll::CollectiveRequest& request,
                                        coll::Schedule* summary, const TileBoundFn& tile_bound) {
  return play_impl(request, summary, tile_bound, nullptr);
}

CollectiveTiming CollectivePlayer::play_planned(const coll::CollectiveRequest& request,
                                                CollectivePlan& plan) {
  return play_impl(request, nullptr, nullptr, &plan);
}

CollectiveTiming CollectivePlayer::play_impl(const coll::CollectiveRequest& request,
                                             coll::Schedule* summary, const TileBoundFn& tile_bound,
                                             CollectivePlan* plan) {
  CollectiveTiming timing;
  timing.start_ns = now_ns();
  const ChipParams& chip = system_.chip();
  const ClockDomain& clock = system_.clock();
  Network& network = system_.network();
  const bool tracing = trace_steps_ && TraceWriter::instance().enabled();
  // Steps that repeat the previous step's traffic replay its network outcome (exact; see
  // step_memo.hpp) when nothing else can use the network meanwhile and nothing traces it.
  const bool memo_on = exclusive_network_ && network.can_replay() &&
                       network.engine().params().fast_paths && !TraceWriter::instance().enabled();
  if (memo_on || tracing) plan = nullptr;

  // Every IPU of every member replica takes part in each BSP sync (a plan keeps them).
  std::vector<std::uint32_t> own_ipus;
  SyncCost sync_cost{}, local_sync_cost{};
  if (plan && plan->members_known) {
    sync_cost = plan->sync_cost;
    local_sync_cost = plan->local_sync_cost;
  } else {
    const std::uint32_t k_ipus = request.topology.ipus_per_replica;
    for (const auto& group : request.groups)
      for (std::uint32_t r : group)
        for (std::uint32_t j = 0; j < k_ipus; ++j) own_ipus.push_back(r * k_ipus + j);
    std::sort(own_ipus.begin(), own_ipus.end());
    sync_cost = system_.sync_cost(own_ipus);
    // Steps that stay inside IPU-Link domains sync each graph compile domain on its own
    // (concurrently): a Poplar program's external sync spans its GCD. With one GCD per domain
    // that is the largest per-domain sync; with one GCD over several domains (the V-IPU
    // default) it is a sync across the GW-Links even though the data stays on IPU-Links.
    std::map<std::uint32_t, std::vector<std::uint32_t>> by_gcd;
    for (std::uint32_t ipu : own_ipus) by_gcd[system_.gcd_of(ipu)].push_back(ipu);
    for (const auto& [gcd, members] : by_gcd) {
      const SyncCost c = system_.sync_cost(members);
      if (c.ns > local_sync_cost.ns) local_sync_cost = c;
    }
    if (plan) {
      plan->ipus = std::move(own_ipus);
      plan->sync_cost = sync_cost;
      plan->local_sync_cost = local_sync_cost;
      plan->members_known = true;
    }
  }
  const std::vector<std::uint32_t>& ipus = plan ? plan->ipus : own_ipus;
  const double fixed_ns = clock.cycles_to_ns(static_cast<double>(chip.exchange_fixed_cycles));
  const double internal_ns = clock.cycles_to_ns(static_cast<double>(chip.sync_internal_cycles));
  const double external_setup_ns =
      clock.cycles_to_ns(static_cast<double>(chip.external_exchange_fixed_cycles));
  const std::uint32_t elem_bytes = coll::dtype_bytes(request.dtype);

  // A plan about to be recorded whose request scales one recorded before (same shape, another
  // size: plan_scaling.hpp) is that plan scaled, and played as a recorded plan below.
  std::string shape_key;
  std::uint64_t shape_atom = 0;
  if (plan && !plan->complete && !plan->recording_failed && !plan->recording) {
    const coll::StreamShape shape = coll::stream_shape(request);  // throws as generation would
    shape_atom = shape.atom_elems;
    if (shape_atom > 0) {
      shape_key = plan_shape_key(request, shape);
      const auto it = shaped_plans_.find(shape_key);
      if (it != shaped_plans_.end()) {
        plan->steps = scale_plan(it->second, shape_atom, request.elements_per_replica, request.op,
                                 elem_bytes, chip, clock);
        plan->complete = true;
        ++scaled_plans_;
      }
    }
  }

  // Every step syncs the same IPUs; the syncs are recorded together at the end (same stats).
  std::uint64_t syncs = 0;
  std::uint64_t gw_link_ps = 0, ipu_link_ps = 0;
  double t0 = 0;
  // A step's start: its counters, the BSP sync (domain-local unless the exchange crosses
  // GW-Links) and the exchange's fixed cost.
  auto begin_step = [&](std::uint64_t num_transfers, LinkTier highest) {
    t0 = now_ns();
    ++timing.steps;
    timing.transfers += num_transfers;
    model_event_counter() += num_transfers + 1;
    const SyncCost& sync = highest == LinkTier::GwLink ? sync_cost : local_sync_cost;
    ++syncs;
    if (highest == LinkTier::GwLink) ++timing.gw_syncs;
    sc_core::wait(ns_to_sc(sync.ns));
    timing.sync_ns += sync.ns;
    sc_core::wait(ns_to_sc(fixed_ns));
    timing.exchange_fixed_ns += fixed_ns;
    if (highest != LinkTier::Local) {
      // A step that crosses IPUs is a superstep across chips, as a tile step that crosses
      // them: each IPU's internal barrier before the external one (patent US 10,579,585 B2,
      // claim 1) and the external exchange's set-up (/chip/external_exchange_fixed_cycles).
      sc_core::wait(ns_to_sc(internal_ns + external_setup_ns));
      timing.sync_ns += internal_ns;
      timing.exchange_fixed_ns += external_setup_ns;
    }
  };
  // The rest of a step once its exchange (`exchange`, which plays the transfers) is due.
  auto finish_step = [&](const std::string& phase, LinkTier highest, std::uint64_t max_sent,
                         bool reduce, std::uint64_t max_reduce_elems, double program_ns,
                         auto&& exchange) {
    const double tx0 = now_ns();
    const std::uint64_t tx0_ps = sc_core::sc_time_stamp().value();
    exchange();
    const std::uint64_t link_ps = sc_core::sc_time_stamp().value() - tx0_ps;
    double link_ns = now_ns() - tx0;
    // Summed in whole ps: the totals then do not depend on when the collective ran (the
    // executor replays a cached collective's totals and must match playing it again).
    (highest == LinkTier::GwLink ? gw_link_ps : ipu_link_ps) += link_ps;
    if (tile_bound) {
      // Data leaves each IPU through its tiles: the busiest tile may be slower than the links.
      const double tile_ns = clock.cycles_to_ns(static_cast<double>(tile_bound(max_sent)));
      if (tile_ns > link_ns) {
        sc_core::wait(ns_to_sc(tile_ns - link_ns));
        timing.on_chip_ns += tile_ns - link_ns;
      }
    }
    if (reduce && max_reduce_elems > 0) {
      // The step's addInPlace (poplibs CollectivesProgram.hpp opInPlace, ADD -> addInPlace,
      // before GCL took the code over at 887b9d3a): a popops BinaryOp1DInPlace
      // ADD on every tile that holds part of the received fragment, timed by its cycle
      // estimator on the busiest tile (models/ipu/popops_vertices.hpp); the fragment lies over
      // the tiles as the program's slices see it (CollectiveFragment::elems_per_tile()).
      CollectiveFragment received;
      received.elems = max_reduce_elems;
      received.elem_bytes = elem_bytes;
      received.tiles = chip.tiles;
      const double reduce_ns = clock.cycles_to_ns(static_cast<double>(
          add_in_place_tile_cycles(chip, received.elems_per_tile(), elem_bytes)));
      sc_core::wait(ns_to_sc(reduce_ns));
      timing.reduce_ns += reduce_ns;
    }
    // The step's on-chip program: ring-index ops, the fragment's slice / update and copies.
    sc_core::wait(ns_to_sc(program_ns));
    timing.program_ns += program_ns;
    const double t1 = now_ns();
    timing.phase_ns[phase] += t1 - t0;
    return std::make_pair(tx0, t1);
  };

  // A recorded plan: each step's folded batch goes to the network as it is. Should the network
  // stop folding (a batch that is not symmetric), the schedule is generated from that step on.
  std::uint64_t skip = 0;  // steps already played from the plan
  bool resume_mid_step = false;
  if (plan && plan->complete) {
    for (const PlannedStep& ps : plan->steps) {
      begin_step(ps.transfers, ps.highest);
      if (ps.batch && !network.folding()) {
        resume_mid_step = true;
        break;
      }
      finish_step(ps.phase, ps.highest, 0, ps.reduce, ps.max_reduce_elems_per_ipu, ps.program_ns,
                  [&] {
                    if (!ps.batch) return;
                    network.transfer_batch_folded(ps.batch->routes, ps.batch->bytes,
                                                  ps.batch->folded, ps.batch->flows);
                    timing.flows += ps.batch->flows;
                  });
      RunProgress::instance().done(1, "supersteps");
      ++skip;
      ++planned_steps_;
    }
    if (!resume_mid_step) {
      timing.gw_link_ns = static_cast<double>(gw_link_ps) * 1e-3;
      timing.ipu_link_ns = static_cast<double>(ipu_link_ps) * 1e-3;
      plan->pending_syncs += syncs;
      plan->pending_gw_syncs += timing.gw_syncs;
      timing.end_ns = now_ns();
      return timing;
    }
  }
  // Recording: this play lists each step's folded batch in the plan.
  const bool recording =
      plan && !plan->complete && !plan->recording_failed && !plan->recording && skip == 0;
  if (recording) {
    plan->steps.clear();
    plan->recording = true;
  }
  std::shared_ptr<const CompactFoldedBatch> last_batch;
  std::uint64_t traffic_version = 0, last_batch_version = ~0ull;
  // The last folding's routes (by version), bytes and each class's first flow: a step with the
  // same routes whose sizes relabel the last one's one to one folds the same way (classes are
  // equal sizes and cells, so only the partition of the sizes matters), with its sizes.
  std::uint64_t routes_version = 0, last_fold_routes_version = ~0ull;
  std::uint64_t routes_hash = 0;  // of step_routes
  ScratchLease lease;
  PlayScratch& scratch = *lease;
  std::vector<std::uint64_t>& last_fold_bytes = scratch.last_fold_bytes;
  std::vector<std::uint32_t> last_fold_first;
  // Per recorded step: whether it began its phase, its largest transfer (ShapedPlan).
  std::vector<char> rec_first_of_phase;
  std::vector<std::uint64_t> rec_fragment_elems;

  // The traffic of the previous step: routes (of the transfers that cross links), bytes,
  // highest tier and the most bytes one IPU sent. Consecutive steps often move data between
  // the same IPU pairs (ring steps): routes and tiers are then looked up once, and a step that
  // the schedule marks as repeating the previous step's traffic is not looked at at all.
  std::vector<const Route*>& step_routes = scratch.step_routes;
  std::vector<std::uint64_t>& step_bytes = scratch.step_bytes;
  std::vector<std::uint64_t>& new_bytes = scratch.new_bytes;
  std::unordered_map<std::uint32_t, std::uint64_t> sent_per_ipu;
  std::vector<std::uint64_t>& pairs = scratch.pairs;
  std::vector<std::uint64_t>& prev_pairs = scratch.prev_pairs;
  // Per transfer of prev_pairs: its route is not empty.
  std::vector<char>& crosses_links = scratch.crosses_links;
  LinkTier prev_highest = LinkTier::Local;
  std::uint64_t prev_max_sent = 0;
  std::uint64_t prev_max_transfer = 0;  // the largest transfer: one fragment
  bool have_prev = false;
  // The previous step's phase and kind: a new one pays its prologue (collective_program.hpp).
  std::string last_phase;
  bool last_reduce = false;
  bool any_step = false;
  // An all-gather lays out its own output (poplibs replicatedAllGather): no copy out of it.
  const bool own_output = request.op == coll::CollectiveOp::AllGather;
  StepMemo memo(network);
  std::uint64_t index = 0;
  auto play_step = [&](const coll::Superstep& step) {
    const std::uint64_t i = index++;
    const std::uint64_t num_transfers = step.transfers.size() + step.elided_transfers;
    if (!(have_prev && step.same_traffic_as_previous)) {
      // Reserved to the step's size: grown by doubling, a vector of a 4 M-transfer step would
      // briefly hold its old and new storage (and copy the old).
      const std::size_t nt = step.transfers.size();
      pairs.clear();
      pairs.reserve(nt);
      new_bytes.reserve(nt);
      for (const auto& t : step.transfers)
        pairs.push_back((static_cast<std::uint64_t>(t.src_ipu) << 32) | t.dst_ipu);
      const bool same_pairs = have_prev && pairs == prev_pairs;
      if (!same_pairs) {
        prev_pairs.swap(pairs);
        ++routes_version;
        step_routes.clear();
        crosses_links.clear();
        step_routes.reserve(nt);
        crosses_links.reserve(nt);
        prev_highest = LinkTier::Local;
        // A pair's transfers often follow each other (the runs of one fragment): the route
        // and tier of the last pair are reused.
        std::uint64_t last_pair = ~0ull;
        const Route* r = nullptr;
        for (std::size_t k = 0; k < step.transfers.size(); ++k) {
          if (prev_pairs[k] != last_pair) {
            last_pair = prev_pairs[k];
            r = &route(step.transfers[k].src_ipu, step.transfers[k].dst_ipu);
            if (!r->empty()) {
              const LinkTier tier = system_.tier(*r);
              if (static_cast<int>(tier) > static_cast<int>(prev_highest)) prev_highest = tier;
            }
          }
          crosses_links.push_back(!r->empty());
          if (!r->empty()) step_routes.push_back(r);
        }
        // FNV-1a over the route pointers: finds fold_memo_'s candidates (only a recording
        // play reads it).
        routes_hash = 14695981039346656037ull;
        if (recording) {
          for (const Route* r : step_routes)
            routes_hash = (routes_hash ^ reinterpret_cast<std::uintptr_t>(r)) * 1099511628211ull;
        }
      }
      new_bytes.clear();
      prev_max_sent = 0;
      prev_max_transfer = 0;
      if (tile_bound) sent_per_ipu.clear();
      for (std::size_t k = 0; k < step.transfers.size(); ++k) {
        if (!crosses_links[k]) continue;
        const auto& t = step.transfers[k];
        new_bytes.push_back(t.bytes);
        prev_max_transfer = std::max(prev_max_transfer, t.bytes);
        if (tile_bound) prev_max_sent = std::max(prev_max_sent, sent_per_ipu[t.src_ipu] += t.bytes);
      }
      // Other traffic than the recorded step's: the memo no longer applies.
      if (!same_pairs || new_bytes != step_bytes) {
        memo.clear();
        ++traffic_version;
      }
      step_bytes.swap(new_bytes);
      have_prev = true;
    }
    const bool first_of_phase = !any_step || last_phase != step.phase || last_reduce != step.reduce;
    if (first_of_phase) {
      last_phase = step.phase;
      last_reduce = step.reduce;
    }
    any_step = true;
    if (i < skip) return;  // played from the plan
    const std::uint64_t fragment_elems = prev_max_transfer / elem_bytes;
    const double program_ns =
        step_program_ns(chip, clock, step.reduce, first_of_phase, own_output, fragment_elems,
                        request.elements_per_replica, elem_bytes);
    const LinkTier highest = prev_highest;
    const std::uint64_t max_sent = prev_max_sent;
    if (!(i == skip && resume_mid_step)) begin_step(num_transfers, highest);
    const auto [tx0, t1] = finish_step(
        step.phase, highest, max_sent, step.reduce, step.max_reduce_elems_per_ipu, program_ns, [&] {
          if (memo_on && memo.can_replay()) {
            memo.replay();
          } else if (memo_on) {
            memo.play_and_record(step_routes, step_bytes);
          } else if (recording && !plan->recording_failed && network.folding()) {
            // Fold the step once (repeats of its traffic share the folding), start it folded.
            if (!step_routes.empty() && last_batch_version != traffic_version) {
              if (last_batch && last_fold_routes_version == routes_version &&
                  sizes_relabel_one_to_one(last_fold_bytes, step_bytes)) {
                auto b = std::make_shared<CompactFoldedBatch>(*last_batch);
                for (std::size_t c = 0; c < b->bytes.size(); ++c)
                  b->bytes[c] = b->folded.classes[c].bytes = step_bytes[last_fold_first[c]];
                last_batch = std::move(b);
              } else {
                std::vector<FoldMemo>& seen = fold_memo_[routes_hash];
                const FoldMemo* hit = nullptr;
                for (const FoldMemo& m : seen) {
                  if (m.routes.equals(step_routes) &&
                      sizes_relabel_one_to_one(m.bytes, step_bytes)) {
                    hit = &m;
                    break;
                  }
                }
                if (hit) {
                  ++reused_foldings_;
                  auto b = std::make_shared<CompactFoldedBatch>(*hit->batch);
                  for (std::size_t c = 0; c < b->bytes.size(); ++c)
                    b->bytes[c] = b->folded.classes[c].bytes = step_bytes[hit->first[c]];
                  last_batch = std::move(b);
                  last_fold_first = hit->first;
                } else {
                  ++fresh_foldings_;
                  const std::optional<FoldedBatch> f = fold_batch(
                      *network.engine().fold_cells(), step_routes, step_bytes, &fold_scratch_);
                  last_batch = f ? compact_folding(*f, step_routes, step_bytes) : nullptr;
                  last_fold_first.clear();
                  if (last_batch) {
                    for (const FoldedClass& c : f->classes) last_fold_first.push_back(c.first);
                    seen.push_back(FoldMemo{RunLengthVector<const Route*>(step_routes),
                                            RunLengthVector<std::uint64_t>(step_bytes),
                                            last_fold_first, last_batch});
                  }
                }
              }
              last_fold_routes_version = routes_version;
              last_fold_bytes = step_bytes;
              last_batch_version = traffic_version;
            }
            if (step_routes.empty() || last_batch) {
              PlannedStep ps{step.phase,
                             highest,
                             step.reduce,
                             step.max_reduce_elems_per_ipu,
                             num_transfers,
                             program_ns,
                             step_routes.empty() ? nullptr : last_batch};
              plan->steps.push_back(std::move(ps));
              rec_first_of_phase.push_back(first_of_phase);
              rec_fragment_elems.push_back(fragment_elems);
              if (!step_routes.empty())
                network.transfer_batch_folded(last_batch->routes, last_batch->bytes,
                                              last_batch->folded, last_batch->flows);
            } else {
              plan->recording_failed = true;  // not symmetric: the network's general path
              network.transfer_batch(step_routes, step_bytes);
            }
          } else {
            if (recording) plan->recording_failed = true;
            network.transfer_batch(step_routes, step_bytes);
          }
          timing.flows += step_routes.size();
        });
    if (tracing) trace_step(step, highest, t0, tx0, t1);
    RunProgress::instance().done(1, "supersteps");
  };
  // Timing only: steps that repeat the previous step's traffic come without transfers (the
  // per-IPU trace slices need them all).
  coll::Schedule s = coll::generate_schedule(
      request, play_step, tracing ? coll::StepDetail::Full : coll::StepDetail::TimingOnly,
      &scratch.transfers);
  memo.flush();
  replayed_steps_ += memo.replayed();
  if (recording) {
    plan->recording = false;
    plan->complete = !plan->recording_failed;
    if (plan->complete && shape_atom > 0) {
      shaped_plans_.try_emplace(shape_key,
                                ShapedPlan{shape_atom, plan->steps, std::move(rec_first_of_phase),
                                           std::move(rec_fragment_elems)});
    }
  }
  timing.gw_link_ns = static_cast<double>(gw_link_ps) * 1e-3;
  timing.ipu_link_ns = static_cast<double>(ipu_link_ps) * 1e-3;
  if (plan) {
    plan->pending_syncs += syncs;
    plan->pending_gw_syncs += timing.gw_syncs;
  } else {
    record_collective_syncs(system_, ipus, syncs, timing.gw_syncs);
  }
  if (summary) *summary = std::move(s);
  timing.end_ns = now_ns();
  return timing;
}

}  // namespace ipusim
