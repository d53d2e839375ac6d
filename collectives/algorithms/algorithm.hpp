#pragma once
// Collective algorithms as pure functions: CollectiveRequest -> Schedule.
//
// Semantics (PopART/GCL, popart_semantics.md §1.7.5):
// - AllReduce: element-wise reduction inside each group; output n elements.
// - ReduceScatter: output ceil(n/k) elements; group rank r gets [r*ceil(n/k), ...) of the
//   reduction, zero padded at the end.
// - AllGather: output k*n, members' inputs in group order.
// - AllToAll: n = k*m; block j of rank i lands in block i of rank j.
// - Broadcast: everybody gets the input of group rank 0 (the root).
// - Mean = Add, then divide by k at the end. Local: ReduceScatter keeps each replica's own
//   slice, AllReduce keeps each replica's own input (no communication for either). The
//   reduce operator is ignored by AllGather, AllToAll and Broadcast.
//
// Working-buffer layout. Every replica's buffer is `K * P * cells * atom` elements, stored
// as [ipu j][part p][cell][atom]: the logical data is cut into `cells` equal cells (the
// ReduceScatter/AllGather/AllToAll blocks: one per group rank), each cell into K*P pieces of
// `atom` elements (padded); IPU j of a replica carries piece (j, p) of every cell, and
// direction part p (bidirectional pair: 2, quad: 4, otherwise 1) is moved by one ring
// direction. Because parts and IPUs are outermost, a run of consecutive cells of one
// (j, p) is contiguous and moves as a single transfer.
//
// Algorithms (reference §4.2): a ring of N members has fragments owned by members; in a
// reduce step member u sends the partial fragment it holds to its neighbour, which
// combines it; in a gather step it forwards complete fragments.
// - clockwise / anticlockwise: N-1 reduce steps then N-1 gather steps, one direction.
// - bidirectional pair: 2 parts, part 0 clockwise and part 1 anticlockwise, concurrently.
// - meet in the middle: 1 part; each fragment's chain is split in two: ceil((N-1)/2) hops
//   clockwise and floor((N-1)/2) anticlockwise, meeting at the owner; N/2 steps for even N
//   (the last step uses the clockwise direction only), with full-size fragments.
// - quad-directional: 4 parts over the serpent and mirrored-serpent rings, both directions
//   (BarleyTwist only: torus, one IPU per replica).
// - direct: every member sends each other member its piece in one step (reduce-scatter
//   step, then gather step, for AllReduce).
// - hierarchical (groups spanning IPU-Link domains, the same number of members in every
//   ILD): AllReduce = ild_reduce_scatter, gw_all_reduce, ild_all_gather (reference §4.7);
//   ReduceScatter = ild_reduce_scatter, gw_reduce_scatter; AllGather = gw_all_gather,
//   ild_all_gather; Broadcast = gw_broadcast (root to its peer in every other ILD), then
//   ild_broadcast. Only 1/(members per ILD) of the data crosses GW-Links. The GW tier
//   pairs members with the same local index (position inside their ILD) and runs a flat
//   ring, meet in the middle when it has more than 2 members, else clockwise. Refused
//   (RequestError) when every group lies in one ILD: there would be no GW-Link tier.
// - Broadcast with a ring method = a scatter step from the root, then a ring all-gather.
// - AllToAll supports only direct.
// A flat (non-hierarchical) ring over a group spanning ILDs orders the members by global
// position, so it crosses GW-Links where consecutive members sit in different ILDs.
// With K IPUs per replica, K rings run in parallel (IPU j of each member with IPU j of the
// others).
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/schedule/schedule.hpp"

namespace ipusim::coll {

/// Physical facts the algorithms need (replica r occupies global IPUs [rK, rK+K)).
struct CollectiveTopology {
  std::uint32_t ipus_per_replica = 1;  ///< K
  std::uint32_t ild_size_ipus = 64;    ///< IPU-Link domain size; ILD of IPU i = i / size
  bool torus = false;                  ///< the ladder closes into a torus
  LinkConfig link_config = LinkConfig::Default;
  /// IPU-Link domains under one GW-Link leaf switch (gw_topology leaf_spine), 0 otherwise:
  /// then the hierarchical algorithm adds a leaf tier between the ILD and spine tiers.
  std::uint32_t ilds_per_leaf = 0;
};

/// Everything an algorithm needs to build a schedule.
struct CollectiveRequest {
  CollectiveOp op = CollectiveOp::AllReduce;
  ReduceOp reduce = ReduceOp::Add;
  DType dtype = DType::Float32;
  std::uint64_t elements_per_replica = 0;  ///< n
  /// Groups of global replica ids in group order; all the same size, disjoint; all run
  /// concurrently in one schedule.
  std::vector<std::vector<std::uint32_t>> groups;
  CollectiveTopology topology;
  Algorithm algorithm = Algorithm::Auto;
  Algorithm hierarchical_ild_algorithm = Algorithm::Auto;  ///< IPU-Link tier override
  Algorithm hierarchical_gw_algorithm = Algorithm::Auto;   ///< GW-Link tier override
  /// AUTO also picks Direct when the AUTO rule's bytes are <= this (0 = only by its
  /// small-message rule, auto_select.hpp).
  std::uint64_t direct_max_bytes = 0;
};

/// The input of a CollectiveRequest that an error is about, so that callers can name the
/// config key or flag it came from.
enum class RequestField { Groups, IpusPerReplica, LinkConfig, Algorithm, Elements };

/// An inconsistent CollectiveRequest: what() says why, field() which input is at fault.
class RequestError : public std::invalid_argument {
 public:
  RequestError(RequestField field, const std::string& what)
      : std::invalid_argument(what), field_(field) {}
  /// The input at fault.
  RequestField field() const { return field_; }

 private:
  RequestField field_;
};

/// Checks everything build_schedule checks before it emits a step — groups, topology (IPU-Link
/// domain vs IPUs per replica, link configuration), the algorithm with AUTO resolved and the
/// hierarchical tiers chosen, against the op and the link configuration — without generating
/// the schedule (cheap for any system size). Throws RequestError.
void validate_request(const CollectiveRequest& request);

/// Receives each superstep as it is generated (the reference is only valid during the call).
using StepSink = std::function<void(const Superstep&)>;

/// What streamed steps carry. Full: every transfer. TimingOnly: a step that repeats the
/// previous step's traffic (Superstep::same_traffic_as_previous) comes without its transfers
/// (their count in elided_transfers), for players that need only the traffic, not offsets.
enum class StepDetail { Full, TimingOnly };

/// What a request's streamed steps depend on besides its size (stream_shape).
struct StreamShape {
  Algorithm algorithm = Algorithm::Auto;      ///< resolved (never Auto)
  Algorithm ild_algorithm = Algorithm::Auto;  ///< hierarchical: IPU-Link tier method
  Algorithm gw_algorithm = Algorithm::Auto;   ///< hierarchical: GW-Link tier method
  /// Elements of one piece of a cell in the working buffer (Layout::atom_elems); 0 when the
  /// schedule has no step (one member per group, nothing to move, or a Local reduction).
  std::uint64_t atom_elems = 0;
};

/// Resolves `request` as generate_schedule does (the same checks and exceptions) and returns
/// its methods and atom without emitting a step. Two requests that differ only in
/// elements_per_replica, with equal methods and both atoms non-zero, stream the same steps
/// (phases, flags, transfer pairs in the same order) with every transfer's bytes and offsets
/// and every step's max_reduce_elems_per_ipu in proportion to their atoms: every transfer
/// moves a run of whole cell pieces (count x atom elements), and the runs, rings and lanes
/// depend only on the groups, topology and methods.
StreamShape stream_shape(const CollectiveRequest& request);

/// Builds the whole schedule; throws RequestError on an inconsistent request and
/// std::length_error when a working buffer exceeds 2^32 - 1 elements.
Schedule build_schedule(const CollectiveRequest& request);

/// Like build_schedule, but hands each step to `sink` instead of storing it (memory stays
/// at one step); the returned schedule has everything except `steps`. `buffer`, when given,
/// holds the streamed step's transfers and keeps its capacity for the next call: a caller that
/// generates many large schedules then reuses one allocation instead of faulting in fresh
/// pages for every schedule (a 16,384-replica step holds millions of transfers).
Schedule generate_schedule(const CollectiveRequest& request, const StepSink& sink,
                           StepDetail detail = StepDetail::Full,
                           std::vector<Transfer>* buffer = nullptr);

}  // namespace ipusim::coll
