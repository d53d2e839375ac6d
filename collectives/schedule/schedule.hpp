#pragma once
// A collective schedule: the pure-C++ description that algorithms produce and the runtime
// plays, either on the SystemC models (timing) or on real per-replica buffers (functional).
//
// Memory note: a flat ring AllReduce over 4096 replicas holds ~33.5 M transfers, so
// `Transfer` is kept at 24 bytes (u32 IPU ids, u32 element offsets, u64 bytes). Fields that
// can be derived are not stored: the replica of an IPU is `ipu / ipus_per_replica`
// (Schedule::replica_of) and the element count is `bytes / dtype_bytes` (Schedule::elems_of).
// Executors that cannot afford the whole list can stream steps one at a time instead
// (generate_schedule in algorithm.hpp).
#include <cstdint>
#include <string>
#include <vector>

namespace ipusim::coll {

/// Collective operations (GCL names).
enum class CollectiveOp { AllReduce, ReduceScatter, AllGather, AllToAll, Broadcast };
/// Reduction operators (GCL CollectiveOperator subset). Local = no reduction.
enum class ReduceOp { Add, Mean, Mul, Min, Max, Local };
/// Element types supported by collectives.
enum class DType { Float32, Float16 };
/// Algorithms (GCL method names); Auto resolves to one of the others.
enum class Algorithm {
  Auto,
  Clockwise,
  Anticlockwise,
  BidirectionalPair,
  MeetInTheMiddle,
  QuadDirectional,
  Direct,
  Hierarchical
};
/// GCL IPU-Link configurations (reference §4.4); they decide the ring order and AUTO rules.
enum class LinkConfig { Default, SlidingWindow, BarleyTwist };

/// Bytes of one element.
inline std::uint32_t dtype_bytes(DType t) { return t == DType::Float16 ? 2u : 4u; }

/// One point-to-point copy inside a superstep. Functional meaning: read
/// `bytes / dtype_bytes` elements of the working buffer of the replica that owns `src_ipu`,
/// starting at element `src_offset` (values as they were at the start of the superstep),
/// and write them to the working buffer of the replica owning `dst_ipu` at `dst_offset`,
/// replacing them or, when the superstep is a reduce step, combining with the operator.
struct Transfer {
  std::uint32_t src_ipu = 0;     ///< global IPU id that sends
  std::uint32_t dst_ipu = 0;     ///< global IPU id that receives
  std::uint64_t bytes = 0;       ///< payload bytes (elements * dtype bytes)
  std::uint32_t src_offset = 0;  ///< element offset in the source replica's working buffer
  std::uint32_t dst_offset = 0;  ///< element offset in the destination replica's buffer
};
static_assert(sizeof(Transfer) == 24, "Transfer must stay compact (see the memory note)");

/// One BSP superstep: sync, then all transfers at once, then the local reductions.
struct Superstep {
  std::vector<Transfer> transfers;
  /// Largest number of elements any single IPU reduces in this step (sets compute time).
  std::uint64_t max_reduce_elems_per_ipu = 0;
  /// Which phase of the algorithm this step belongs to ("reduce_scatter", "all_gather",
  /// "ild_reduce_scatter", "gw_all_reduce", ...), for per-phase and per-tier reporting.
  std::string phase;
  /// True: every transfer is combined into its destination with the reduction operator
  /// (a ring reduce step). False: every transfer overwrites (a gather/copy step). Steps
  /// are homogeneous because a BSP step is "exchange, then local reduce".
  bool reduce = false;
  /// True when the step moves exactly the previous step's traffic: the same sequence of
  /// (src_ipu, dst_ipu, bytes), offsets aside (the steps of one ring phase). Timing players
  /// then reuse the previous step's routes and, on an idle network, its network outcome.
  bool same_traffic_as_previous = false;
  /// Transfers left out of `transfers` (timing-only streaming, StepDetail::TimingOnly: a step
  /// with same_traffic_as_previous carries none). The step has transfers.size() + this.
  std::uint64_t elided_transfers = 0;
};

/// A contiguous run mapping logical elements (of an input or output) to working elements.
struct Segment {
  std::uint64_t logical_offset = 0;
  std::uint64_t working_offset = 0;
  std::uint64_t num_elems = 0;
};

/// How a replica's logical input (or output) lies in its working buffer: every segment's
/// working offset is shifted by `replica_shift_elems[replica]` (no shift when empty).
struct BufferMap {
  std::uint64_t logical_elems = 0;
  std::vector<Segment> segments;
  std::vector<std::uint64_t> replica_shift_elems;

  /// Working-buffer shift of `replica` (0 when the map has no per-replica shift).
  std::uint64_t shift(std::uint32_t replica) const {
    return replica_shift_elems.empty() ? 0 : replica_shift_elems[replica];
  }
};

/// The whole schedule plus how to read the result out of the working buffers.
struct Schedule {
  CollectiveOp op = CollectiveOp::AllReduce;
  ReduceOp reduce = ReduceOp::Add;
  DType dtype = DType::Float32;
  Algorithm algorithm = Algorithm::Clockwise;      ///< the algorithm actually used
  Algorithm ild_algorithm = Algorithm::Auto;       ///< hierarchical: IPU-Link tier method
  Algorithm gw_algorithm = Algorithm::Auto;        ///< hierarchical: GW-Link tier method
  std::uint64_t elements_per_replica = 0;          ///< input elements per replica (n)
  std::uint32_t ipus_per_replica = 1;              ///< K: replica r owns IPUs [rK, rK+K)
  std::uint32_t num_replicas = 0;                  ///< 1 + largest replica id in any group
  std::uint32_t group_size = 0;                    ///< k
  std::vector<std::vector<std::uint32_t>> groups;  ///< global replica ids, group order
  std::uint64_t working_elems = 0;  ///< working-buffer length per replica (>= n, padded)
  std::uint64_t output_elems = 0;   ///< output elements per replica
  BufferMap input_map;              ///< where each input element starts in the buffer
  BufferMap output_map;             ///< where each output element is read at the end
  std::vector<Superstep> steps;     ///< empty when the steps were streamed
  std::uint64_t num_steps = 0;      ///< steps generated (== steps.size() unless streamed)
  std::uint64_t num_transfers = 0;  ///< transfers generated over all steps

  /// Replica that owns a global IPU.
  std::uint32_t replica_of(std::uint32_t ipu) const { return ipu / ipus_per_replica; }
  /// IPU index inside its replica (which of the K parallel rings it belongs to).
  std::uint32_t ipu_in_replica(std::uint32_t ipu) const { return ipu % ipus_per_replica; }
  /// Elements moved by a transfer.
  std::uint64_t elems_of(const Transfer& t) const { return t.bytes / dtype_bytes(dtype); }
};

/// CLI / report names (lower-case, the same spellings `parse_*` accept).
std::string to_string(CollectiveOp op);
std::string to_string(ReduceOp op);
std::string to_string(DType t);
std::string to_string(Algorithm a);
std::string to_string(LinkConfig c);

/// Parses a CLI name; throws std::invalid_argument listing the allowed values.
CollectiveOp parse_collective_op(const std::string& s);
/// Parses a CLI name; throws std::invalid_argument listing the allowed values.
ReduceOp parse_reduce_op(const std::string& s);
/// Parses a CLI name; throws std::invalid_argument listing the allowed values.
DType parse_dtype(const std::string& s);
/// Parses a CLI name; throws std::invalid_argument listing the allowed values.
Algorithm parse_algorithm(const std::string& s);
/// Parses a CLI name (default|sliding_window|barley_twist); throws std::invalid_argument.
LinkConfig parse_link_config(const std::string& s);

}  // namespace ipusim::coll
