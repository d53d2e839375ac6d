// Pipeline lowering: the cycles of the accumulation loop (fill, main, flush), the IpuCopies
// between stages, then gradient reduction and the optimizer (see pass_pipeline.hpp).
#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <stdexcept>

#include "collectives/groups/comm_group.hpp"
#include "collectives/groups/comm_group_spec.hpp"
#include "collectives/schedule/schedule.hpp"
#include "runtime/passes/pass_pipeline.hpp"

namespace ipusim::rt {
namespace {

/// Builds the ops of one program; keeps the shared compute parts of every stage.
class PipelineLowering {
 public:
  PipelineLowering(const PipelinePlan& plan, const SessionOptions& s)
      : plan_(plan), s_(s), R_(s.replicatedGraphCount) {
    for (const PipelineStage& st : plan.stages) {
      fwd_.push_back(segments(st.fwd, st.fwd_collectives));
      bwd_.push_back(segments(st.bwd, st.bwd_collectives));
    }
    const LocationSettings& os = s.optimizerState;
    rts_ = os.location.replicatedTensorSharding && R_ > 1;
    state_off_chip_ = os.location.storage == Storage::OffChip;
    if (rts_) {
      const std::string domain =
          os.location.shardingDomain == "variable" ? "all" : os.location.shardingDomain;
      shard_group_ = coll::parse_comm_group_spec(domain).toReplicaGrouping(R_);
      shard_ = std::max<unsigned>(1, shard_group_->getGroupSize());
      // The complementary gradient AllReduce of a partial sharding domain runs over
      // PopART's getComplementCommGroup: Consecutive k -> Orthogonal R/k, i.e. the R/k
      // replicas that hold the same shard (stride k), kept when it has more than one member
      // (StreamingMemoryOpInserter::RTSAllReduceToScatter, graphcore/popart sdk/poplar/2.3.0
      // willow/src/transforms/streamingmemoryopinserter.cpp). Not Orthogonal k: that is R/k
      // groups of k replicas at stride R/k, the same groups only when k * k == R.
      const coll::CommGroup group = coll::parse_comm_group_spec(domain);
      if (shard_ < R_ && group.type == coll::CommGroupType::Consecutive) {
        const coll::CommGroup c = coll::getComplementCommGroup(R_, group);
        if (c.replicaGroupSize > 1) complement_ = c.toReplicaGrouping(R_);
      }
      if (shard_ <= 1) rts_ = false;
    }
    if (s.weight.location.replicatedTensorSharding && R_ > 1)
      throw std::invalid_argument(
          "weightTensorLocationSettings: replicated tensor sharding of weights is not modelled "
          "with pipelining; shard the optimizer state");
  }

  Program run() {
    Program prog;
    prog.micro_batches = 1;
    prog.forward_phases = plan_.pipeline_stages();
    const std::uint64_t cycles = plan_.cycles();
    // Inference plays its batchesPerStep batches inside one loop (plan.micro_batches).
    const std::uint32_t steps = plan_.training ? std::max<std::uint32_t>(1, s_.batchesPerStep) : 1;
    for (std::uint32_t step = 0; step < steps; ++step) {
      for (std::uint64_t c = 0; c < cycles; ++c)
        prog.phases.push_back(cycle(static_cast<int>(c), static_cast<int>(step)));
      prog.phases.push_back(optimizer(static_cast<int>(cycles), static_cast<int>(step)));
    }
    // Memory of the steady state: the first cycle in which every pipeline stage runs (or the
    // last fill cycle when the loop is too short to fill the pipeline).
    const std::uint64_t full = std::min<std::uint64_t>(
        static_cast<std::uint64_t>(plan_.pipeline_stages()) - 1, cycles - 1);
    prog.phases[full].memory = memory();
    prog.phases.back().memory.resize(static_cast<std::size_t>(plan_.virtual_graphs));
    if (state_off_chip_)
      for (const StageOptimizer& so : plan_.optimizers)
        prog.remote_buffers.push_back({"optimizer_state", so.vg, so.state_bytes / shard_, -1, -1});
    prog.total_phases = static_cast<int>(prog.phases.size());
    return prog;
  }

 private:
  /// Micro-batch that pipeline stage p runs in cycle c (-1 if none).
  int micro_batch(int p, int c) const {
    const int i = c - p;
    return i >= 0 && i < static_cast<int>(plan_.micro_batches) ? i : -1;
  }

  /// The compute parts of one pass split at its in-stage collectives: segment i runs before
  /// collective i (segment 0 holds every part when there is none). Shared by all cycles, so the
  /// executor times each segment once.
  static std::vector<std::shared_ptr<const std::vector<ComputePart>>> segments(
      const std::vector<ComputePart>& parts, const std::vector<StageCollective>& colls) {
    std::vector<std::shared_ptr<const std::vector<ComputePart>>> out;
    std::size_t begin = 0;
    for (std::size_t i = 0; i <= colls.size(); ++i) {
      const std::size_t end =
          i < colls.size() ? std::min(colls[i].after_parts, parts.size()) : parts.size();
      out.push_back(std::make_shared<const std::vector<ComputePart>>(
          parts.begin() + static_cast<std::ptrdiff_t>(begin),
          parts.begin() + static_cast<std::ptrdiff_t>(std::max(begin, end))));
      begin = std::max(begin, end);
    }
    return out;
  }

  LPhase cycle(int c, int step) {
    LPhase ph;
    ph.index = c;
    ph.repetition = step;
    ph.memory.resize(static_cast<std::size_t>(plan_.virtual_graphs));
    const int S = static_cast<int>(plan_.stages.size());
    std::vector<int> compute_ops;
    std::map<int, int> last_on_vg;
    auto push_chained = [&](LOp op) {
      auto it = last_on_vg.find(op.vg);
      if (it != last_on_vg.end()) op.deps = {it->second};
      const int vg = op.vg;
      ph.ops.push_back(std::move(op));
      const int idx = static_cast<int>(ph.ops.size()) - 1;
      last_on_vg[vg] = idx;
      compute_ops.push_back(idx);
    };
    // One micro-batch's forward or backward of a stage: its compute segments with the in-stage
    // collectives between them, one after another on the stage's IPU.
    auto add_compute = [&](const PipelineStage& st, bool forward, int mb) {
      const auto& segs = (forward ? fwd_ : bwd_)[static_cast<std::size_t>(st.stage)];
      const auto& colls = forward ? st.fwd_collectives : st.bwd_collectives;
      const std::string label = "stage " + std::to_string(st.stage) +
                                (forward ? " forward" : " backward") + " mb " + std::to_string(mb);
      for (std::size_t i = 0; i < segs.size(); ++i) {
        if (!segs[i]->empty() || segs.size() == 1) {
          LOp op;
          op.kind = LKind::Compute;
          op.lane = Lane::Compute;
          op.vg = st.vg;
          op.micro_batch = mb;
          op.parts = segs[i];
          for (const ComputePart& p : *op.parts) {
            op.flops += p.flops;
            op.mem_bytes += p.bytes;
          }
          op.role = forward ? "pipeline_forward" : "pipeline_backward";
          op.label = label;
          push_chained(std::move(op));
        }
        if (i >= colls.size()) continue;
        const StageCollective& sc = colls[i];
        LOp op =
            collective(coll::parse_collective_op(sc.op),
                       coll::parse_comm_group_spec(sc.comm_group).toReplicaGrouping(R_),
                       sc.bytes / dtype_bytes(sc.dtype), sc.dtype, st.vg,
                       forward ? "pipeline_forward_collective" : "pipeline_backward_collective");
        op.bytes = sc.bytes;
        op.micro_batch = mb;
        op.label = label + ": " + sc.name;
        push_chained(std::move(op));
      }
    };
    // Pipeline stages in order: forward stage p, then backward stages (p >= S-1).
    for (int p = 0; p < plan_.pipeline_stages(); ++p) {
      const int mb = micro_batch(p, c);
      if (mb < 0) continue;
      if (p < S) {
        const PipelineStage& st = plan_.stages[static_cast<std::size_t>(p)];
        if (st.host_bytes_per_mb > 0) {
          LOp h;
          h.kind = LKind::Host;
          h.lane = Lane::Io;  // host input overlaps compute (streamed ahead by the data loader)
          h.vg = st.vg;
          h.bytes = st.host_bytes_per_mb;
          h.to_compute = true;
          h.micro_batch = mb;
          h.role = "host_input";
          h.label = "host input stage " + std::to_string(p) + " mb " + std::to_string(mb);
          ph.ops.push_back(std::move(h));
        }
        add_compute(st, true, mb);
        if (st.host_out_bytes_per_mb > 0) {
          LOp h;
          h.kind = LKind::Host;
          h.lane = Lane::Io;  // the micro-batch's outputs go back to the host once computed
          h.vg = st.vg;
          h.bytes = st.host_out_bytes_per_mb;
          h.to_compute = false;
          h.micro_batch = mb;
          h.deps = {last_on_vg[st.vg]};
          h.role = "host_output";
          h.label = "host output stage " + std::to_string(p) + " mb " + std::to_string(mb);
          ph.ops.push_back(std::move(h));
        }
      }
      if (plan_.training && p >= S - 1)
        add_compute(plan_.stages[static_cast<std::size_t>(2 * S - 2 - p)], false, mb);
    }
    // IpuCopies after every IPU's compute (PopART: one inter-IPU copy program per cycle),
    // merged per (source, destination) IPU. Every copy runs in every cycle, the fill and flush
    // cycles too, whether or not its stage has a micro-batch: PopART's addPipelineCycle adds
    // the whole pipelineIpuCopySeq to each cycle ("Always do all the copies. This is ensure
    // that ALL copies are outlined across pipelineCycles AND merged across pipelineStages",
    // willow/src/popx/popprograms.cpp, graphcore/popart sdk/popart/2.1.0 = a078f19f).
    std::map<std::pair<int, int>, LOp> copies;
    for (const StageCopy& cp : plan_.copies) {
      const PipelineStage& from = plan_.stages[static_cast<std::size_t>(cp.from_stage)];
      const PipelineStage& to = plan_.stages[static_cast<std::size_t>(cp.to_stage)];
      if (from.vg == to.vg) continue;
      LOp& op = copies[{from.vg, to.vg}];
      op.kind = LKind::IpuCopy;
      op.lane = Lane::Compute;
      op.vg = from.vg;
      op.dst_vg = to.vg;
      op.bytes += cp.bytes;
      op.tensors.push_back(cp.tensor);
      op.role = "ipu_copy";
      op.label = "IpuCopy vg" + std::to_string(from.vg) + "->vg" + std::to_string(to.vg);
    }
    for (auto& [key, op] : copies) {
      op.deps = compute_ops;
      ph.ops.push_back(std::move(op));
    }
    return ph;
  }

  LOp collective(coll::CollectiveOp cop, const coll::ReplicaGrouping& g, std::uint64_t elements,
                 DType dt, int vg, const std::string& role) const {
    return collective_op(cop, g, elements, dt, vg, Lane::Compute, role);
  }

  LOp exchange(int vg, std::uint64_t bytes, bool store) const {
    LOp o;
    o.kind = LKind::RemoteExchange;
    o.lane = Lane::Compute;
    o.vg = vg;
    o.bytes = bytes;
    LTransfer t;
    t.tensor = "optimizer_state";
    t.bytes = bytes;
    t.store = store;
    o.transfers = {t};
    o.role = store ? "store optimizer state" : "load optimizer state";
    o.label = o.role;
    return o;
  }

  /// Gradient reduction and the optimizer of every virtual graph (PopART's accumulate outer
  /// fragment), ops chained per vg. Under an overlap schedule the chains of the graphs it does
  /// not exclude start together (PopART's AccumulateOuterFragmentParallelizer merges them);
  /// every other chain (Serial, PopART's default, bins the ops by virtual graph id) runs on its
  /// own, in virtual graph order, after them.
  LPhase optimizer(int index, int step) {
    LPhase ph;
    ph.index = index;
    ph.repetition = step;
    ph.memory.resize(static_cast<std::size_t>(plan_.virtual_graphs));
    std::vector<const StageOptimizer*> order;
    for (const StageOptimizer& so : plan_.optimizers)
      if (s_.outer_fragment_parallel(so.vg)) order.push_back(&so);
    const std::size_t parallel = order.size();
    std::vector<const StageOptimizer*> serial;
    for (const StageOptimizer& so : plan_.optimizers)
      if (!s_.outer_fragment_parallel(so.vg)) serial.push_back(&so);
    std::stable_sort(
        serial.begin(), serial.end(),
        [](const StageOptimizer* a, const StageOptimizer* b) { return a->vg < b->vg; });
    order.insert(order.end(), serial.begin(), serial.end());
    std::vector<int> parallel_ends;  // last op of each overlapping chain
    int serial_prev = -1;            // last op of the previous serial chain
    for (std::size_t k = 0; k < order.size(); ++k) {
      const StageOptimizer& so = *order[k];
      std::vector<LOp> chain;
      // PopART runs each weight's gradient reduction as its own op, one GCL call each
      // (popx/op/collectives/*x.cpp, sdk/popart/2.1.0 and sdk/poplar/2.3.0): a weight whose
      // optimizer state is sharded (minElementsForReplicatedTensorSharding or more elements)
      // is reduce-scattered (StreamingMemoryOpInserter::RTSAllReduceToScatter), its shard
      // all-reduced over the complementary group when there is one, and its update
      // all-gathered; a smaller weight keeps OptimizerDecompose's all-reduce over all replicas.
      // A plan without per-weight sizes counts as one weight.
      const bool per_weight =
          !so.weight_sizes.empty() && so.weight_sizes.size() == so.updates.size();
      const std::vector<std::uint64_t> sizes =
          per_weight ? so.weight_sizes : std::vector<std::uint64_t>{so.weight_elements};
      auto sharded = [&](std::uint64_t n) {
        return rts_ &&
               (!per_weight || n >= s_.optimizerState.minElementsForReplicatedTensorSharding);
      };
      auto shard_of = [&](std::uint64_t n) { return (n + shard_ - 1) / shard_; };
      std::uint64_t fused = 0;  // elements of the fused all-reduce (ZFused pattern)
      if (R_ > 1) {
        const coll::ReplicaGrouping all = coll::parse_comm_group_spec("all").toReplicaGrouping(R_);
        for (const std::uint64_t n : sizes) {
          if (sharded(n)) {
            chain.push_back(collective(coll::CollectiveOp::ReduceScatter, *shard_group_, n,
                                       so.weight_dtype, so.vg, "gradient reduce-scatter"));
            if (!complement_) continue;
            if (s_.fusedGradientAllReduce) {
              fused += shard_of(n);
            } else {
              chain.push_back(collective(coll::CollectiveOp::AllReduce, *complement_, shard_of(n),
                                         so.weight_dtype, so.vg,
                                         "complementary gradient all-reduce"));
            }
          } else if (s_.fusedGradientAllReduce) {
            fused += n;
          } else {
            chain.push_back(collective(coll::CollectiveOp::AllReduce, all, n, so.weight_dtype,
                                       so.vg, "gradient all-reduce"));
          }
        }
        // The fused op takes the comm group of the last all-reduce it replaces. ASSUMPTION:
        // that is a complementary one when the domain has a complement (which weight's op is
        // last depends on AdamDecompose's order; the small weights are < 1 % of the bytes).
        if (fused > 0)
          chain.push_back(collective(coll::CollectiveOp::AllReduce,
                                     complement_ ? *complement_ : all, fused, so.weight_dtype,
                                     so.vg, "fused gradient all-reduce"));
      }
      // Each weight's update (and its optimizer state) on its shard when sharded.
      std::uint64_t kept = 0, total = 0;  // state elements after sharding, and before
      for (const std::uint64_t n : sizes) {
        kept += sharded(n) ? shard_of(n) : n;
        total += n;
      }
      // Without per-weight sizes the whole update is sharded as one (1 / shard exactly).
      const double frac = !per_weight ? (rts_ ? 1.0 / static_cast<double>(shard_) : 1.0)
                          : total > 0 ? static_cast<double>(kept) / static_cast<double>(total)
                                      : 1.0;
      if (state_off_chip_ && so.state_bytes > 0)
        chain.push_back(exchange(
            so.vg, static_cast<std::uint64_t>(static_cast<double>(so.state_bytes) * frac), false));
      // A sharded weight's LAMB norms (its LambSquareOps of the weight and of the Adam updater)
      // are norms of its shard: PopART all-reduces each FP32 scalar over the sharding domain
      // before the trust ratio, one GCL call each (ModelOp::sharded_norms).
      if (per_weight && so.sharded_norms.size() == sizes.size())
        for (std::size_t i = 0; i < sizes.size(); ++i)
          if (R_ > 1 && sharded(sizes[i]))
            for (std::uint32_t j = 0; j < so.sharded_norms[i]; ++j)
              chain.push_back(collective(coll::CollectiveOp::AllReduce, *shard_group_, 1,
                                         DType::Float32, so.vg, "LAMB norm all-reduce"));
      LOp u;
      u.kind = LKind::Compute;
      u.lane = Lane::Compute;
      u.vg = so.vg;
      u.unit = ComputeUnit::Vector;
      u.op_class = OpClass::Optimizer;
      u.dtype = so.state_dtype;
      u.flops = so.update_flops * frac;
      u.mem_bytes = static_cast<std::uint64_t>(static_cast<double>(so.update_bytes) * frac);
      if (!so.updates.empty()) {
        // One op per weight (its shard with RTS), timed one after another.
        auto parts = std::make_shared<std::vector<ComputePart>>(so.updates);
        if (per_weight) {  // the sum of the weights' updates, each sharded or not
          u.flops = 0;
          u.mem_bytes = 0;
        }
        for (std::size_t i = 0; i < parts->size(); ++i) {
          ComputePart& p = (*parts)[i];
          const double f =
              per_weight ? (sharded(sizes[i]) ? 1.0 / static_cast<double>(shard_) : 1.0) : frac;
          p.flops *= f;
          p.bytes = static_cast<std::uint64_t>(static_cast<double>(p.bytes) * f);
          if (!per_weight) continue;
          u.flops += p.flops;
          u.mem_bytes += p.bytes;
        }
        u.parts = std::move(parts);
      }
      u.role = "optimizer";
      u.label = "optimizer update";
      chain.push_back(u);
      if (state_off_chip_ && so.state_bytes > 0)
        chain.push_back(exchange(
            so.vg, static_cast<std::uint64_t>(static_cast<double>(so.state_bytes) * frac), true));
      for (const std::uint64_t n : sizes)
        if (R_ > 1 && sharded(n))
          chain.push_back(collective(coll::CollectiveOp::AllGather, *shard_group_, shard_of(n),
                                     so.weight_dtype, so.vg, "gather updated weights"));
      int prev = -1;
      for (LOp& op : chain) {
        if (prev >= 0) {
          op.deps = {prev};
        } else if (k >= parallel) {  // a serial chain waits for everything before it
          op.deps = serial_prev >= 0 ? std::vector<int>{serial_prev} : parallel_ends;
        }
        ph.ops.push_back(std::move(op));
        prev = static_cast<int>(ph.ops.size()) - 1;
      }
      if (prev < 0) continue;
      if (k < parallel) {
        parallel_ends.push_back(prev);
      } else {
        serial_prev = prev;
      }
    }
    return ph;
  }

  /// SRAM of each virtual graph in the steady state.
  std::vector<std::vector<MemoryItem>> memory() const {
    std::vector<std::vector<MemoryItem>> mem(static_cast<std::size_t>(plan_.virtual_graphs));
    auto add = [&](int vg, const std::string& t, std::uint64_t bytes, const std::string& what) {
      if (bytes > 0)
        mem[static_cast<std::size_t>(vg)].push_back({t, bytes, TileSet::Compute, what});
    };
    for (const StageOptimizer& so : plan_.optimizers) {
      add(so.vg, "weights", so.weight_bytes, "weight");
      if (plan_.micro_batches > 1) add(so.vg, "accumulators", so.accumulator_bytes, "accumulator");
      if (!state_off_chip_)
        add(so.vg, "optimizer_state", so.state_bytes / shard_, "optimizer_state");
    }
    for (const auto& [vg, bytes] : plan_.inference_weight_bytes)
      add(vg, "weights", bytes, "weight");
    for (const PipelineStage& st : plan_.stages) {
      const std::string n = "stage" + std::to_string(st.stage);
      add(st.vg, n + "/stash", st.stash_bytes_per_mb * static_cast<std::uint64_t>(st.in_flight),
          "stash");
      add(st.vg, n + "/recomputation", st.recompute_buffer_bytes, "recomputation");
      add(st.vg, n + "/temporary", st.temp_bytes, "temporary");
      add(st.vg, n + "/ipu_copy_in", st.input_bytes_per_mb, "io_buffer");
    }
    return mem;
  }

  const PipelinePlan& plan_;
  const SessionOptions& s_;
  std::uint32_t R_;
  bool rts_ = false, state_off_chip_ = false;
  unsigned shard_ = 1;
  std::optional<coll::ReplicaGrouping> shard_group_, complement_;
  /// Per forward stage: the compute segments of its forward / backward (see segments()).
  std::vector<std::vector<std::shared_ptr<const std::vector<ComputePart>>>> fwd_, bwd_;
};

}  // namespace

Program lower_pipeline(const PipelinePlan& plan, const SessionOptions& session) {
  return PipelineLowering(plan, session).run();
}

}  // namespace ipusim::rt
