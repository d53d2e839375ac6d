// sc_spawn (one thread per lane) needs the dynamic-process API.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "runtime/exec/executor.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <tuple>

#include "models/ipu/compute.hpp"
#include "models/network/flow_fold.hpp"
#include "models/system/system.hpp"
#include "runtime/exec/compute_timing.hpp"
#include "runtime/exec/link_utilisation.hpp"
#include "runtime/exec/phase_reach.hpp"
#include "runtime/exec/trace_estimate.hpp"
#include "runtime/exec/watchdog.hpp"
#include "sim/progress.hpp"
#include "sim/sim_time.hpp"
#include "sim/trace.hpp"

namespace ipusim::rt {
namespace {

constexpr Lane kLanes[] = {Lane::Compute, Lane::Io, Lane::IoPhase};

coll::DType coll_dtype(DType d) {
  return d == DType::Float16 ? coll::DType::Float16 : coll::DType::Float32;
}

/// Collectives and IpuCopies: traffic between IPUs (IPU-Links; across domains also gateway
/// links, GW-Links and the switch).
bool uses_links(LKind k) { return k == LKind::Collective || k == LKind::IpuCopy; }
/// Remote and host transfers: gateway links, DDR and host links only.
bool uses_io(LKind k) { return k == LKind::RemoteExchange || k == LKind::Host; }

/// Resource kinds a collective inside IPU-Link domains can use.
bool inter_ipu_kind(ResourceKind k) { return link_tier(k).inter_ipu; }

std::size_t lane_index(int vg, Lane l) {
  return static_cast<std::size_t>(vg) * 3 + static_cast<std::size_t>(l);
}

}  // namespace

Executor::Executor(sc_core::sc_module_name name, System& system, const Program& program,
                   std::uint32_t replicas, std::uint32_t ipus_per_replica, ExecutorOptions options)
    : sc_core::sc_module(name),
      system_(system),
      program_(program),
      replicas_(replicas),
      ipr_(ipus_per_replica),
      opt_(options) {
  timings_.resize(program.phases.size());
  done_ops_.resize(program.phases.size());
  for (std::size_t i = 0; i < program.phases.size(); ++i) {
    timings_[i].resize(program.phases[i].ops.size());
    done_ops_[i].assign(program.phases[i].ops.size(), 0);
  }
  for (std::uint32_t i = 0; i < replicas_ * ipr_; ++i) all_ipus_.push_back(i);
  // Identical replicas filling identical IPU-Link domains issue symmetric traffic: the network
  // folds each batch onto one representative per class of equivalent flows and resources
  // (models/network/flow_fold.hpp; exact, and every batch is checked). Not when only the first
  // machine does IO. Traced runs fold too: the trace's utilisation counters weigh each
  // representative by its cell (FlowEngine::set_sum_rate), the rest is traced from op timings.
  if (!opt_.first_machine_only && replicas_ * ipr_ == system_.num_ipus() &&
      system_.topology().num_ilds() > 1) {
    // While it folds, collectives and remote transfers played before hand it their folded
    // batches directly (collective_plan.hpp): per-step cost by classes, not replicas.
    if (system_.network().set_fold(std::make_shared<ResourceCells>(
            system_.topology().symmetry_cells(), system_.network().engine())))
      plans_ = std::make_shared<CollectivePlans>();
  }
  std::uint64_t ops = 0;
  for (const auto& phase : program.phases) ops += phase.ops.size();
  RunProgress::instance().add_total(ops, "ops");
  announce_program_trace(program, replicas_, ipr_,
                         system_.num_ipus());  // warns before a > 1 GiB trace
  sync_ns_ = system_.sync_cost(all_ipus_).ns;
  SC_THREAD(master);
  for (std::uint32_t vg = 0; vg < ipr_; ++vg) {
    for (Lane l : kLanes) {
      players_.push_back(std::make_unique<CollectivePlayer>(system_));
      players_.back()->set_trace_steps(false);  // trace_op() traces each collective op
      sc_core::sc_spawn_options o;
      sc_core::sc_spawn([this, vg, l] { lane(static_cast<int>(vg), l); },
                        sc_core::sc_gen_unique_name(("lane_" + to_string(l)).c_str()), &o);
    }
  }
}

std::vector<std::uint32_t> Executor::replica_ipus(int vg, bool io_only) const {
  std::vector<std::uint32_t> out;
  for (std::uint32_t r = 0; r < replicas_; ++r) {
    const std::uint32_t ipu = r * ipr_ + static_cast<std::uint32_t>(vg);
    // All machines see the same traffic, so the first machine alone gives the same time.
    if (io_only && opt_.first_machine_only && system_.machine_of(ipu) != 0) break;
    out.push_back(ipu);
  }
  return out;
}

void Executor::master() {
  const int lanes = static_cast<int>(ipr_) * 3;
  for (std::size_t p = 0; p < program_.phases.size() && !stop_; ++p) {
    const double t0 = now_ns();
    current_ = p;
    lanes_done_ = 0;
    link_pending_ = io_pending_ = 0;
    lane_link_pending_.assign(static_cast<std::size_t>(lanes), 0);
    lane_io_pending_.assign(static_cast<std::size_t>(lanes), 0);
    const auto& ops = program_.phases[p].ops;
    waiters_.assign(ops.size(), {});
    std::vector<std::size_t> last_on_lane(static_cast<std::size_t>(lanes), ops.size());
    for (std::size_t j = 0; j < ops.size(); ++j) {
      const LOp& op = ops[j];
      const std::size_t li = lane_index(op.vg, op.lane);
      if (uses_links(op.kind)) ++link_pending_, ++lane_link_pending_[li];
      if (uses_io(op.kind)) ++io_pending_, ++lane_io_pending_[li];
      for (int d : op.deps) waiters_[static_cast<std::size_t>(d)].push_back(j);
      if (last_on_lane[li] < ops.size()) waiters_[last_on_lane[li]].push_back(j);
      last_on_lane[li] = j;
    }
    ++generation_;
    go_.notify(sc_core::SC_ZERO_TIME);
    while (lanes_done_ < lanes) sc_core::wait(lane_done_);
    if (stop_) break;
    // Phases are separated by a sync of every IPU taking part (syncReplicasIndependently=false).
    const double ts = now_ns();
    system_.sync(all_ipus_);
    sc_core::wait(ns_to_sc(sync_ns_));
    intervals_.push_back({ts, now_ns(), kSyncCategory});
    phase_ns_.push_back({t0, now_ns()});
    TraceWriter::instance().complete("phases", "phase", "phase " + std::to_string(p), t0,
                                     now_ns() - t0);
  }
  end_ns_ = now_ns();
  if (plans_) plans_->flush_syncs(system_);
  if (!stop_) replicate_activity();
  done_ = !stop_;
  ++generation_;
  stop_ = true;
  go_.notify(sc_core::SC_ZERO_TIME);
}

std::string Executor::stall_report() const {
  return done_ || current_ >= done_ops_.size()
             ? ""
             : describe_stall(program_, current_, done_ops_[current_]);
}

void Executor::lane(int vg, Lane l) {
  CollectivePlayer& player =
      *players_[static_cast<std::size_t>(vg) * 3 + static_cast<std::size_t>(l)];
  std::uint64_t seen = 0;
  for (;;) {
    while (generation_ == seen) sc_core::wait(go_);
    seen = generation_;
    if (stop_) return;
    const std::size_t p = current_;
    const auto& ops = program_.phases[p].ops;
    try {
      for (std::size_t i = 0; i < ops.size(); ++i) {
        const LOp& op = ops[i];
        if (op.vg != vg || op.lane != l) continue;
        for (;;) {
          bool ready = true;
          for (int d : op.deps) ready = ready && done_ops_[p][static_cast<std::size_t>(d)];
          if (ready) break;
          sc_core::wait(op_done_);
        }
        run_op(p, i, player);
        done_ops_[p][i] = 1;
        if (uses_links(op.kind)) --link_pending_, --lane_link_pending_[lane_index(vg, l)];
        if (uses_io(op.kind)) --io_pending_, --lane_io_pending_[lane_index(vg, l)];
        op_done_.notify(sc_core::SC_ZERO_TIME);
      }
    } catch (const std::exception& e) {
      // Exceptions must not escape a SystemC process; report them after sc_start.
      failure_ = e.what();
      stop_ = true;
      sc_core::sc_stop();
      return;
    }
    ++lanes_done_;
    lane_done_.notify(sc_core::SC_ZERO_TIME);
  }
}

void Executor::replicate_activity() {
  // Replica 0's IPUs went through the models for every compute op and copy; every replica
  // ran the same ops on identical IPUs (SPMD), so the others get the same activity.
  for (std::uint32_t r = 1; r < replicas_; ++r) {
    for (std::uint32_t vg = 0; vg < ipr_; ++vg)
      system_.ipu(r * ipr_ + vg).add_activity_of(system_.ipu(vg));
  }
}

std::uint64_t Executor::compute_op_cycles(int vg, const LOp& op, std::uint32_t compute_tiles) {
  Ipu& ipu = system_.ipu(static_cast<std::uint32_t>(vg));
  auto with_mapping = [&](ComputeSpec spec, const GemmShape& gemm, std::uint64_t bytes) {
    // per_tile: the op's output is mapped linearly over the tiles; a GEMM's output is m x n
    // (x groups) elements, a vector op's tensors are the bytes it reads and writes.
    spec.mapped_bytes =
        gemm.known() ? static_cast<std::uint64_t>(gemm.m) * static_cast<std::uint64_t>(gemm.n) *
                           static_cast<std::uint64_t>(gemm.groups > 0 ? gemm.groups : 1) *
                           static_cast<std::uint64_t>(compute_dtype_bytes(spec.dtype))
                     : bytes;
    spec.grain_bytes = opt_.grain_bytes;
    return ipu.compute(spec);
  };
  if (!op.parts) return with_mapping(compute_spec(op, compute_tiles), op.gemm, op.mem_bytes);
  const auto known = compute_effects_.find(op.parts.get());
  if (known != compute_effects_.end()) return ipu.apply(known->second);
  Ipu::ComputeEffect effect;
  std::uint64_t total = 0;
  {
    struct StopRecording {  // also when a part throws: the IPU must not keep a dangling record
      Ipu& ipu;
      ~StopRecording() { ipu.record_computes(nullptr); }
    } stop{ipu};
    ipu.record_computes(&effect);
    for (const ComputePart& p : *op.parts)
      total += with_mapping(compute_spec(p, compute_tiles), p.gemm, p.bytes);
  }
  compute_effects_.emplace(op.parts.get(), std::move(effect));
  return total;
}

bool Executor::network_alone(std::size_t index, bool crosses) {
  if (!system_.network().can_replay()) return false;
  // Defensive: the structure below already rules traffic out. A kind's rate is a running
  // sum, so an idle kind may read floating-point dust rather than 0 (1e-6 B/ns is far below
  // any flow).
  const FlowEngine& e = system_.network().engine();
  for (std::size_t k = 0; k < FlowEngine::kNumKinds; ++k) {
    const auto kind = static_cast<ResourceKind>(k);
    if ((crosses || inter_ipu_kind(kind)) && e.kind_rate_Bpns(kind) > 1e-6) return false;
  }
  const auto& ops = program_.phases[current_].ops;
  const LOp& me = ops[index];
  const std::size_t li = lane_index(me.vg, me.lane);
  // Usual case: every unfinished op that could interfere is on this lane, after this op.
  if (link_pending_ == lane_link_pending_[li] && (!crosses || io_pending_ == lane_io_pending_[li]))
    return true;
  // Otherwise each such op must wait for this one (dependencies or lane order, transitively).
  // No op that waits for this one has started, so the unfinished ones of a class are all held
  // back by it exactly when their number is the number of that class it reaches: counted
  // once per phase (phase_reach.hpp) rather than searched for every collective.
  if (reach_phase_ != current_) {
    std::vector<std::uint8_t> cls(ops.size(), 0);
    for (std::size_t j = 0; j < ops.size(); ++j)
      cls[j] = uses_links(ops[j].kind) ? 1 : uses_io(ops[j].kind) ? 2 : 0;
    reach_ = phase_reach(waiters_, cls, kMaxReachBytes);
    reach_phase_ = current_;
  }
  if (!reach_.first.empty()) {
    return link_pending_ == reach_.first[index] &&
           (!crosses || io_pending_ == reach_.second[index]);
  }
  // A phase too large for the counts: search from this op.
  std::vector<char> reached(ops.size(), 0);
  std::vector<std::size_t> stack{index};
  reached[index] = 1;
  while (!stack.empty()) {
    const std::size_t j = stack.back();
    stack.pop_back();
    for (std::size_t w : waiters_[j]) {
      if (!reached[w]) reached[w] = 1, stack.push_back(w);
    }
  }
  for (std::size_t j = 0; j < ops.size(); ++j) {
    if (reached[j] || done_ops_[current_][j]) continue;
    if (uses_links(ops[j].kind) || (crosses && uses_io(ops[j].kind))) return false;
  }
  return true;
}

CollectiveTiming Executor::run_collective(const CollectiveOp& cop, const std::string& key,
                                          std::size_t index, CollectivePlayer& player,
                                          bool& cached) {
  Network& net = system_.network();
  const coll::CollectiveRequest& req = cop.request;
  const bool crosses = cop.crosses;
  const bool alone = opt_.collective_cache && network_alone(index, crosses);
  auto it = alone ? cache_.find(key) : cache_.end();
  if (it != cache_.end()) {
    // The original and this replay each had the network to themselves, so playing it again
    // would give the same time and the same traffic: wait, and credit that traffic (and the
    // syncs the player would record) instead of simulating every superstep.
    const CachedCollective& c = it->second;
    sc_core::wait(ns_to_sc(c.timing.total_ns()));
    net.credit_replay(c.timing.flows, 0, net.folding() ? c.rep_resources : c.resources);
    if (plans_ && plans_->plan(key).members_known) {
      // The same sorted IPUs the plan syncs: credited with its syncs at the end.
      plans_->plan(key).pending_syncs += c.timing.steps;
      plans_->plan(key).pending_gw_syncs += c.timing.gw_syncs;
    } else {
      std::vector<std::uint32_t> ipus;
      for (const auto& g : req.groups) ipus.insert(ipus.end(), g.begin(), g.end());
      std::sort(ipus.begin(), ipus.end());
      record_collective_syncs(system_, ipus, c.timing.steps, c.timing.gw_syncs);
    }
    cached = true;
    ++cached_;
    return c.timing;
  }
  ++played_;
  auto play = [&] {
    return plans_ ? player.play_planned(req, plans_->plan(key)) : player.play(req);
  };
  if (!alone) return play();
  // Record what the play adds to the network's stats (nothing else runs meanwhile).
  const std::size_t n = net.engine().num_resources();
  std::vector<ResourceStats> before(n);
  // Inside domains only the inter-IPU kinds are the collective's (remote and host transfers may
  // use the others meanwhile); across domains nothing else ran, so every resource is.
  auto recorded = [&](ResourceId id) {
    return crosses || inter_ipu_kind(net.engine().resource(id).kind);
  };
  for (ResourceId id = 0; id < n; ++id) {
    if (recorded(id)) before[id] = net.resource_stats(id);
  }
  CachedCollective c;
  c.crosses = crosses;
  c.timing = play();
  for (ResourceId id = 0; id < n; ++id) {
    if (!recorded(id)) continue;
    const ResourceStats after = net.resource_stats(id);
    if (after.transfers == before[id].transfers && after.bytes == before[id].bytes) continue;
    ResourceStats d;
    d.bytes = after.bytes - before[id].bytes;
    d.busy_ns = after.busy_ns - before[id].busy_ns;
    d.transfers = after.transfers - before[id].transfers;
    d.max_concurrent = after.max_concurrent;
    c.resources.emplace_back(id, d);
  }
  if (const ResourceCells* cells = net.engine().fold_cells()) {
    for (const auto& e : c.resources) {
      if (cells->rep(cells->cell_of(e.first)) == e.first) c.rep_resources.push_back(e);
    }
  }
  cache_[key] = std::move(c);
  return cache_[key].timing;
}

void Executor::run_transfers(std::vector<TransferRequest>& reqs) {
  reqs.erase(
      std::remove_if(reqs.begin(), reqs.end(),
                     [](const TransferRequest& r) { return r.bytes == 0 || r.route.empty(); }),
      reqs.end());
  if (reqs.empty()) return;
  // No per-transfer results are needed: the lean batch form (fast-path groups for transfers
  // alone on their links, exact; no callback per transfer).
  std::vector<const Route*> routes;
  std::vector<std::uint64_t> bytes;
  routes.reserve(reqs.size());
  bytes.reserve(reqs.size());
  for (const TransferRequest& r : reqs) {
    routes.push_back(&r.route);
    bytes.push_back(r.bytes);
  }
  system_.network().transfer_batch(routes, bytes);
}

void Executor::run_remote(int vg, std::uint64_t load, std::uint64_t store) {
  auto build = [&] {
    std::vector<TransferRequest> reqs;
    const std::vector<std::uint32_t> ipus = replica_ipus(vg, true);
    reqs.reserve(2 * ipus.size());
    for (std::uint32_t ipu : ipus) {
      if (load) reqs.push_back({system_.remote_load_route(ipu), load});
      if (store) reqs.push_back({system_.remote_store_route(ipu), store});
    }
    return reqs;
  };
  Network& net = system_.network();
  if (!plans_ || !net.folding()) {
    std::vector<TransferRequest> reqs = build();
    run_transfers(reqs);
    return;
  }
  // Folding: the batch of every replica's loads and stores is folded once per (virtual graph,
  // sizes) and handed to the network folded from then on (collective_plan.hpp).
  const std::tuple<int, std::uint64_t, std::uint64_t> key{vg, load, store};
  auto it = remote_batches_.find(key);
  if (it == remote_batches_.end()) {
    std::vector<TransferRequest> reqs = build();
    reqs.erase(
        std::remove_if(reqs.begin(), reqs.end(),
                       [](const TransferRequest& r) { return r.bytes == 0 || r.route.empty(); }),
        reqs.end());
    RemoteBatch rb;
    if (!reqs.empty()) {
      // The whole batch is kept (routes copied): its flows can then be unfolded should another
      // lane's batch break the symmetry while they drain.
      for (const TransferRequest& r : reqs) {
        rb.routes.push_back(r.route);
        rb.bytes.push_back(r.bytes);
      }
      for (const Route& r : rb.routes) rb.route_ptrs.push_back(&r);
      rb.record = net.fold_record(rb.route_ptrs, rb.bytes);
    }
    if (!rb.record) rb = RemoteBatch{};
    it = remote_batches_.emplace(key, std::move(rb)).first;
    if (!it->second.record) {
      run_transfers(reqs);  // not symmetric (or empty): the network's general path
      return;
    }
  }
  const RemoteBatch& rb = it->second;
  if (!rb.record) {
    std::vector<TransferRequest> reqs = build();
    run_transfers(reqs);
    return;
  }
  net.transfer_batch_folded(rb.route_ptrs, rb.bytes, rb.record, rb.route_ptrs.size());
}

void Executor::hold_compute_tiles(int vg, double duration_ns) {
  // Compute-lane ops run one at a time on their lane, so the tiles are free now; the
  // reservation keeps the IPU's contention state true for anything else that uses it.
  Ipu& ipu = system_.ipu(static_cast<std::uint32_t>(vg));
  const double now = now_ns();
  const double start = ipu.occupy_compute_tiles(now, duration_ns);
  if (start > now) sc_core::wait(ns_to_sc(start - now));
  sc_core::wait(ns_to_sc(duration_ns));
}

void Executor::run_op(std::size_t p, std::size_t i, CollectivePlayer& player) {
  const LOp& op = program_.phases[p].ops[i];
  OpTiming& t = timings_[p][i];
  t.start_ns = now_ns();
  const ChipParams& chip = system_.chip();
  const std::uint32_t io_tiles = std::min(opt_.num_io_tiles, chip.tiles - 1);
  const std::uint32_t compute_tiles = chip.tiles - io_tiles;
  std::vector<TransferRequest> reqs;
  switch (op.kind) {
    case LKind::Compute: {
      // Each part is one model op timed by its op-class formula on replica 0's IPU (its
      // tile model keeps the per-tile cycles); the compute tiles are held for the whole op.
      const std::uint64_t cycles = compute_op_cycles(op.vg, op, compute_tiles);
      hold_compute_tiles(op.vg, system_.clock().cycles_to_ns(static_cast<double>(cycles)));
      t.category = kComputeCategory;
      break;
    }
    case LKind::IoCopy: {
      // An on-chip exchange between the IO and compute tile sets (IoTileCopy): the IPU model
      // bounds it by the smaller set (aggregated) or by the busiest tile of the mapping.
      const std::uint64_t cycles =
          system_.ipu(static_cast<std::uint32_t>(op.vg))
              .io_copy(op.bytes, io_tiles, op.to_compute, opt_.grain_bytes);
      hold_compute_tiles(op.vg, system_.clock().cycles_to_ns(static_cast<double>(cycles)));
      t.category = kExchangeCategory;
      break;
    }
    case LKind::RemoteExchange: {
      std::uint64_t load = 0, store = 0;
      for (const LTransfer& x : op.transfers) (x.store ? store : load) += x.bytes;
      run_remote(op.vg, load, store);
      t.category = t.tier = to_string(LinkTier::StreamingMemory);
      break;
    }
    case LKind::Host: {
      for (std::uint32_t ipu : replica_ipus(op.vg, true))
        reqs.push_back(
            {op.to_compute ? system_.host_write_route(ipu) : system_.host_read_route(ipu),
             op.bytes});
      run_transfers(reqs);
      t.category = t.tier = to_string(LinkTier::HostIo);
      break;
    }
    case LKind::IpuCopy: {
      LinkTier tier = LinkTier::Local;
      for (std::uint32_t r = 0; r < replicas_; ++r) {
        const Route route = system_.route(r * ipr_ + static_cast<std::uint32_t>(op.vg),
                                          r * ipr_ + static_cast<std::uint32_t>(op.dst_vg));
        if (static_cast<int>(system_.tier(route)) > static_cast<int>(tier))
          tier = system_.tier(route);
        reqs.push_back({route, op.bytes});
      }
      run_transfers(reqs);
      // An IPU copy inside one IPU (tier local) counts as IPU-Link time, as it always has.
      t.category = to_string(tier == LinkTier::GwLink ? LinkTier::GwLink : LinkTier::IpuLink);
      t.tier = to_string(tier);
      break;
    }
    case LKind::Collective: {
      t.category = to_string(LinkTier::IpuLink);
      t.tier = to_string(LinkTier::Local);
      if (!op.group || op.group->getGroupSize() <= 1 || op.elements == 0) break;
      const std::string key = coll::to_string(op.cop) + "|" + op.group->str() + "|" +
                              std::to_string(op.elements) + "|" + to_string(op.dtype) + "|" +
                              std::to_string(op.vg);
      // The request depends on the key alone: built once (its groups list every member).
      auto it = collective_ops_.find(key);
      if (it == collective_ops_.end()) {
        CollectiveOp c;
        coll::CollectiveRequest& req = c.request;
        req.op = op.cop;
        req.reduce = coll::ReduceOp::Add;
        req.dtype = coll_dtype(op.dtype);
        req.elements_per_replica = op.elements;
        req.topology = collective_topology(system_, 1, coll::LinkConfig::Default);
        // Members are the vg-th IPU of each replica, played as one-IPU "replicas".
        for (const auto& g : op.group->getGroups()) {
          std::vector<std::uint32_t> ipus;
          for (unsigned r : g) ipus.push_back(r * ipr_ + static_cast<std::uint32_t>(op.vg));
          req.groups.push_back(std::move(ipus));
        }
        for (const auto& g : req.groups) {
          for (std::uint32_t ipu : g)
            c.crosses = c.crosses || system_.ild_of(ipu) != system_.ild_of(g.front());
        }
        it = collective_ops_.emplace(key, std::move(c)).first;
      }
      const CollectiveTiming ct = run_collective(it->second, key, i, player, t.cached);
      t.category = t.tier = to_string(ct.gw_link_ns > 0 ? LinkTier::GwLink : LinkTier::IpuLink);
      t.gw_link_ns = ct.gw_link_ns;
      break;
    }
  }
  t.end_ns = now_ns();
  if (t.end_ns > t.start_ns) {
    // A collective that spans IPU-Link domains spends part of its time on each tier:
    // credit its GW-Link phases to gw_link and the rest (in-domain phases) to ipu_link.
    const double gw_ns = std::min(t.gw_link_ns, t.end_ns - t.start_ns);
    if (op.kind == LKind::Collective && gw_ns > 0 && gw_ns < t.end_ns - t.start_ns) {
      intervals_.push_back({t.start_ns, t.end_ns - gw_ns, to_string(LinkTier::IpuLink)});
      intervals_.push_back({t.end_ns - gw_ns, t.end_ns, to_string(LinkTier::GwLink)});
    } else {
      intervals_.push_back({t.start_ns, t.end_ns, t.category});
    }
  }
  if (TraceWriter::instance().enabled()) trace_op(p, op, t);
  RunProgress::instance().done(1, "ops");
}

void Executor::trace_op(std::size_t p, const LOp& op, const OpTiming& t) const {
  // One process per IPU with a track per lane (a lane runs its ops one after another, so its
  // slices never overlap); streaming-memory traffic also as async slices on the machines' DDR
  // (replicas on one machine overlap there). Large systems trace replica 0 only (viewers
  // cannot cope), unless --trace-ipus names the IPUs.
  auto& trace = TraceWriter::instance();
  const Json args{{"phase", p}, {"category", t.category}, {"tier", t.tier}, {"bytes", op.bytes}};
  TraceTier tier = kNoTraceTier;
  if (t.category == kComputeCategory || t.category == kExchangeCategory)
    tier = trace_tier(kComputeTraceTrack);
  if (t.category == to_string(LinkTier::StreamingMemory)) tier = link_trace_tier(ResourceKind::Ddr);
  if (t.category == to_string(LinkTier::HostIo)) tier = link_trace_tier(ResourceKind::HostLink);
  if (t.category == to_string(LinkTier::IpuLink)) tier = link_trace_tier(ResourceKind::IpuLink);
  if (t.category == to_string(LinkTier::GwLink)) tier = link_trace_tier(ResourceKind::GwLink);
  const bool all = system_.num_ipus() <= kMaxTracedIpus || trace.has_ipu_filter();
  for (std::uint32_t r = 0; r < (all ? replicas_ : 1); ++r) {
    const std::uint32_t ipu = r * ipr_ + static_cast<std::uint32_t>(op.vg);
    if (!trace.ipu_selected(ipu)) continue;
    trace.complete("ipu" + std::to_string(ipu), to_string(op.lane), op.label, t.start_ns,
                   t.end_ns - t.start_ns, args, tier);
    if (op.kind == LKind::RemoteExchange) {
      trace.async_slice("links", "ddr.m" + std::to_string(system_.machine_of(ipu)), op.label,
                        t.start_ns, t.end_ns - t.start_ns, Json(),
                        link_trace_tier(ResourceKind::Ddr));
    }
  }
}

}  // namespace ipusim::rt
