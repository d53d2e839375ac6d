#pragma once
// Flow-level bandwidth engine (plain C++, no SystemC): resources with a capacity and a
// per-traversal latency, transfers ("flows") that drain over a route of resources at their
// max-min fair share, recomputed only when flows start or finish.
//
// Timing of one flow: it starts at t0, drains its bytes at the rate the allocation gives it
// on every resource of its route at once (cut-through: the hops are pipelined), and
// arrives `sum(latency) + (hops - 1) x min(bytes, chunk) / bottleneck + drain time` after
// t0. A lone flow of B bytes over one resource therefore takes latency + B / capacity.
//
// chunk_bytes: real links interleave concurrent transfers chunk by chunk (round robin). The
// fluid max-min fair share used here is the small-chunk limit of that interleaving (two
// equal flows each get exactly half). The chunk size appears only as the store-and-forward
// of one chunk per extra hop before a multi-hop route is cut through: hop i > 1 waits for
// min(bytes, chunk of hop i) bytes, so the fill is sum(min(bytes, chunk_i)) / bottleneck.
// credits_bytes: a per-flow receiver buffer at each hop's far end; a window of C bytes over a
// hop of latency L caps the flow at C / (2 L) (a credit takes L to come back).
// Chunk size, credits and arbitration are per resource (its link tier); a resource without
// them takes the engine-wide FlowEngineParams.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "models/network/link_tiers.hpp"
#include "models/params/hw_params.hpp"

namespace ipusim {

class ResourceCells;
struct FoldRecord;
struct FoldedBatch;
struct FoldScratch;

using ResourceId = std::uint32_t;
/// A route: the resources a transfer crosses, in order.
using Route = std::vector<ResourceId>;
/// Unique, increasing id of a flow (start order; breaks ties deterministically).
using FlowId = std::uint64_t;

/// static_cast<uint64_t>(std::llround(x)) for a count (picoseconds, bytes), without the libm
/// call for 0 <= x < 2^52 (hot in integrate() and credit_stats()): the truncation is exact
/// there and so is x - whole, so halves round away from zero as llround does.
inline std::uint64_t round_count(double x) {
  if (!(x >= 0 && x < 4503599627370496.0)) return static_cast<std::uint64_t>(std::llround(x));
  const auto whole = static_cast<std::uint64_t>(x);
  return x - static_cast<double>(whole) >= 0.5 ? whole + 1 : whole;
}

/// A bandwidth resource: one direction of a link bundle, a DDR, a switch.
struct ResourceSpec {
  std::string name;
  ResourceKind kind = ResourceKind::IpuLink;
  // No defaults: routing.cpp sets each from HwParams (the registry and presets).
  double capacity_Bpns{};  ///< usable bytes per ns (= GB/s), efficiency included
  double latency_ns{};     ///< paid once per traversal
  std::uint32_t links{};   ///< physical links striped in this bundle (for describe)
  std::string group;       ///< link group for describe, e.g. "ipu_link.partner"
  /// Flow control of the resource's tier; unset fields take the engine-wide FlowEngineParams.
  std::optional<std::uint64_t> chunk_bytes;
  std::optional<std::uint64_t> credits_bytes;
  std::optional<Arbitration> arbitration;
};

/// Resolved flow control of one resource (what the engines use).
struct ResourceFlow {
  std::uint64_t chunk_bytes = 0;
  std::uint64_t credits_bytes = 0;
  Arbitration arbitration = Arbitration::Fair;
};

/// Accumulated use of one resource.
struct ResourceStats {
  double bytes = 0;             ///< bytes carried (integrated drain rate)
  double busy_ns = 0;           ///< time with at least one flow draining
  std::uint64_t transfers = 0;  ///< flows that started on it
  std::uint32_t max_concurrent = 0;
};

/// Engine-wide options: what a resource without flow control of its own gets, and the fast
/// paths. Not hardware parameters: a System gives every resource its tier's flow control and
/// passes `/sim/fast_paths` (models/system/system.cpp); these values are the neutral engine
/// that tests and benches build alone (no chunk fill, unbounded buffers, max-min fair shares,
/// the exact fast paths on).
struct FlowEngineParams {
  Arbitration arbitration = Arbitration::Fair;
  std::uint64_t chunk_bytes = 0;    ///< see the file comment
  std::uint64_t credits_bytes = 0;  ///< > 0: rate cap credits / (2 x path latency)
  /// Exact fast paths (`/sim/fast_paths`): flows of a batch that share no resource with each
  /// other or with flows in flight drain as groups (one heap entry and one arrival per group
  /// of flows with equal bytes, rate and latency) instead of one flow each.
  bool fast_paths = true;
};

/// A flow whose last byte has arrived (or `count` flows of one batch group arriving at once), or,
/// with `departed`, a flow whose bytes have all left its source (report_departure()).
struct Arrival {
  /// Slot of an arrival that stands for a group of batch flows (no per-flow slot).
  static constexpr std::uint32_t kGroupSlot = 0xffffffffu;
  FlowId id = 0;
  std::uint32_t slot = 0;  ///< engine slot (valid until the next start()), or kGroupSlot
  double start_ns = 0;
  double end_ns = 0;
  std::uint64_t bytes = 0;
  void* tag = nullptr;      ///< the tag given to start() / start_batch()
  std::uint32_t count = 1;  ///< flows this arrival stands for
  /// A departure, not an arrival: end_ns is when the flow's last byte left its source (the
  /// first resource's latency, its access, and the drain); the flow is still in flight and
  /// keeps its slot until its arrival, which is reported after this (also at an equal time).
  bool departed = false;
};

/// The flow-level network core; the caller supplies the current time to every call.
class FlowEngine {
 public:
  /// Time tolerance (1 ps, the SystemC resolution) for "due now".
  static constexpr double kTolNs = 1e-3;
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  explicit FlowEngine(FlowEngineParams params = {});

  /// Adds a resource and returns its id (ids are dense, in insertion order).
  ResourceId add_resource(ResourceSpec spec);
  /// Reserves room for `n` resources (a 65,536-IPU system adds 300 k).
  void reserve_resources(std::size_t n) {
    specs_.reserve(n);
    flow_.reserve(n);
    res_.reserve(n);
  }
  std::size_t num_resources() const { return specs_.size(); }
  const ResourceSpec& resource(ResourceId id) const { return specs_[id]; }
  /// Chunk size, credits and arbitration of a resource (its tier's, or the engine's).
  const ResourceFlow& flow_control(ResourceId id) const { return flow_[id]; }
  const FlowEngineParams& params() const { return params_; }
  /// Stats of a resource integrated up to `now_ns`.
  ResourceStats stats(ResourceId id, double now_ns) const;

  /// Sum of the route's latencies (ns).
  double path_latency_ns(const Route& route) const;
  /// Time a transfer would take alone on an idle network (the oracle of a lone transfer).
  double lone_transfer_ns(const Route& route, std::uint64_t bytes) const;

  /// Starts a flow at `now_ns`; it gets a rate at the next reallocate(). Returns its slot,
  /// which is reported back in the Arrival. Throws SimulationError on an invalid route.
  std::uint32_t start(double now_ns, const Route& route, std::uint64_t bytes, void* tag = nullptr);
  /// Starts `count` transfers of `bytes` along `route` back to back: each repeat starts at the
  /// time given to the advance() that finds its predecessor arrived, exactly as if that
  /// arrival's callback had called start() (same ids, rates, times and stats as `count`
  /// separate start() calls chained by callbacks), but without reporting the arrival: only the
  /// last repeat arrives. The flow keeps its slot throughout. Needs bytes > 0 and a non-empty
  /// route (a zero-time repeat would never let time advance); throws SimulationError else.
  std::uint32_t start_stream(double now_ns, const Route& route, std::uint64_t bytes,
                             std::uint64_t count, void* tag = nullptr);
  /// Asks for a departure record (Arrival::departed) of the flow in `slot`, started by start()
  /// at this instant with bytes > 0 and a non-empty route: at the end of its drain plus its
  /// first resource's latency, i.e. when its last byte has left the source, while the rest of
  /// the route's latency and fill still separate it from its arrival. What a posted sender
  /// waits for before it starts its next transfer.
  void report_departure(std::uint32_t slot) { flows_[slot].report_departure = true; }
  /// True when advance(now_ns) would append no arrival: everything due by `now_ns` is a drain
  /// end or a stream restart. Such instants concern no one outside the engine, so the caller
  /// may process them ahead of the SystemC kernel (Network's run-ahead). Changes nothing.
  bool only_internal_events_due(double now_ns);
  /// Streams (start_stream) with repeats still to start.
  std::size_t active_streams() const { return streams_; }
  /// Starts `bytes[i]` along `*routes[i]` for every i, all tagged `tag` (arrivals carry it).
  /// With fast_paths, the flows whose resources are used by no other flow of the batch and
  /// no flow in flight are grouped by (bytes, rate, latency): a group drains and arrives as
  /// one entry, and gives exactly the times and resource stats the flows would give alone.
  /// A later flow that touches a grouped resource turns that group back into flows.
  void start_batch(double now_ns, const std::vector<const Route*>& routes,
                   const std::vector<std::uint64_t>& bytes, void* tag);
  /// Ends every drain due at `now_ns` and appends the flows whose last byte arrived by then.
  /// Arrival slots are free for reuse after this call.
  void advance(double now_ns, std::vector<Arrival>& arrivals);
  /// Recomputes the rates of every flow that shares (transitively) a resource with a flow
  /// that started or finished since the last call. Cheap when nothing is shared.
  void reallocate(double now_ns);
  /// Time of the next drain end or arrival, or kInf.
  double next_event_ns();
  /// Flows draining or in flight.
  std::size_t active_flows() const { return active_; }
  /// Total flows started so far.
  std::uint64_t flows_started() const { return next_id_; }
  /// Adds `delta` to an idle resource's stats (bytes, busy time, transfers; the peak
  /// concurrency rises to delta's). Used when the executor replays a collective that ran alone
  /// on the network: the original's traffic is credited to the links it used.
  void credit_stats(ResourceId id, const ResourceStats& delta);
  /// Counts `n` flows as started (a replayed collective's flows use up their ids).
  void credit_flows(std::uint64_t n) { next_id_ += n; }
  /// Current rate of the flow in `slot` (bytes per ns), for tests.
  double rate_of(std::uint32_t slot) const { return flows_[slot].rate; }
  /// Whether kind_rate_Bpns() is kept (on by default). A network that traces nothing turns it
  /// off before any flow starts: the sums cost a look-up per rate change and nothing reads them.
  void keep_kind_rates(bool on) { kind_rates_ = on; }
  /// Sum of the current rates on all resources of `kind` (bytes per ns), for trace counters.
  double kind_rate_Bpns(ResourceKind kind) const {
    return kind_rate_[static_cast<std::size_t>(kind)];
  }
  /// Sum of the capacities of all resources of `kind` (bytes per ns).
  double kind_capacity_Bpns(ResourceKind kind) const {
    return kind_cap_[static_cast<std::size_t>(kind)];
  }
  /// Number of resource kinds (for iterating kind_rate_Bpns).
  static constexpr std::size_t kNumKinds = kNumLinkTiers;
  /// Flows started through a fast-path group so far (for tests and benchmarks).
  std::uint64_t grouped_flows() const { return grouped_flows_; }

  /// Symmetry folding (models/network/flow_fold.hpp): from now on every batch that is
  /// equitable for `cells` starts one weighted flow per class on the cells' representatives
  /// instead of all its flows, and a resource's stats are its representative's. Call on an
  /// idle engine, with fast paths on and no fifo resource (fifo shares depend on the start
  /// order within a class: not foldable); else nothing changes. The first batch that is not
  /// equitable, or any start() of a flow that crosses a resource, unfolds (unfold()) and
  /// folding stays off.
  void set_fold(std::shared_ptr<const ResourceCells> cells);
  /// True while folding is on.
  bool folding() const { return cells_ != nullptr; }
  /// The cells folding uses (nullptr while folding is off).
  const ResourceCells* fold_cells() const { return cells_.get(); }
  /// Folding on: the folding of a batch (its classes and routes, kept for unfold()), or nullptr
  /// when the batch is not equitable or folding is off. Nothing starts, nothing unfolds.
  std::shared_ptr<const FoldRecord> fold_record(const std::vector<const Route*>& routes,
                                                const std::vector<std::uint64_t>& bytes);
  /// Folding on: starts `record`'s classes, one weighted flow each on the representatives;
  /// `record` must be fold_record() of (`routes`, `bytes`). A caller that folded a batch before
  /// (a remote exchange repeated every step) starts it again without the check.
  void start_folded(double now_ns, const std::vector<const Route*>& routes,
                    const std::vector<std::uint64_t>& bytes,
                    const std::shared_ptr<const FoldRecord>& record, void* tag);
  /// Folding on: starts a batch whose folding the caller recorded before, given compactly: one
  /// route and size per class (routes[i] and bytes[i] are class i's representative flow's,
  /// folded.class_of[i] == i). Its flows keep no member routes, so unfold() while one drains
  /// stops the run (SimulationError naming sim.fast_paths=false).
  void start_prefolded(double now_ns, const std::vector<const Route*>& routes,
                       const std::vector<std::uint64_t>& bytes, const FoldedBatch& folded,
                       void* tag);
  /// Batches started folded so far, and the flows they stood for (for tests and benchmarks).
  std::uint64_t folded_batches() const { return folded_batches_; }
  std::uint64_t folded_flows() const { return folded_flows_; }
  /// Flows unfolded from folded flows still draining when the symmetry broke (unfold()).
  std::uint64_t unfolded_flows() const { return unfolded_flows_; }

 private:
  enum class State : std::uint8_t { Free, Draining, InFlight };
  struct Flow {
    FlowId id = 0;
    Route route;
    std::vector<std::uint32_t> pos;  ///< index of this flow in each route resource's list
    std::uint64_t bytes = 0;
    double remaining = 0;
    double rate = 0;
    double t_ref = 0;
    double start_ns = 0;
    double latency_ns = 0;  ///< route latency plus pipeline fill
    double cap = kInf;      ///< credit window cap
    std::uint64_t epoch = 0;
    std::uint64_t frozen_epoch = 0;
    double finish_ns = kInf;              ///< drain end at the current rate
    std::uint32_t heap_pos = kNotInHeap;  ///< index in drain_heap_
    State state = State::Free;
    void* tag = nullptr;
    std::uint64_t repeats_left = 0;  ///< start_stream(): repeats still to start after this one
    bool report_departure = false;   ///< report_departure(): a departure record is wanted
    /// Folded flow (start_folded()): per hop, the flows of its class crossing each member of
    /// the hop's cell (its weight); empty for an ordinary flow (weight 1 everywhere).
    std::vector<std::uint32_t> mult;
    std::uint32_t count = 1;  ///< flows it stands for (a folded class), reported in its Arrival
    /// Folded flow: the batch it came from, its class there, and the id of the batch's first
    /// flow (member i of the batch has id fold_base + i, as on the general path). For unfold().
    std::shared_ptr<const FoldRecord> fold_src;
    std::uint32_t fold_class = 0;
    FlowId fold_base = 0;
  };
  /// Weight of hop `i` of flow `f`.
  static std::uint32_t mult_at(const Flow& f, std::size_t i) {
    return f.mult.empty() ? 1 : f.mult[i];
  }
  /// Weight of resource `rid` on flow `f` (which crosses it).
  static std::uint32_t mult_on(const Flow& f, ResourceId rid) {
    if (f.mult.empty()) return 1;
    for (std::size_t i = 0; i < f.route.size(); ++i)
      if (f.route[i] == rid) return f.mult[i];
    return 1;
  }
  static constexpr std::uint32_t kNotInHeap = 0xffffffffu;
  static constexpr std::uint32_t kNoGroup = 0xffffffffu;
  /// Fast path: flows of one batch with equal bytes, rate, latency and credit cap, each alone
  /// on every resource of its route. Their common finish and arrival times are computed once.
  struct Group {
    std::vector<FlowId> ids;            ///< member flow ids (start order)
    std::vector<ResourceId> resources;  ///< member routes, concatenated
    std::vector<std::uint32_t>
        offsets;  ///< member i's route is resources[offsets[i], offsets[i+1])
    std::uint64_t bytes = 0;
    double rate = 0;
    double latency_ns = 0;
    double cap = kInf;
    double start_ns = 0;
    double finish_ns = kInf;
    void* tag = nullptr;
    std::uint64_t gen = 0;  ///< bumped when the group ends or is turned back into flows
    State state = State::Free;
  };
  struct Res {
    std::vector<std::uint32_t> flows;  ///< draining flow slots
    std::uint32_t weight = 0;          ///< summed weights of the draining flows (Flow::mult)
    double sum_rate = 0;
    double t_ref = 0;
    double rem = 0;         ///< scratch: capacity left during allocation
    std::uint32_t unf = 0;  ///< scratch: unfrozen flows during allocation
    std::uint64_t epoch = 0;
    bool dirty = false;
    std::uint32_t group = kNoGroup;          ///< draining fast-path group that owns this resource
    std::uint64_t batch_mark = 0;            ///< scratch of start_batch(): batch that used it
    std::uint32_t batch_uses = 0;            ///< scratch of start_batch(): uses in that batch
    std::uint64_t shared_mark = 0;           ///< scratch of start_batch(): batch of shared_key
    std::uint32_t shared_key = 0xffffffffu;  ///< scratch: group key of the flows sharing it
    std::uint32_t group_members = 0;         ///< members of `group` crossing it
    // Scratch of allocate_fair(): the level that found it tight and its share then, and the
    // level that last took capacity off it with the weight taken.
    std::uint64_t level_mark = 0, cut_mark = 0;
    double level_share = 0;
    std::uint32_t level_w = 0;
    ResourceStats st;
    /// Exact totals, so that a report does not depend on the order of floating-point sums (a
    /// collective replayed from the executor's cache credits its totals at once): bytes of
    /// the flows started on it (equal to the carried bytes whenever it is idle) and busy time
    /// in whole ps (event times are whole ps).
    std::uint64_t bytes_started = 0;
    std::uint64_t busy_ps = 0;
  };
  struct TimedEntry {
    double t;
    FlowId id;
    std::uint32_t slot;
    bool operator>(const TimedEntry& o) const { return t != o.t ? t > o.t : id > o.id; }
  };
  struct GroupEntry {
    double t;
    FlowId id;  ///< first member id (ties break as the members' own entries would)
    std::uint32_t group;
    std::uint64_t gen;
    bool operator>(const GroupEntry& o) const { return t != o.t ? t > o.t : id > o.id; }
  };
  struct ShareEntry {
    double share;
    std::uint32_t index;
    bool is_flow;
    bool operator>(const ShareEntry& o) const {
      if (share != o.share) return share > o.share;
      if (is_flow != o.is_flow) return is_flow > o.is_flow;
      return index > o.index;
    }
  };
  /// A min-heap whose entries can also be taken out in bulk (take_due_arrivals()).
  template <class T>
  struct MinHeap : std::priority_queue<T, std::vector<T>, std::greater<T>> {
    std::vector<T>& items() { return this->c; }
  };

  /// Adds a resource's carried bytes and busy time since its reference time (inline: every
  /// file of the engine integrates on its hot path).
  void integrate(Res& r, double now_ns) {
    const double dt = now_ns - r.t_ref;
    if (dt > 0) {
      r.st.bytes += r.sum_rate * dt;
      if (r.sum_rate > 0) r.busy_ps += round_count(dt * 1e3);
    }
    r.t_ref = now_ns;
  }
  /// Sets a resource's total rate, keeping the per-kind sums (trace counters) up to date.
  /// While folding, a representative's rate is that of each member of its cell (they carry the
  /// same load) and the members' own stay 0, so the sums count it once per member: a traced
  /// run folds as an untraced one does and its utilisation counters still cover every link.
  void set_sum_rate(ResourceId id, double rate) {
    if (kind_rates_) {
      double& k = kind_rate_[static_cast<std::size_t>(specs_[id].kind)];
      const double delta = rate - res_[id].sum_rate;
      k = std::max(0.0, k + (kind_mult_.empty() ? delta : delta * kind_mult_[id]));
    }
    res_[id].sum_rate = rate;
  }
  /// Latency plus chunk fill of a route and its credit cap (the same operations everywhere).
  void route_timing(const Route& route, std::uint64_t bytes, double& latency_ns, double& cap) const;
  /// Greedy allocation for components mixing fair and fifo resources (see allocate_mixed()).
  void allocate_mixed();
  /// Rate and latency of a flow alone on an idle route (what allocation would give it).
  void lone_rate(const Route& route, std::uint64_t bytes, double& rate, double& latency_ns,
                 double& cap) const;
  /// True when some route of a batch crosses only resources with no flow and no group (only
  /// such a flow can join a fast-path group), or names an unknown resource.
  bool any_route_idle(const std::vector<const Route*>& routes) const;
  /// True when a batch has the routes and sizes of the last batch analysed (its analysis holds).
  bool repeats_last_batch(const std::vector<const Route*>& routes,
                          const std::vector<std::uint64_t>& bytes) const;
  /// Fast-path analysis of a batch: counts each resource's uses and gives every flow its group
  /// key (cache_key_) or kNoGroup; false when a route names an unknown resource.
  bool analyse_batch(const std::vector<const Route*>& routes,
                     const std::vector<std::uint64_t>& bytes);
  /// Folding on: folds the batch (reusing a recent folding while batches repeat it) and starts
  /// it folded; false when it is not equitable (folding has then been undone by unfold() and
  /// the batch takes the general path).
  bool start_folded_if_equitable(double now_ns, const std::vector<const Route*>& routes,
                                 const std::vector<std::uint64_t>& bytes, void* tag);
  /// Ends folding at any time, leaving the state the general path would have had: every
  /// resource takes its representative's stats, reference time, total rate and dirty mark,
  /// and every draining folded flow becomes the flows of its class (real routes, the general
  /// path's ids, its remaining bytes, rate, times and drain-heap key). Folded flows already
  /// in flight stay as they are: they only arrive, as one entry for their count.
  void unfold();
  /// Starts the analysed batch: flows still independent join their key's group, others start().
  void start_groups(double now_ns, const std::vector<const Route*>& routes,
                    const std::vector<std::uint64_t>& bytes, void* tag);
  /// Turns a draining group back into individual flows (state as if started one by one).
  void ungroup(std::uint32_t group);
  /// A flow slot: a freed one if any, else a new one at the end of flows_.
  std::uint32_t alloc_slot();
  /// Sets the fields every new flow starts with (bytes left, no rate, no heap position, no
  /// repeats or departure report), for start() and start_folded() alike; route, multiplicities,
  /// id and count are the caller's.
  void init_flow(Flow& f, double now_ns, std::uint64_t bytes, void* tag);
  void validate_route(const Route& route) const;
  /// Drops group heap entries whose group has since ended or been ungrouped.
  void clean_group_heaps();
  void remove_from_resources(std::uint32_t slot, double now_ns);
  /// A draining flow (already out of the drain heap) has sent its last byte at `now_ns`: off
  /// its resources, and queued to arrive (or to restart, a stream's repeat).
  void end_drain(std::uint32_t slot, double now_ns);
  /// advance()'s drain ends done in one pass when many are due in a large heap; false (and
  /// nothing done) when popping them one by one is cheaper.
  bool end_due_drains_at_once(double now_ns);
  /// Whether taking k due entries out of a heap of n in bulk (sort + compact + heapify) is
  /// cheaper than k pops.
  static bool bulk_cheaper(std::size_t k, std::size_t n);
  /// Moves the flow arrivals due by `due_ns` out of arrivals_ into due_arrivals_, in (time,
  /// id) order.
  void take_due_arrivals(double due_ns);
  /// Puts a just (re)started flow with bytes on its route's resources (counts its stats).
  void join_resources(std::uint32_t slot);
  /// Starts the next repeat of a stream in its slot (what start() does for a new flow).
  void restart(std::uint32_t slot, double now_ns);
  void allocate_fair(double now_ns);
  /// One level of allocate_fair(): freezes the unfrozen flows of the tight resources (marked
  /// `mark`) and of capped_ at the smallest tight share they cross (or their cap), then takes
  /// their rates off every resource they cross, per resource and value in ascending value.
  void freeze_level(std::uint64_t mark);
  /// The rate every flow gets when all flows of the component cross the same resources, all
  /// fair (then the max-min allocation is one closed form); false for any other component.
  bool uniform_rate(double& rate) const;
  void allocate_fifo();
  void freeze(std::uint32_t slot, double rate);
  // Indexed min-heap of draining flows by (finish_ns, id): rate changes update a flow in
  // place, so the heap never holds stale entries.
  /// Drain heap entry: the key (finish_ns, id) next to the slot, so sifts compare in place.
  struct DrainEntry {
    double finish_ns;
    FlowId id;
    std::uint32_t slot;
  };
  static bool drain_less(const DrainEntry& a, const DrainEntry& b) {
    return a.finish_ns != b.finish_ns ? a.finish_ns < b.finish_ns : a.id < b.id;
  }
  /// Restores the heap property over the whole drain heap (Floyd): cheaper than one sift per
  /// flow when a reallocation re-keys most of it.
  void drain_heapify();
  /// True when every entry of the drain heap is no less than its parent.
  bool drain_is_heap() const;
  void drain_set(std::uint32_t slot, double finish_ns);
  void drain_remove(std::uint32_t slot);
  void drain_sift_up(std::uint32_t i);
  void drain_sift_down(std::uint32_t i);

  FlowEngineParams params_;
  std::vector<ResourceSpec> specs_;
  std::vector<ResourceFlow> flow_;
  std::size_t fifo_resources_ = 0;  ///< resources with fifo arbitration
  std::vector<Res> res_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<ResourceId> dirty_;
  std::vector<DrainEntry> drain_heap_;
  std::vector<DrainEntry> due_;           ///< scratch of end_due_drains_at_once()
  std::vector<TimedEntry> due_arrivals_;  ///< scratch of advance()
  MinHeap<TimedEntry> arrivals_;
  /// Arrivals of stream flows with repeats left: they restart instead of arriving.
  MinHeap<TimedEntry> restarts_;
  /// Departures asked for by report_departure(), reported before arrivals of the same instant.
  MinHeap<TimedEntry> departures_;
  std::size_t streams_ = 0;
  double kind_rate_[kNumKinds] = {};
  bool kind_rates_ = true;  // keep_kind_rates()
  double kind_cap_[kNumKinds] = {};
  std::vector<Group> groups_;
  std::vector<std::uint32_t> free_groups_;
  MinHeap<GroupEntry> group_drains_;
  MinHeap<GroupEntry> group_arrivals_;
  std::uint64_t batch_counter_ = 0;
  std::uint64_t grouped_flows_ = 0;
  std::vector<std::uint32_t> batch_groups_;  // scratch of start_batch()
  /// What one fast-path group has in common.
  struct GroupKey {
    std::uint64_t bytes;
    double rate;
    double latency_ns;
    double cap;
  };
  static constexpr ResourceId kNoResource = 0xffffffffu;
  static constexpr std::uint32_t kMixedKeys = 0xfffffffeu;
  // The last batch's routes, sizes and group keys (reused when the next batch repeats it).
  std::uint64_t cache_mark_ = 0;
  std::vector<std::uint64_t> cache_bytes_;
  std::vector<ResourceId> cache_res_;
  std::vector<std::uint32_t> cache_off_;
  std::vector<std::uint32_t> cache_key_;
  /// Per flow of the last batch: the one resource it shares with other flows of its group
  /// (each member of a group may share a different one), or kNoResource.
  std::vector<ResourceId> cache_shared_;
  std::vector<GroupKey> keys_;
  std::vector<std::uint32_t> key_group_;
  std::uint64_t next_id_ = 0;
  std::uint64_t epoch_ = 0;
  std::size_t active_ = 0;
  // Scratch of reallocate(), kept to avoid allocations.
  std::vector<std::uint32_t> comp_flows_;
  std::vector<ResourceId> comp_res_;
  std::vector<ResourceId> stack_;
  std::vector<ShareEntry> heap_;
  // Scratch of allocate_fair() (see freeze_level()).
  struct Cut {
    ResourceId rid;
    double value;
    std::uint32_t w;
  };
  std::vector<ResourceId> tight_;
  std::vector<std::uint32_t> capped_, level_flows_;
  std::vector<Cut> cuts_;
  std::uint64_t level_counter_ = 0;
  // Folding (set_fold()): the cells, each resource's representative, counters, and the
  // folding's scratch with its recent batches (reused while batches repeat them).
  std::shared_ptr<const ResourceCells> cells_;
  std::vector<ResourceId> rep_of_;
  // While folding: each resource's weight in the per-kind rate sums (its cell's size for a
  // representative, 0 for another member; see set_sum_rate()), empty otherwise.
  std::vector<double> kind_mult_;
  std::uint64_t folded_batches_ = 0, folded_flows_ = 0, unfolded_flows_ = 0;
  std::shared_ptr<FoldScratch> fold_scratch_;
  ResourceId stats_id(ResourceId id) const { return rep_of_.empty() ? id : rep_of_[id]; }
};

}  // namespace ipusim
