// Names of the lowered program's lanes and op kinds (see program.hpp).
#include "runtime/ir/program.hpp"

namespace ipusim::rt {

std::string to_string(Lane l) {
  return l == Lane::Compute ? "compute" : (l == Lane::Io ? "io" : "io_phase");
}

std::string to_string(LKind k) {
  switch (k) {
    case LKind::RemoteExchange:
      return "remote_exchange";
    case LKind::IoCopy:
      return "io_tile_copy";
    case LKind::Compute:
      return "compute";
    case LKind::Collective:
      return "collective";
    case LKind::IpuCopy:
      return "ipu_copy";
    case LKind::Host:
      return "host_io";
  }
  return "?";
}

LOp collective_op(coll::CollectiveOp op, const coll::ReplicaGrouping& g, std::uint64_t elements,
                  DType dt, int vg, Lane lane, const std::string& role) {
  LOp o;
  o.kind = LKind::Collective;
  o.lane = lane;
  o.vg = vg;
  o.cop = op;
  o.group = g;
  o.elements = elements;
  o.dtype = dt;
  o.bytes = elements * dtype_bytes(dt);
  o.role = role;
  o.label = coll::to_string(op) + " " + role;
  return o;
}

}  // namespace ipusim::rt
