#pragma once
// The lowered training program (plain C++): per execution phase, an ordered list of ops,
// each on one virtual graph (IPU of the replica) and one lane of tiles. Every replica runs
// the same program (SPMD). Inside a phase an op starts when the ops before it on its lane
// and its explicit dependencies have finished; phases are separated by a sync.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/groups/replica_grouping.hpp"
#include "collectives/schedule/schedule.hpp"
#include "models/params/hw_params.hpp"
#include "runtime/ir/ir_model.hpp"
#include "runtime/ir/training_session.hpp"

namespace ipusim::rt {

/// Tiles an op runs on: compute tiles, IO tiles running the batch loop's transfers, or IO
/// tiles running phase-level transfers (weights, optimizer state, next-phase prefetch).
enum class Lane { Compute, Io, IoPhase };
std::string to_string(Lane l);

/// What a lowered op does.
enum class LKind { RemoteExchange, IoCopy, Compute, Collective, IpuCopy, Host };
std::string to_string(LKind k);

/// One tensor moved by a remote exchange (bytes per replica).
struct LTransfer {
  std::string tensor;
  std::uint64_t bytes = 0;
  bool store = false;
  IOSchedule schedule = IOSchedule::OnDemand;
  int for_phase = 0;  ///< phase that uses the loaded data
};

/// One model op inside a fused compute op, timed on its own by the compute model.
struct ComputePart {
  double flops = 0;
  std::uint64_t bytes = 0;              ///< bytes read and written (vector-bound ops)
  std::uint32_t scalar_reductions = 0;  ///< reductions to a scalar (ModelOp's)
  std::uint32_t chained_ops = 1;        ///< ops paying the op overhead (ModelOp's)
  double vector_tile_cycles = 0;        ///< poplibs' vertex cycles (ModelOp's)
  ComputeUnit unit = ComputeUnit::Amp;
  OpClass op_class = OpClass::Matmul;
  bool backward = false;  ///< a backward pass op (its compute sets differ, compute_sets.hpp)
  GemmShape gemm;
  DType dtype = DType::Float16;
};

/// One op of the lowered program.
struct LOp {
  LKind kind = LKind::Compute;
  Lane lane = Lane::Compute;
  int vg = 0;
  std::string label;
  std::vector<int> deps;                ///< indices of ops of the same phase
  int micro_batch = -1;                 ///< batch-serialisation step, -1 outside the loop
  std::vector<LTransfer> transfers;     ///< RemoteExchange
  std::uint64_t bytes = 0;              ///< IoCopy / IpuCopy / Host / Collective bytes per replica
  bool to_compute = true;               ///< IoCopy direction
  int dst_vg = 0;                       ///< IpuCopy
  double flops = 0;                     ///< Compute
  std::uint64_t mem_bytes = 0;          ///< Compute: bytes read and written
  std::uint32_t scalar_reductions = 0;  ///< Compute without parts: reductions to a scalar
  std::uint32_t chained_ops = 1;        ///< Compute without parts: ops paying the op overhead
  double vector_tile_cycles = 0;        ///< Compute without parts: poplibs' vertex cycles
  ComputeUnit unit = ComputeUnit::Amp;
  OpClass op_class = OpClass::Matmul;  ///< Compute without parts
  GemmShape gemm;                      ///< Compute without parts
  /// Compute: the model ops this op runs one after another (a pipeline stage's forward or
  /// backward of one micro-batch); when set, `flops`/`mem_bytes` are their sums for reports
  /// and the time is the sum of the parts' times. Shared by the identical ops of all cycles.
  std::shared_ptr<const std::vector<ComputePart>> parts;
  DType dtype = DType::Float16;
  coll::CollectiveOp cop = coll::CollectiveOp::AllReduce;
  std::optional<coll::ReplicaGrouping> group;  ///< Collective
  std::uint64_t elements = 0;                  ///< Collective input elements per replica
  std::string role;                            ///< why the op exists
  std::vector<std::string> tensors;
};

/// A collective op of `elements` per replica over group `g` on virtual graph `vg`.
LOp collective_op(coll::CollectiveOp op, const coll::ReplicaGrouping& g, std::uint64_t elements,
                  DType dt, int vg, Lane lane, const std::string& role);

/// Bytes one phase keeps on one IPU (for memory accounting).
struct MemoryItem {
  std::string tensor;
  std::uint64_t bytes = 0;
  TileSet tiles = TileSet::Compute;
  std::string what;  ///< weight, activation, optimizer_state, io_buffer, temporary, ...
};

/// One execution phase.
struct LPhase {
  int index = 0;       ///< PopART phase number (-1 = preload prologue)
  int repetition = 0;  ///< accumulationFactor repetition
  std::vector<LOp> ops;
  std::vector<std::vector<MemoryItem>> memory;  ///< per virtual graph
};

/// A remote buffer in streaming memory (bytes per replica).
struct RemoteBuffer {
  std::string tensor;
  int vg = 0;
  std::uint64_t bytes = 0;
  int first_phase = -1;  ///< live range of activation buffers (-1 = the whole step)
  int last_phase = -1;
};

/// The whole lowered step.
struct Program {
  std::vector<LPhase> phases;
  std::vector<RemoteBuffer> remote_buffers;
  int forward_phases = 0;
  int total_phases = 0;
  std::uint32_t micro_batches = 1;  ///< batch-serialisation factor
};

}  // namespace ipusim::rt
