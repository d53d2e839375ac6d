#pragma once
// AUTO method selection (reference §4.5, PLRC pickAllGatherMethod / pickReduceScatterMethod).
#include <cstdint>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/schedule/schedule.hpp"

namespace ipusim::coll {

/// Which of GCL's two rule tables applies (AllReduce uses the ReduceScatter one).
enum class RingPhaseKind { AllGather, ReduceScatter };

/// GCL thresholds (bytes per IPU) where the bidirectional ring pair starts to beat
/// meet-in-the-middle; "determined experimentally" on Mk1 in 2020.
struct RingThresholds {
  std::uint64_t a = 0;  ///< below: meet in the middle
  std::uint64_t b = 0;  ///< below, with more than 4 ranks: meet in the middle
  std::uint64_t c = 0;  ///< below, with more than 8 ranks: meet in the middle
};
/// Thresholds of one rule table.
RingThresholds ring_thresholds(RingPhaseKind kind);
/// BarleyTwist: meet in the middle below this many bytes (ReduceScatter: times ranks).
inline constexpr std::uint64_t kBarleyTwistThresholdBytes = 196608;

/// Where a group lies, which sets what the few-step methods save and what their bytes cost:
/// an open ladder (no torus wrap) or a torus inside one IPU-Link domain, or several domains.
enum class GroupSpan { Ladder, Torus, Domains };

/// Where a group lies across IPU-Link domains: how many it spans and its members in each
/// (inside one domain: 1 and 0, unused).
struct DomainSpread {
  std::uint32_t num_ilds;
  std::uint32_t members_per_ild;
};

/// GCL's "broadcast" method, "the fastest option for small tensors" (GCL OptionFlags
/// `method`), which ipusim runs as `direct`. GCL's thresholds are not public; these are the
/// crossovers of ipusim's own model in bytes per replica (all_gather's output, piece x group
/// size; every other op's input), per op and GroupSpan and, over several domains, per number
/// of domains (a broadcast: a bound on its input x the members outside the root's domain,
/// returned divided by them). The tables and how they were derived are in auto_select.cpp.
std::uint64_t small_message_max_bytes(CollectiveOp op, GroupSpan span, DomainSpread spread);

/// True when GCL's small-tensor rule applies: the message is at most the op's threshold
/// (`bytes` = the input of one replica; all_gather compares bytes x `group_size`), every
/// group has stride 1 (consecutive replicas; GCL SDK 3.0 no longer picks the broadcast
/// method for strided groups) and at most 1024 members (the simulator's limit for direct).
bool small_message_rule(const CollectiveRequest& request, std::uint64_t bytes,
                        std::uint32_t group_size, GroupSpan span, DomainSpread spread);

/// GCL's rules 1-4: `ranks` = group members per ILD; `bytes` = input bytes of one replica
/// (AllGather: the piece gathered; ReduceScatter: the full tensor).
Algorithm pick_ring_method(RingPhaseKind kind, std::uint32_t ranks, std::uint64_t bytes,
                           std::uint32_t ipus_per_replica, bool torus, LinkConfig config);

/// GW-Link tier of the hierarchical algorithm: meet in the middle for more than 2 ILDs
/// (both GW directions, few high-latency steps), else clockwise.
Algorithm pick_gw_method(std::uint32_t num_ilds);

/// Resolves Algorithm::Auto for a whole request (returns `request.algorithm` otherwise):
/// AllToAll -> direct; small_message_rule (groups of at most 1024 members) or bytes <=
/// direct_max_bytes -> direct; groups spanning ILDs with equal members per ILD -> hierarchical
/// (a broadcast over at most four ILDs only up to its per-member threshold, then a ring as
/// below); else pick_ring_method with
/// ranks = the most members a group has in one ILD (Broadcast, a scatter then a ring
/// all-gather, uses the AllGather table with the piece bytes / ranks).
Algorithm select_algorithm(const CollectiveRequest& request);

}  // namespace ipusim::coll
