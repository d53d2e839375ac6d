#pragma once
// A collective schedule: the pure-C++ description that algorithms produce and the runtime
// plays, either on the SystemC models (timing) or on real per-replica buffers (functional).
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

/// Bytes of one element.
inline std::uint32_t dtype_bytes(DType t) { return t == DType::Float16 ? 2u : 4u; }

/// One point-to-point copy inside a superstep. Functional meaning: read
/// `num_elems` elements of replica `src_replica`'s working buffer starting at `src_offset`
/// (values as they were at the start of the superstep) and write them to `dst_replica`'s
/// working buffer at `dst_offset`, either replacing (`reduce == false`) or combining with
/// the reduction operator (`reduce == true`).
struct Transfer {
  std::uint32_t src_ipu = 0;  ///< global IPU id that sends
  std::uint32_t dst_ipu = 0;  ///< global IPU id that receives
  std::uint64_t bytes = 0;    ///< payload bytes (num_elems * dtype bytes)
  std::uint32_t src_replica = 0;
  std::uint32_t dst_replica = 0;
  std::uint64_t src_offset = 0;  ///< elements
  std::uint64_t dst_offset = 0;  ///< elements
  std::uint64_t num_elems = 0;
  bool reduce = false;
};

/// One BSP superstep: sync, then all transfers at once, then the local reductions.
struct Superstep {
  std::vector<Transfer> transfers;
  /// Largest number of elements any single IPU reduces in this step (sets compute time).
  std::uint64_t max_reduce_elems_per_ipu = 0;
  /// Which phase of the algorithm this step belongs to ("reduce_scatter", "all_gather",
  /// "ild_reduce_scatter", "gw_all_reduce", ...), for per-phase and per-tier reporting.
  std::string phase;
};

/// The whole schedule plus how to read the result out of the working buffers.
struct Schedule {
  CollectiveOp op = CollectiveOp::AllReduce;
  ReduceOp reduce = ReduceOp::Add;
  DType dtype = DType::Float32;
  Algorithm algorithm = Algorithm::Clockwise;  ///< the algorithm actually used
  std::uint64_t elements_per_replica = 0;      ///< input elements per replica (n)
  std::uint64_t working_elems = 0;  ///< working-buffer length per replica (>= n, padded)
  std::uint64_t output_elems = 0;   ///< output elements per replica
  std::uint64_t output_offset_in_working = 0;  ///< where outputs start (may depend on rank)
  std::vector<Superstep> steps;
};

std::string to_string(CollectiveOp op);
std::string to_string(ReduceOp op);
std::string to_string(DType t);
std::string to_string(Algorithm a);

}  // namespace ipusim::coll
