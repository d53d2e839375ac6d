// Names of the lowered program's lanes and op kinds (see program.hpp).
#include "runtime/ir/program.hpp"

namespace ipusim::rt {

std::string to_string(Lane l) { return l == Lane::Compute ? "compute" : (l == Lane::Io ? "io" : "io_phase"); }

std::string to_string(LKind k) {
  switch (k) {
    case LKind::RemoteExchange: return "remote_exchange";
    case LKind::IoCopy: return "io_tile_copy";
    case LKind::Compute: return "compute";
    case LKind::Collective: return "collective";
    case LKind::IpuCopy: return "ipu_copy";
    case LKind::Host: return "host_io";
  }
  return "?";
}

}  // namespace ipusim::rt
