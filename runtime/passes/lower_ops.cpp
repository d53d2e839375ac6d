// Lowering: builders of lowered ops and the byte sizes of transfers (see lowerer.hpp).
#include <algorithm>

#include "collectives/groups/comm_group_spec.hpp"
#include "runtime/passes/lowerer.hpp"

namespace ipusim::rt::lower {

int Lowerer::add(LOp op) {
  cur_->ops.push_back(std::move(op));
  return static_cast<int>(cur_->ops.size()) - 1;
}

void Lowerer::mem(int vg, const std::string& t, std::uint64_t bytes, TileSet ts,
                  const std::string& what) {
  if (bytes > 0) cur_->memory[vg].push_back({t, bytes, ts, what});
}

LOp Lowerer::collective(coll::CollectiveOp op, const coll::ReplicaGrouping& g,
                        std::uint64_t elements, DType dt, int vg, const std::string& role,
                        std::vector<std::string> tensors) {
  LOp o = collective_op(op, g, elements, dt, vg, collective_lane(), role);
  o.tensors = std::move(tensors);
  return o;
}

LOp Lowerer::exchange(Lane lane, int vg, std::vector<LTransfer> tr, const std::string& role) {
  LOp o;
  o.kind = LKind::RemoteExchange;
  o.lane = lane;
  o.vg = vg;
  for (const auto& t : tr) {
    o.bytes += t.bytes;
    o.tensors.push_back(t.tensor);
  }
  o.transfers = std::move(tr);
  o.role = role;
  o.label = role;
  return o;
}

LOp Lowerer::io_copy(int vg, std::uint64_t bytes, bool to_compute, std::vector<std::string> tensors,
                     const std::string& role) {
  LOp o;
  o.kind = LKind::IoCopy;
  o.lane = Lane::Compute;  // the exchange involves the compute tiles, so it blocks them
  o.vg = vg;
  o.bytes = bytes;
  o.to_compute = to_compute;
  o.tensors = std::move(tensors);
  o.role = role;
  o.label = to_compute ? "io_copy_to_compute " + role : "io_copy_to_io " + role;
  return o;
}

std::vector<LOp> Lowerer::io_copy_ops(int vg, const std::vector<LTransfer>& trs, bool to_compute,
                                      const std::string& role) {
  std::vector<LOp> out;
  for (const LTransfer& t : trs) {
    out.push_back(io_copy(vg, t.bytes, to_compute, {t.tensor}, role));
    out.back().label += " " + t.tensor;
  }
  return out;
}

std::vector<int> Lowerer::io_copies(int vg,
                                    const std::vector<std::pair<std::string, std::uint64_t>>& items,
                                    bool to_compute, const std::string& role,
                                    const std::vector<int>& deps) {
  std::vector<int> out;
  for (const auto& [name, bytes] : items) {
    LOp c = io_copy(vg, bytes, to_compute, {name}, role);
    c.label += " " + name;
    for (int d : deps)
      if (d >= 0) c.deps.push_back(d);
    out.push_back(add(c));
  }
  return out;
}

LOp Lowerer::from_model(const ModelOp& o, int v, int step) {
  LOp op;
  op.vg = v;
  op.micro_batch = step;
  op.label = o.name;
  op.role = to_string(o.pass);
  op.dtype = o.dtype;
  switch (o.type) {
    case OpType::Compute:
      op.kind = LKind::Compute;
      op.flops = o.flops;
      op.mem_bytes = o.bytes;
      op.vector_tile_cycles = o.vector_tile_cycles;
      op.unit = o.unit;
      op.op_class = o.op_class;
      op.gemm = o.gemm;
      break;
    case OpType::Collective: {
      const coll::ReplicaGrouping g =
          coll::parse_comm_group_spec(o.comm_group).toReplicaGrouping(R());
      op = collective(coll::parse_collective_op(o.collective_op), g,
                      o.collective_bytes / dtype_bytes(o.dtype), o.dtype, v, o.name, {});
      op.lane = Lane::Compute;  // tensor-parallel collectives sit in the compute graph
      op.micro_batch = step;
      op.label = o.name;
      break;
    }
    case OpType::HostLoad:
    case OpType::HostStore:
      op.kind = LKind::Host;
      op.bytes = o.collective_bytes;
      op.to_compute = o.type == OpType::HostLoad;
      break;
    case OpType::RemoteLoad:
    case OpType::RemoteStore: {
      const std::string t =
          o.inputs.empty() ? (o.outputs.empty() ? o.name : o.outputs[0]) : o.inputs[0];
      op = exchange(
          Lane::Compute, v,
          {{t, o.collective_bytes, o.type == OpType::RemoteStore, IOSchedule::OnDemand, 0}},
          o.name);
      op.micro_batch = step;
      break;
    }
  }
  return op;
}

std::uint64_t Lowerer::loaded_bytes(const std::string& t) const {
  const Tensor& x = full_.tensor(t);
  return x.kind == TensorKind::Activation ? x.bytes() * (x.per_micro_batch ? K_ : 1)
                                          : res_.at(t).shard_bytes;
}

std::uint64_t Lowerer::on_chip_bytes(const std::string& t) const {
  const Tensor& x = full_.tensor(t);
  if (x.kind == TensorKind::Activation) return loaded_bytes(t);
  // Sharded weights are gathered before use; sharded state is used as a shard.
  return x.kind == TensorKind::Weight ? res_.at(t).full_bytes : res_.at(t).shard_bytes;
}

bool Lowerer::all_weights(const std::vector<std::string>& names) const {
  return std::all_of(names.begin(), names.end(), [&](const std::string& n) {
    return full_.tensor(n).kind == TensorKind::Weight;
  });
}

int Lowerer::producer_phase(const std::string& t) const {
  for (const TensorUse& u : uses_.at(t))
    if (u.writes) return u.phase;
  return -1;
}

bool Lowerer::whole_batch_host_load(const ModelOp& o) {
  return o.type == OpType::HostLoad && !o.per_micro_batch && o.pass != Pass::Optimizer;
}

}  // namespace ipusim::rt::lower
