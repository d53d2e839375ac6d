#pragma once
// Internal to the lowering (pass_lower.hpp is the public entry): the state shared by the
// lowering steps, one source file per step —
//   pass_lower.cpp       driver: repetitions, phases, the order of the steps inside a phase;
//   lower_ops.cpp        builders of lowered ops and byte sizes;
//   lower_phase_io.cpp   phase-level remote loads, gathers and stores;
//   lower_loop.cpp       the batch-serialised loop and the activations it moves;
//   lower_pingpong.cpp   transfers between the IPUs of a phase (IpuCopy, activation preloads);
//   lower_optimizer.cpp  gradient reduction and the optimizer step;
//   lower_memory.cpp     per-phase memory items and remote buffers.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/ir/ir_model.hpp"
#include "runtime/ir/program.hpp"
#include "runtime/ir/training_session.hpp"
#include "runtime/passes/pass_locations.hpp"
#include "runtime/passes/pass_phases.hpp"
#include "runtime/passes/pass_remote_io.hpp"

namespace ipusim::rt::lower {

using Resolved = std::map<std::string, ResolvedTensor>;

/// Lowers one model into a Program (one instance per lower_program call).
class Lowerer {
 public:
  Lowerer(const Model& m, const PhaseLayout& L, const Resolved& r, const SessionOptions& s)
      : full_(m),
        L_(L),
        res_(r),
        s_(s),
        K_(std::max<std::uint32_t>(1, s.batchSerializationFactor)) {}

  /// Lowers every accumulation repetition and the remote buffers.
  Program run();

 private:
  // ---- driver (pass_lower.cpp) --------------------------------------------------------
  /// Lowers every phase of one repetition of `m` (the last repetition includes the optimizer).
  void lower_repetition(const Model& m, int rep);
  /// Lowers phase p on vg v, in PopART's order inside a phase.
  void lower_phase(int p, int v);
  /// Ops of phase p on vg v, in model order.
  const std::vector<const ModelOp*>& ops_at(int p, int v) const;
  /// The remote-IO placements of phase p on vg v (placements_ order).
  const std::vector<const IoPlacement*>& placements_at(int p, int v) const;

  // ---- op builders and sizes (lower_ops.cpp) ------------------------------------------
  /// Appends `op` to the current phase; returns its index.
  int add(LOp op);
  /// Records `bytes` of `t` on vg `vg` in the current phase (nothing when 0).
  void mem(int vg, const std::string& t, std::uint64_t bytes, TileSet ts, const std::string& what);
  /// Lane of a transfer loaded through tile set `load`.
  Lane lane_of(TileSet load) const { return load == TileSet::Io ? Lane::IoPhase : Lane::Compute; }
  /// Lane of the RTS and gradient collectives.
  Lane collective_lane() const {
    return s_.collectiveTileSet == TileSet::Io ? Lane::IoPhase : Lane::Compute;
  }
  /// Replicas.
  std::uint32_t R() const { return s_.replicatedGraphCount; }
  /// A collective op over `g` of `elements` per replica.
  LOp collective(coll::CollectiveOp op, const coll::ReplicaGrouping& g, std::uint64_t elements,
                 DType dt, int vg, const std::string& role, std::vector<std::string> tensors);
  /// A remote exchange moving `tr` on `lane`.
  LOp exchange(Lane lane, int vg, std::vector<LTransfer> tr, const std::string& role);
  /// A copy between the IO and compute tiles (always on the compute lane).
  LOp io_copy(int vg, std::uint64_t bytes, bool to_compute, std::vector<std::string> tensors,
              const std::string& role);
  /// One IoTileCopy per tensor of `items` (name, bytes), as PopART inserts them, each waiting
  /// for `deps`; returns their indices (they queue on the compute lane in this order).
  std::vector<int> io_copies(int vg,
                             const std::vector<std::pair<std::string, std::uint64_t>>& items,
                             bool to_compute, const std::string& role,
                             const std::vector<int>& deps);
  /// The IoTileCopies (one per tensor) serving the remote transfers `trs`, not yet added.
  std::vector<LOp> io_copy_ops(int vg, const std::vector<LTransfer>& trs, bool to_compute,
                               const std::string& role);
  /// The lowered form of model op `o` on vg v (`step` = micro-batch, -1 outside the loop).
  LOp from_model(const ModelOp& o, int v, int step);
  /// For each use of activation `t` (uses_ order): whether it needs a load under PopART's
  /// keep-live rule (kept_live). A batch-serialised activation, produced or loaded per
  /// micro-batch, is kept like any other (PopART unrolls the loop: one tensor per slice).
  std::vector<bool> act_loads_needed(const std::string& t) const;
  /// Index of the use of `t` in phase p on vg v in uses_ (-1 if none).
  int use_index(const std::string& t, int p, int v) const;
  /// Bytes one remote transfer of `t` moves: the shard, or every micro-batch copy of an activation.
  std::uint64_t loaded_bytes(const std::string& t) const;
  /// Bytes of `t` on the compute tiles while it is used (a sharded weight is gathered).
  std::uint64_t on_chip_bytes(const std::string& t) const;
  /// True if every name is a weight.
  bool all_weights(const std::vector<std::string>& names) const;
  /// Phase of the first op writing `t` (-1 if none).
  int producer_phase(const std::string& t) const;
  /// A host load of the whole batch (not per micro-batch) outside the optimizer step.
  static bool whole_batch_host_load(const ModelOp& o);

  // ---- phase-level transfers (lower_phase_io.cpp) --------------------------------------
  /// Loads landing in phase p on vg v (this phase's OnDemand ones, then the next phase's
  /// preloads) and the IO -> compute copies of what arrived; returns the ops the compute
  /// waits for. OnDemand optimizer-state loads go to `opt_loads` (the optimizer issues them).
  std::vector<int> phase_loads(int p, int v, std::vector<LTransfer>& opt_loads);
  /// AllGathers of the on-chip sharded weights phase p reads on vg v.
  std::vector<int> on_chip_gathers(int p, int v);
  /// AllGathers of the sharded weights among `names`, merged per (group, dtype).
  std::vector<int> gathers(const std::vector<std::string>& names, int v, std::vector<int> deps,
                           const std::string& role);
  /// Stores of the remote tensors last written in phase p on vg v that the optimizer did not
  /// store (`stored`), after `tail`.
  void phase_stores(int p, int v, int& tail, const std::set<std::string>& stored);
  /// A store of `trs` on `lane` after `tail` (through a copy to the IO tiles on the IO lane).
  void store_ops(int v, Lane lane, const std::vector<LTransfer>& trs, int& tail,
                 const std::string& role);
  /// Activations loaded at phase level in phase p for phase fp: whole-batch OnDemand loads
  /// (fp = p), or preloads (fp = p + 1) of data stored before p, which are ready at its start.
  std::vector<std::string> phase_activation_loads(int p, int fp, int v);

  // ---- batch-serialised loop (lower_loop.cpp) ------------------------------------------
  /// Emits the loop; returns the index of its last compute-lane op (or the last ready op).
  int loop(int p, int v, const std::vector<int>& ready);
  /// Off-chip activations phase p on vg v must load (not produced here, not kept live).
  std::vector<std::string> activation_loads(int p, int v);
  /// Off-chip activations phase p on vg v stores (activation_store_phase is p).
  std::vector<std::string> activation_stores(int p, int v);
  /// Phase that stores the copy of off-chip activation `t` on vg `vg` (-1: none there, or no
  /// use reloads it): the phase that produced (or IpuCopied) it there, moved to each later use
  /// there it stays live for, up to the first use that reloads it (PopART's store deferral).
  int activation_store_phase(const std::string& t, int vg) const;
  /// PopART moves an off-chip activation read on another IPU by an IpuCopy in its producing
  /// phase; the copy on the reader's IPU counts as produced in the next phase (an inter-phase
  /// copy) or the producing one (both IPUs compute in that phase), then
  /// is kept live and stored like any produced tensor (StreamingMemoryOpInserter). Adds those
  /// copies to uses_ as writing uses and records them in copy_dests_ (implicit PopART program
  /// only; a popxl program loads explicitly).
  void add_copy_uses();
  /// True when phase p on vg v can store `t`: whole-batch, or read there per micro-batch.
  bool stores_in_loop(const std::string& t, int p, int v) const;

  // ---- between the IPUs of a phase (lower_pingpong.cpp) --------------------------------
  /// Emits the IpuCopy of every on-chip activation produced in phase p on vg v and read
  /// later on another IPU (one copy, to its first such reader), and of every off-chip one to
  /// each vg of copy_dests_ (also one read in this phase), after `tail`.
  void ipu_copies(int p, int v, int tail);
  /// Emits, at the end of phase p (every vg lowered), the preloads of the activations that
  /// phase p + 1 reads on vg v and that phase p produces; each waits for the stores of the
  /// same tensor in phase p, which under ping-pong run on the other IPU.
  void preload_next_activations(int p, int v);
  /// Indices of the remote stores of each tensor in `ph` (per-micro-batch copies "t[i]" count as
  /// t).
  static std::map<std::string, std::vector<int>> stores_by_tensor(const LPhase& ph);

  // ---- optimizer (lower_optimizer.cpp) -------------------------------------------------
  /// Gradient reduction, optimizer-state loads, update and stores; returns the new tail.
  int optimizer(int p, int v, int tail, const std::vector<LTransfer>& opt_loads,
                std::set<std::string>& stored);

  // ---- memory (lower_memory.cpp) -------------------------------------------------------
  /// Memory of the tensors phase p uses on vg v (and of those kept live across it).
  void phase_memory(int p, int v);
  /// Indexes, per (phase, vg), the tensors phase_memory lists and the sharded on-chip weights
  /// on_chip_gathers gathers (scanning every tensor in every phase was quadratic in layers).
  /// A tensor is kept live across phase p on vg v when p lies strictly between two uses
  /// there that share one kept copy (ping-pong: the phase of the other IPU), so it stays in
  /// SRAM instead of being reloaded.
  void index_phase_tensors();
  /// On-chip activation memory: live from the producing phase to the last kept use.
  void live_activations(int rep);
  /// On-chip weights, states and accumulators stay resident (the shard when sharded).
  void resident(int rep);
  /// The remote buffers of every off-chip tensor.
  void remote_buffers();

  const Model& full_;
  const Model* model_ = nullptr;
  const PhaseLayout& L_;
  const Resolved& res_;
  const SessionOptions& s_;
  std::uint32_t K_;
  Program prog_;
  LPhase* cur_ = nullptr;
  std::map<std::string, std::vector<TensorUse>> uses_;
  std::vector<IoPlacement> placements_;
  /// placements_ by (phase, vg), in placements_ order (scanning them all per phase and per
  /// optimizer op was quadratic in layers).
  std::map<std::pair<int, int>, std::vector<const IoPlacement*>> placements_at_;
  std::map<std::pair<int, int>, std::vector<const ModelOp*>> ops_at_;
  std::map<std::pair<int, int>, std::vector<std::string>> pending_copy_;
  /// Off-chip activations IpuCopied to other vgs (see add_copy_uses): tensor -> vgs.
  std::map<std::string, std::vector<int>> copy_dests_;
  std::map<std::pair<int, int>, std::vector<std::string>>
      arrived_;  ///< activations loaded for (phase, vg)
  /// A tensor phase_memory lists for a (phase, vg): used there, or kept live across it.
  struct PhaseTensor {
    const std::string* name;  ///< key of uses_
    bool kept;
  };
  std::map<std::pair<int, int>, std::vector<PhaseTensor>>
      phase_tensors_;  ///< see index_phase_tensors
  std::map<std::pair<int, int>, std::vector<std::string>>
      gather_names_;  ///< see index_phase_tensors
};

}  // namespace ipusim::rt::lower
