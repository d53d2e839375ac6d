// Streaming-memory capacity accounting.
#include "models/system/gateway.hpp"

#include <algorithm>

#include "sim/errors.hpp"

namespace ipusim {

StreamingMemory::StreamingMemory(std::string owner, std::uint64_t capacity_bytes)
    : owner_(std::move(owner)), capacity_(capacity_bytes) {}

void StreamingMemory::allocate(const std::string& name, std::uint64_t bytes) {
  auto it = buffers_.find(name);
  const std::uint64_t have = it == buffers_.end() ? 0 : it->second;
  if (bytes <= have) return;
  const std::uint64_t more = bytes - have;
  if (more > capacity_ - used_) {
    throw ConfigError("streaming memory: buffer '" + name + "' (" + std::to_string(bytes) +
                      " bytes) does not fit in " + owner_ + ": " +
                      std::to_string(capacity_ - used_) + " bytes free of " +
                      std::to_string(capacity_) +
                      " (raise /machine/gateway/capacity_GiB or shrink the buffer)");
  }
  buffers_[name] = bytes;
  used_ += more;
  peak_ = std::max(peak_, used_);
}

void StreamingMemory::release(const std::string& name) {
  auto it = buffers_.find(name);
  if (it == buffers_.end()) return;
  used_ -= it->second;
  buffers_.erase(it);
}

Gateway::Gateway(sc_core::sc_module_name name, std::uint32_t machine, const MachineParams& params,
                 ResourceId ddr, Network& network, const std::vector<ResourceId>& links)
    : sc_core::sc_module(name),
      machine_(machine),
      memory_("machine " + std::to_string(machine) + " (" +
                  std::string(sc_core::sc_object::name()) + ")",
              params.capacity_bytes()),
      ddr_(ddr),
      link_stats_(network) {
  links_.reserve(links.size());
  for (ResourceId id : links) place_link(network, id, links_, link_stats_);
}

void Gateway::collect_stats(Json& out) const {
  if (memory_.peak_bytes() > 0) {
    out["streaming_memory"] = {{"capacity_bytes", memory_.capacity_bytes()},
                               {"used_bytes", memory_.used_bytes()},
                               {"peak_bytes", memory_.peak_bytes()},
                               {"buffers", memory_.buffers()}};
  }
  link_stats_.collect_stats(out);
}

}  // namespace ipusim
